// Sizes are checked before they are trusted: every reader, given a good
// fixture with one count or length raised (domainSize, nVars, nWires, a
// point count, a section count, a file far larger than its kind), must
// fail at once with io_error "FILE: ..." naming the field, without first
// allocating what the count asks for. Each read runs in a child process
// whose address space is capped at 512 MiB above what it holds already
// (RLIMIT_AS), so a reader that allocates by the raised count dies of
// std::bad_alloc there and the test fails; the good file read under the
// same cap shows the cap leaves room for honest work.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <new>
#include <optional>

#include "groth16/proof_bytes.hpp"
#include "groth16/setup.hpp"
#include "io/csr_circuit.hpp"
#include "io/key_cache.hpp"
#include "io/params.hpp"
#include "io/proof_files.hpp"
#include "io/proof_json.hpp"
#include "io/r1cs.hpp"
#include "io/vkey_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "io_test_util.hpp"
#include "mapped_test_util.hpp"

namespace starzk::test {
namespace {

using bytes_t = std::vector<uint8_t>;

// Virtual memory the process holds now (/proc/self/statm, first field).
uint64_t address_space_now() {
  std::ifstream f("/proc/self/statm");
  uint64_t pages = 0;
  f >> pages;
  return pages * uint64_t(::sysconf(_SC_PAGESIZE));
}

// Runs read() in a child capped at 512 MiB more address space; expects an
// io_error naming `file` and containing `problem` (any problem for "";
// std::nullopt: the read must succeed).
void expect_bounded(const std::function<void()>& read, const fs::path& file, const std::optional<std::string>& want) {
  const bool ok = !want.has_value();
  const std::string problem = want.value_or("");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const rlim_t cap = rlim_t(address_space_now() + (uint64_t(512) << 20));
    const rlimit lim{cap, cap};
    ::setrlimit(RLIMIT_AS, &lim);
    int code = 0;
    try {
      read();
      code = ok ? (::testing::Test::HasFailure() ? 5 : 0) : 4;
      if (code) std::fprintf(stderr, "no error for %s\n", file.c_str());
    } catch (const io_error& e) {
      const std::string what = e.what();
      code = !ok && what.rfind(file.string() + ": ", 0) == 0 && what.find(problem) != std::string::npos ? 0 : 1;
      if (code) std::fprintf(stderr, "unexpected message: %s\n", what.c_str());
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "std::bad_alloc: the reader allocated by an unchecked count\n");
      code = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "wrong exception: %s\n", e.what());
      code = 3;
    }
    std::fflush(nullptr);
    ::_exit(code);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st)) << file << ": the reader was killed by signal " << WTERMSIG(st);
  EXPECT_EQ(WEXITSTATUS(st), 0) << file << " (expected '" << problem << "'; 2 = bad_alloc)";
}

class bounds_test : public ::testing::Test {
 protected:
  fs::path mutate(const fs::path& from, const std::string& name, const std::function<void(bytes_t&)>& fn) {
    bytes_t b = read_bytes(from);
    fn(b);
    write_bytes(tmp / name, b);
    return tmp / name;
  }
  fs::path multiplier(const std::string& f) { return fixture("multiplier", f); }
  scratch_t tmp;
};

// ---- iden3 containers ------------------------------------------------------

TEST_F(bounds_test, zkey_header_counts) {
  const fs::path good = multiplier("circuit.zkey");
  expect_bounded([&] { read_zkey(good); }, good, std::nullopt);
  // The groth16 header (section 2): nVars @88, nPublic @92, domainSize @96
  // of its payload; in the fixture domainSize is the u32 at file offset 136.
  auto hdr = [](const bytes_t& b) { return section_of(b, 2).payload; };
  ASSERT_EQ(hdr(read_bytes(good)) + 96, 136u);
  for (const uint32_t domain : {1u << 26, 1u << 28, 1u << 30, 1u << 31}) {
    const fs::path p = mutate(good, "domain-" + std::to_string(domain) + ".zkey",
                              [&](bytes_t& b) { put_u32(b, hdr(b) + 96, domain); });
    expect_bounded([&] { read_zkey(p); }, p,
                   "section 9 (H query): length lies: domainSize = " + std::to_string(domain));
  }
  fs::path p = mutate(good, "nvars.zkey", [&](bytes_t& b) { put_u32(b, hdr(b) + 88, 1u << 28); });
  expect_bounded([&] { read_zkey(p); }, p, "length lies: nVars = 268435456");
  p = mutate(good, "npublic.zkey", [&](bytes_t& b) { put_u32(b, hdr(b) + 92, 60); });
  expect_bounded([&] { read_zkey(p); }, p, "section 3 (IC): length lies: nPublic + 1 = 61");
  p = mutate(good, "ncoefs.zkey", [&](bytes_t& b) { put_u32(b, section_of(b, 4).payload, 0xFFFFFFF0u); });
  expect_bounded([&] { read_zkey(p); }, p, "section 4 (coefficients): length lies");
}

// A copy of the circuit without its wire-labels section (section 3).
bytes_t without_labels(bytes_t b) {
  const section_t l = section_of(b, 3);
  b.erase(b.begin() + std::ptrdiff_t(l.header), b.begin() + std::ptrdiff_t(l.payload + l.size));
  put_u32(b, 8, get_u32(b, 8) - 1);
  return b;
}

TEST_F(bounds_test, r1cs_wire_count) {
  // Header (section 1): n8, r (32), nWires @36.
  const fs::path plain =
      mutate(multiplier("circuit.r1cs"), "no-labels.r1cs", [](bytes_t& b) { b = without_labels(b); });
  expect_bounded([&] { EXPECT_EQ(read_r1cs(plain).n_vars, 68u); }, plain, std::nullopt);
  // 2^24 wires and no labels: nothing in the file pays for them.
  fs::path p = mutate(plain, "wires.r1cs", [](bytes_t& b) { put_u32(b, section_of(b, 1).payload + 36, 1u << 24); });
  expect_bounded([&] { read_r1cs(p); }, p,
                 "section 1 (header): nWires = 16777216 but the file has no wire labels section");
  // With labels, the labels section pays 8 bytes per wire.
  p = mutate(multiplier("circuit.r1cs"), "wires-labels.r1cs",
             [](bytes_t& b) { put_u32(b, section_of(b, 1).payload + 36, 1u << 24); });
  expect_bounded([&] { read_r1cs(p); }, p, "section 3 (wire labels): length lies");
  p = mutate(multiplier("circuit.r1cs"), "constraints.r1cs",
             [](bytes_t& b) { put_u32(b, section_of(b, 1).payload + 60, 0xFFFFFFFFu); });
  expect_bounded([&] { read_r1cs(p); }, p, "length lies: 4294967295 constraints");
}

TEST_F(bounds_test, wtns_count) {
  const fs::path p = mutate(multiplier("witness.wtns"), "count.wtns",
                            [](bytes_t& b) { put_u32(b, section_of(b, 1).payload + 36, 1u << 30); });
  expect_bounded([&] { read_wtns(p); }, p, "length lies: header says 1073741824 values");
  expect_bounded([&] { read_wtns(p, 68); }, p, "length lies");
}

// ---- bellman .params and the mapped formats ---------------------------------

TEST_F(bounds_test, params_counts) {
  const r1cs_t cs = read_r1cs(multiplier("circuit.r1cs"));
  const fs::path good = tmp / "good.params";
  write_params(good, setup(cs, root_convention_t::bellman));
  expect_bounded([&] { read_params(good, cs); }, good, std::nullopt);
  // n_ic, a u32 big-endian at 864, then each query's count after its points.
  fs::path p = mutate(good, "ic.params", [](bytes_t& b) { b[864] = 0x40; });
  expect_bounded([&] { read_params(p, cs); }, p, "");
  p = mutate(good, "ic-max.params", [](bytes_t& b) { std::fill_n(b.begin() + 864, 4, 0xFF); });
  expect_bounded([&] { read_params(p, cs); }, p, "");
}

// Sets a u64 of a page container's header and reseals the header checksum
// (so only the bounds can catch the lie).
void put_header_u64(bytes_t& b, size_t at, uint64_t v) {
  put_u64(b, at, v);
  reseal(b);
}

TEST_F(bounds_test, mapped_formats) {
  const fs::path cache = tmp / "good.szkc", csr = tmp / "good.szcs";
  write_key_cache(cache, read_zkey(multiplier("circuit.zkey")));
  write_csr_circuit(csr, read_r1cs(multiplier("circuit.r1cs")));
  expect_bounded([&] { read_key_cache(cache, cache_check_t::full); }, cache, std::nullopt);
  expect_bounded([&] { read_csr_circuit(csr); }, csr, std::nullopt);
  // Key cache metadata: n_vars @44, domain_size @56; section table after
  // the 920-byte metadata, 32 bytes per section (offset, count, size, sum).
  const size_t table = table_of(read_bytes(cache)).entries;
  fs::path p = mutate(cache, "nvars.szkc", [](bytes_t& b) { put_header_u64(b, 44, uint64_t(1) << 40); });
  expect_bounded([&] { read_key_cache(p); }, p, "");
  p = mutate(cache, "domain.szkc", [](bytes_t& b) { put_header_u64(b, 56, uint64_t(1) << 40); });
  expect_bounded([&] { read_key_cache(p); }, p, "");
  for (size_t s = 0; s < 12; ++s) {
    p = mutate(cache, "count-" + std::to_string(s) + ".szkc",
               [&](bytes_t& b) { put_header_u64(b, table + 32 * s + 8, uint64_t(1) << 36); });
    expect_bounded([&] { read_key_cache(p); }, p, "cannot fit in the file");
  }
  // CSR metadata: n_constraints @48, A.n_rows @56.
  p = mutate(csr, "rows.szcs", [](bytes_t& b) { put_header_u64(b, 56, uint64_t(1) << 40); });
  expect_bounded([&] { read_csr_circuit(p); }, p, "");
  p = mutate(csr, "count.szcs", [](bytes_t& b) { put_header_u64(b, 40 + 64 + 8, uint64_t(1) << 36); });
  expect_bounded([&] { read_csr_circuit(p); }, p, "cannot fit in the file");
}

// ---- proofs and JSON ---------------------------------------------------------

// A sparse file of `size` bytes (no disk used): the readers must refuse it
// by its size, before reading it.
fs::path sparse_file(const fs::path& p, uint64_t size) {
  std::ofstream(p).close();
  fs::resize_file(p, size);
  return p;
}

TEST_F(bounds_test, proofs_bin_size) {
  const fs::path big = sparse_file(tmp / "big.bin", uint64_t(8) << 30);
  expect_bounded([&] { read_proofs_bin(big, 2); }, big, "is 8589934592 bytes: 2 proof(s) of 192 bytes need 384");
  const proof_t proof = read_proof_json(multiplier("proof.json"));
  const fs::path two = tmp / "two.bin";
  write_proofs_bin(two, std::vector<proof_t>{proof, proof});
  expect_bounded([&] { EXPECT_EQ(read_proofs_bin(two, 2).at(1), proof); }, two, std::nullopt);
  expect_bounded([&] { read_proofs_bin(two, 3); }, two, "is 384 bytes: 3 proof(s)");
  const fs::path bad = mutate(two, "bad.bin", [](bytes_t& b) { b[192 + 5] ^= 1; });
  expect_bounded([&] { read_proofs_bin(bad, 2); }, bad, "proof 1: ");
}

TEST_F(bounds_test, json_sizes) {
  const fs::path padded = tmp / "padded-proof.json";
  write_text(padded, std::string(100000, ' ') + read_text(multiplier("proof.json")));
  expect_bounded([&] { read_proof_json(padded); }, padded, "more than the 65536");
  const fs::path vk = sparse_file(tmp / "vk.json", uint64_t(4) << 30);
  expect_bounded([&] { read_vkey_json(vk); }, vk, "is 4294967296 bytes, more than");
  const fs::path pub = sparse_file(tmp / "public.json", uint64_t(4) << 30);
  expect_bounded([&] { read_public_json(pub); }, pub, "is 4294967296 bytes, more than");
}

}  // namespace
}  // namespace starzk::test
