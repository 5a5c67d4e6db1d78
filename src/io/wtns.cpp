// .wtns reader and writer (see wtns.hpp for the format).
#include "io/wtns.hpp"

#include <algorithm>
#include <atomic>
#include <string>

#include "io/binfile.hpp"
#include "io/iden3_codec.hpp"
#include "io/io_error.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

// Parses the file; out_for(n) gives the span the n values go to (it may
// throw, e.g. on a count the caller cannot take). Values are decoded in
// place on every core (a 2^27-wire witness is 4.3 GB: one thread would
// take seconds where a prover waits for it); a message is only built for
// the lowest value that fails.
template <class OutFor>
void read_wtns_values(const std::filesystem::path& file, OutFor&& out_for) {
  bin_file_t f(file, "wtns", 1, 2);
  auto h = f.section(1, "header");
  iden3::read_prime(h, iden3::prime_t::r);
  const uint32_t n = h.u32();
  h.expect_end();

  auto d = f.section(2, "witness values");
  if (d.size() != uint64_t(n) * 32) {
    d.fail("length lies: header says " + std::to_string(n) + " values (" + std::to_string(uint64_t(n) * 32) +
           " bytes), section has " + std::to_string(d.size()) + " bytes");
  }
  if (n == 0) d.fail("the witness is empty (wire 0 = 1 is always present)");
  const std::span<fr_t> out = out_for(n);
  const uint8_t* raw = d.bytes(size_t(n) * 32).data();
  std::atomic<uint64_t> bad{UINT64_MAX};
  parallel_for(
      n, 0,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i)
          if (!fr_t::from_bytes_le(raw + 32 * i, out[i])) {
            uint64_t seen = bad.load();
            while (i < seen && !bad.compare_exchange_weak(seen, i)) {
            }
            return;
          }
      },
      size_t(1) << 16);
  if (bad.load() != UINT64_MAX)
    d.fail("value " + std::to_string(bad.load()) + " is not below r (not a canonical Fr value)");
  if (!out[0].is_one()) d.fail("value 0 (the constant wire) is not 1");
}

}  // namespace

std::vector<fr_t> read_wtns(const std::filesystem::path& file) {
  std::vector<fr_t> w;
  read_wtns_values(file, [&](uint32_t n) {
    w.resize(n);
    return std::span<fr_t>(w);
  });
  return w;
}

std::vector<fr_t> read_wtns(const std::filesystem::path& file, uint32_t expected_n_vars) {
  std::vector<fr_t> w;
  read_wtns_values(file, [&](uint32_t n) {
    if (n != expected_n_vars) throw witness_count_error(file, n, expected_n_vars);
    w.resize(n);
    return std::span<fr_t>(w);
  });
  return w;
}

void read_wtns_into(const std::filesystem::path& file, std::span<fr_t> out) {
  read_wtns_values(file, [&](uint32_t n) {
    if (n != out.size()) throw witness_count_error(file, n, out.size());
    return out;
  });
}

io_error witness_count_error(const std::filesystem::path& file, uint64_t n, uint64_t expected) {
  return io_error(file, "witness of wrong count: " + std::to_string(n) + " values, the key's circuit has " +
                            std::to_string(expected) + " wires");
}

void write_wtns(const std::filesystem::path& file, std::span<const fr_t> witness) {
  if (witness.size() > UINT32_MAX) throw io_error(file, "witness too large for the .wtns format");
  bin_writer_t w("wtns", 2, 2);
  w.begin_section(1);
  iden3::write_prime(w, iden3::prime_t::r);
  w.u32(uint32_t(witness.size()));
  w.begin_section(2);
  w.reserve(w.data().size() + 32 * witness.size());
  for (const auto& v : witness) iden3::write_fr(w, v);
  w.end_section();
  w.save(file);
}

}  // namespace starzk
