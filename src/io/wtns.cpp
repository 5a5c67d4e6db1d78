// .wtns reader and writer (see wtns.hpp for the format).
#include "io/wtns.hpp"

#include <string>

#include "io/binfile.hpp"
#include "io/iden3_codec.hpp"
#include "io/io_error.hpp"

namespace starzk {

std::vector<fr_t> read_wtns(const std::filesystem::path& file) {
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
  std::vector<fr_t> w;
  w.reserve(n);
  for (uint32_t i = 0; i < n; ++i) w.push_back(iden3::read_fr(d, "value " + std::to_string(i)));
  if (n == 0) d.fail("the witness is empty (wire 0 = 1 is always present)");
  if (!w[0].is_one()) d.fail("value 0 (the constant wire) is not 1");
  return w;
}

std::vector<fr_t> read_wtns(const std::filesystem::path& file, uint32_t expected_n_vars) {
  auto w = read_wtns(file);
  if (w.size() != expected_n_vars) {
    throw io_error(file, "witness of wrong count: " + std::to_string(w.size()) + " values, the circuit has " +
                             std::to_string(expected_n_vars) + " wires");
  }
  return w;
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
