// What every libFuzzer harness of tests/fuzz shares: the targets' table,
// the input as a file, the rule for which failures are allowed, and the
// container reseal.
//
// The targets: one function per reader, found by name (find_target), each
// taking one input, handing it to its reader the way the CLI does (a file
// written with write_scratch, the same read options and follow-up checks:
// validation, unpacking, conversion) and rejecting it cleanly or not at
// all. fuzz_readers.cpp holds zkey, r1cs, wtns, params, params_vk (the
// verifying key at the head of a .params, `verify --params`), proof_json,
// public_json, vkey_json, manifest and trace; fuzz_mapped.cpp szkc, szcs, szpk
// (with the multiplier circuit), proofs_bin, journal and record. One
// executable per target (fuzz_main.cpp, CMake: fuzz_<name>) keeps each
// corpus and coverage map to one format; fuzz_seeds.cpp writes every
// target's seed corpus from tests/fixtures.
//
// The readers take paths (they map the file), so each input is written to
// one scratch file per process and harness, under $TMPDIR (scripts/fuzz.sh
// points it at /dev/shm), rewritten for every execution.
//
// The rule: a reader may reject an input only with io_error (the project's
// "FILE: problem" error; a few callers document std::runtime_error, and a
// harness names those itself through `allowed`). Anything else escaping a
// reader (std::bad_alloc from an allocation sized by an unchecked count,
// std::out_of_range, std::length_error) is not caught, reaches
// std::terminate and is reported by libFuzzer as a crash, as are the
// sanitizers' findings (the build uses AddressSanitizer and
// UndefinedBehaviorSanitizer, scripts/fuzz.sh runs with a malloc limit).
//
// The page containers (.szkc, .szcs, .szpk) carry a header checksum and
// per-section checksums: a mutated file would almost always stop at the
// first checksum, so reseal_container recomputes them, when the table can
// be found inside the input, before the file is written. That is what an
// adversary who edits a cache does (docs/reliability.md); the checksum test
// itself is one comparison.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/binfile.hpp"
#include "io/checksum.hpp"
#include "io/io_error.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"

namespace starzk::fuzz {

using target_fn = void (*)(std::span<const uint8_t>);

struct target_t {
  const char* name;
  target_fn run;
};

std::span<const target_t> reader_targets();  // fuzz_readers.cpp
std::span<const target_t> mapped_targets();  // fuzz_mapped.cpp

// The target of this name, or nullptr.
const target_t* find_target(std::string_view name);

// A file of this process for one harness ("input.zkey", ...), rewritten
// with `bytes` and returned.
inline std::filesystem::path write_scratch(std::span<const uint8_t> bytes, const std::string& name) {
  static const std::filesystem::path dir = [] {
    const char* t = std::getenv("TMPDIR");
    std::filesystem::path d = std::filesystem::path(t && *t ? t : "/tmp") / ("starzk-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  const std::filesystem::path p = dir / name;
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) std::abort();
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) std::abort();
    done += size_t(n);
  }
  ::close(fd);
  return p;
}

inline std::span<const uint8_t> bytes_of(const uint8_t* data, size_t size) { return {data, size}; }

template <class First, class... Rest>
bool is_one_of(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const First&) {
    return true;
  } catch (...) {
  }
  if constexpr (sizeof...(Rest) > 0) return is_one_of<Rest...>(e);
  return false;
}

// Runs f; an io_error (or an exception of one of the `Allowed` types) is a
// clean rejection, anything else propagates to libFuzzer. Returns whether f
// completed.
template <class... Allowed, class F>
bool accepts(F&& f) {
  try {
    f();
    return true;
  } catch (const io_error&) {
    return false;
  } catch (...) {
    if constexpr (sizeof...(Allowed) > 0) {
      if (is_one_of<Allowed...>(std::current_exception())) return false;
    }
    throw;
  }
}

// Recomputes every section checksum and the header checksum of a page
// container (io/page_container.hpp: header at 0, u32 n_sections at 12, u64
// meta_size at 32, then the table of 32-byte entries {offset, count,
// elem_size, checksum} and the u64 header checksum). Sections that do not
// lie inside the input keep their checksum (the reader refuses them
// anyway). Returns false when the table itself is not inside the input.
inline bool reseal_container(std::vector<uint8_t>& b) {
  if (b.size() < 40) return false;
  const uint64_t n = load_u32_le(b.data() + 12), meta = load_u64_le(b.data() + 32);
  if (n > 4096 || meta > b.size()) return false;
  const uint64_t table = 40 + meta, head = table + 32 * n + 8;
  if (head > b.size()) return false;
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t* e = b.data() + table + 32 * i;
    const uint64_t off = load_u64_le(e), count = load_u64_le(e + 8), elem = load_u64_le(e + 16);
    if (elem == 0 || count > b.size() / elem || off > b.size() || count * elem > b.size() - off) continue;
    store_u64_le(e + 24, block_checksum({b.data() + off, size_t(count * elem)}, 1));
  }
  store_u64_le(b.data() + head - 8, xxh64(b.data(), head - 8));
  return true;
}

// The multiplier fixture, read once: the circuit a packed key or a
// .params is checked against, and a witness that satisfies it.
inline const r1cs_t& circuit() {
  static const r1cs_t cs = read_r1cs(STARZK_TEST_DATA "/fixtures/multiplier/circuit.r1cs");
  return cs;
}
inline const std::vector<fr_t>& witness() {
  static const std::vector<fr_t> w = read_wtns(STARZK_TEST_DATA "/fixtures/multiplier/witness.wtns");
  return w;
}

}  // namespace starzk::fuzz
