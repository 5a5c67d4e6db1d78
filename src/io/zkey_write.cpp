// .zkey writer (see zkey.hpp for the format): sections 1-9 as snarkjs
// writes them, section 10 the transcript given or an empty one.
#include <bit>
#include <cstdint>
#include <string>

#include "io/binfile.hpp"
#include "io/iden3_codec.hpp"
#include "io/io_error.hpp"
#include "io/matrix_view.hpp"
#include "io/zkey.hpp"
#include "io/zkey_layout.hpp"

namespace starzk {

using namespace zkey_layout;

void check_zkey_shape(const std::filesystem::path& file, const proving_key_t& k) {
  auto fail = [&](const std::string& p) { throw io_error(file, "cannot write key: " + p); };
  if (k.convention != root_convention_t::snarkjs) {
    fail("a .zkey holds snarkjs-convention keys only (this one uses the bellman H query)");
  }
  if (k.n_vars == 0 || uint64_t(k.n_public) + 1 > k.n_vars) fail("n_public does not fit in n_vars");
  if (!std::has_single_bit(k.domain_size) || k.domain_size > UINT32_MAX) fail("domain_size is not a power of two");
  auto size = [&](size_t got, uint64_t want, const char* what) {
    if (got != want)
      fail(std::string(what) + " has " + std::to_string(got) + " entries, expected " + std::to_string(want));
  };
  size(k.a.size(), k.n_vars, "a");
  size(k.b_g1.size(), k.n_vars, "b_g1");
  size(k.b_g2.size(), k.n_vars, "b_g2");
  size(k.l.size(), uint64_t(k.n_vars) - k.n_public - 1, "l");
  size(k.h.size(), k.domain_size, "h");
  size(k.vk.ic.size(), uint64_t(k.n_public) + 1, "vk.ic");
  for (const sparse_matrix_t* m : {&k.zkey_a, &k.zkey_b}) {
    if (m->n_rows != k.domain_size || m->n_cols != k.n_vars ||
        !check_matrix_shape(sparse_matrix_view_t::of(*m), "").empty()) {
      fail("zkey_a / zkey_b must be domain_size x n_vars CSR matrices");
    }
    for (uint32_t col : m->col) {
      if (col >= k.n_vars) fail("zkey matrix column out of range");
    }
  }
  if (k.zkey_a.nnz() + k.zkey_b.nnz() > UINT32_MAX) fail("too many matrix coefficients for the format");
}

void write_zkey(const std::filesystem::path& file, const proving_key_t& k, std::span<const uint8_t> transcript) {
  check_zkey_shape(file, k);
  bin_writer_t w("zkey", 1, 10);
  w.reserve(4096 + 44 * (k.zkey_a.nnz() + k.zkey_b.nnz()) + 96 * (3ull * k.n_vars + k.h.size()) + 192ull * k.n_vars +
            transcript.size());

  w.begin_section(sec_protocol);
  w.u32(protocol_groth16);

  w.begin_section(sec_header);
  iden3::write_prime(w, iden3::prime_t::q);
  iden3::write_prime(w, iden3::prime_t::r);
  w.u32(k.n_vars);
  w.u32(k.n_public);
  w.u32(uint32_t(k.domain_size));
  iden3::write_g1(w, k.alpha_g1);
  iden3::write_g1(w, k.beta_g1);
  iden3::write_g2(w, k.beta_g2);
  iden3::write_g2(w, k.vk.gamma_g2);
  iden3::write_g1(w, k.delta_g1);
  iden3::write_g2(w, k.delta_g2);

  w.begin_section(sec_ic);
  for (const auto& p : k.vk.ic) iden3::write_g1(w, p);

  w.begin_section(sec_coeffs);
  w.u32(uint32_t(k.zkey_a.nnz() + k.zkey_b.nnz()));
  for (uint64_t row = 0; row < k.domain_size; ++row) {
    for (uint32_t m = 0; m < 2; ++m) {
      const sparse_matrix_t& mat = m == 0 ? k.zkey_a : k.zkey_b;
      for (uint64_t i = mat.row_ptr[row]; i < mat.row_ptr[row + 1]; ++i) {
        w.u32(m);
        w.u32(uint32_t(row));
        w.u32(mat.col[i]);
        (mat.value(i) * value_r()).to_mont_bytes_le(w.extend(32));  // either value form
      }
    }
  }

  w.begin_section(sec_a);
  for (const auto& p : k.a) iden3::write_g1(w, p);
  w.begin_section(sec_b1);
  for (const auto& p : k.b_g1) iden3::write_g1(w, p);
  w.begin_section(sec_b2);
  for (const auto& p : k.b_g2) iden3::write_g2(w, p);
  w.begin_section(sec_c);
  for (const auto& p : k.l) iden3::write_g1(w, p);
  w.begin_section(sec_h);
  for (const auto& p : k.h) iden3::write_g1(w, p);

  w.begin_section(sec_mpc);
  if (transcript.empty()) {
    w.zeros(64);  // circuit hash (blake2b-512) unknown: zero
    w.u32(0);     // no contributions
  } else {
    w.bytes(transcript);
  }
  w.end_section();
  w.save(file);
}

}  // namespace starzk
