// .zkey reader and writer (see zkey.hpp for the format).
#include "io/zkey.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <thread>

#include "io/binfile.hpp"
#include "io/iden3_codec.hpp"
#include "io/io_error.hpp"
#include "io/matrix_view.hpp"

namespace starzk {

namespace {

using iden3::infinity_t;

enum : uint32_t {
  sec_protocol = 1,
  sec_header = 2,
  sec_ic = 3,
  sec_coeffs = 4,
  sec_a = 5,
  sec_b1 = 6,
  sec_b2 = 7,
  sec_c = 8,
  sec_h = 9,
  sec_mpc = 10,
};
constexpr uint32_t protocol_groth16 = 1;
constexpr size_t coeff_bytes = 12 + 32;

// Montgomery factor for section 4. An fr_t holding limbs x has value
// x·R^-1; the file stores the integer v·R². Reading: limbs v·R² times the
// element whose limbs are 1 (value R^-1) gives limbs v·R²·1·R^-1 = v·R,
// i.e. the value v (one Montgomery multiplication). Writing: v times the
// element whose limbs are R² mod r (value R) has value v·R, whose
// Montgomery limbs are v·R², the integer the file wants.
const fr_t& limbs_one() {
  static const fr_t x = fr_t::from_mont_limbs({1, 0, 0, 0});
  return x;
}
const fr_t& value_r() {
  static const fr_t x = fr_t::from_mont_limbs(fr_t::r2_mod);
  return x;
}

// Decodes `count` points of `size` bytes, then checks them on all cores
// (a subgroup check is one short scalar multiplication per point). The first
// bad point, by index, is reported.
template <class Point, bool (*decode)(const uint8_t*, Point&)>
std::vector<Point> read_points(bin_cursor_t& c, uint64_t count, size_t size, infinity_t inf) {
  c.need_elements(count, size, "points");
  if (c.remaining() != count * size) {
    c.fail("length lies: expected " + std::to_string(count) + " points (" + std::to_string(count * size) +
           " bytes), section has " + std::to_string(c.remaining()) + " bytes");
  }
  std::vector<Point> v(count);
  const auto raw = c.bytes(size_t(count * size));
  for (uint64_t i = 0; i < count; ++i) {
    if (!decode(raw.data() + i * size, v[i])) c.fail("point " + std::to_string(i) + ": a coordinate is not below q");
  }
  const unsigned n_threads =
      unsigned(std::clamp<uint64_t>(std::min<uint64_t>(std::thread::hardware_concurrency(), count / 256), 1, 64));
  std::vector<uint64_t> first_bad(n_threads, count);
  auto work = [&](unsigned t) {
    for (uint64_t i = count * t / n_threads; i < count * (t + 1) / n_threads; ++i) {
      if (!iden3::point_problem(v[i], inf).empty()) {
        first_bad[t] = i;
        return;
      }
    }
  };
  if (n_threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < n_threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  const uint64_t bad = *std::min_element(first_bad.begin(), first_bad.end());
  if (bad < count) c.fail("point " + std::to_string(bad) + " " + iden3::point_problem(v[bad], inf));
  return v;
}

std::vector<g1_affine_t> read_g1s(bin_cursor_t& c, uint64_t count, infinity_t inf) {
  return read_points<g1_affine_t, iden3::decode_g1>(c, count, 96, inf);
}
std::vector<g2_affine_t> read_g2s(bin_cursor_t& c, uint64_t count, infinity_t inf) {
  return read_points<g2_affine_t, iden3::decode_g2>(c, count, 192, inf);
}

struct coeff_t {
  uint32_t matrix, row, wire;
  fr_t value;
};

// Section 4 into two CSR matrices (domain_size x n_vars). A stable counting
// sort by row keeps the file's order within each row.
void read_coeffs(bin_cursor_t& c, proving_key_t& k) {
  const uint32_t n = c.u32();
  c.need_elements(n, coeff_bytes, "coefficients");
  if (c.remaining() != uint64_t(n) * coeff_bytes) {
    c.fail("length lies: " + std::to_string(n) + " coefficients need " + std::to_string(uint64_t(n) * coeff_bytes) +
           " bytes, " + std::to_string(c.remaining()) + " remain");
  }
  std::vector<coeff_t> e(n);
  for (uint32_t i = 0; i < n; ++i) {
    const std::string at = "coefficient " + std::to_string(i);
    e[i].matrix = c.u32();
    e[i].row = c.u32();
    e[i].wire = c.u32();
    if (e[i].matrix > 1) c.fail(at + ": matrix id " + std::to_string(e[i].matrix) + " is neither 0 (A) nor 1 (B)");
    if (e[i].row >= k.domain_size) {
      c.fail(at + ": row " + std::to_string(e[i].row) + " out of range (domainSize = " +
             std::to_string(k.domain_size) + ")");
    }
    if (e[i].wire >= k.n_vars) {
      c.fail(at + ": wire index " + std::to_string(e[i].wire) + " out of range (nVars = " +
             std::to_string(k.n_vars) + ")");
    }
    fr_t scaled;
    if (!fr_t::from_mont_bytes_le(c.bytes(32).data(), scaled)) c.fail(at + ": value is not below r");
    e[i].value = scaled * limbs_one();
  }
  for (uint32_t m = 0; m < 2; ++m) {
    sparse_matrix_t& mat = m == 0 ? k.zkey_a : k.zkey_b;
    mat = sparse_matrix_t::empty(k.domain_size, k.n_vars);
    for (const auto& x : e) {
      if (x.matrix == m) ++mat.row_ptr[x.row + 1];
    }
    for (uint64_t r = 0; r < k.domain_size; ++r) mat.row_ptr[r + 1] += mat.row_ptr[r];
    mat.col.resize(mat.row_ptr.back());
    mat.val.resize(mat.row_ptr.back());
    std::vector<uint64_t> next(mat.row_ptr.begin(), mat.row_ptr.end() - 1);
    for (const auto& x : e) {
      if (x.matrix != m) continue;
      const uint64_t at = next[x.row]++;
      mat.col[at] = x.wire;
      mat.val[at] = x.value;
    }
  }
}

}  // namespace

proving_key_t read_zkey(const std::filesystem::path& file) {
  bin_file_t f(file, "zkey", 1, 1);
  proving_key_t k;
  k.convention = h_convention_t::snarkjs_odd_coset;

  auto p = f.section(sec_protocol, "protocol");
  const uint32_t protocol = p.u32();
  p.expect_end();
  if (protocol != protocol_groth16) {
    const char* name = protocol == 2 ? " (plonk)" : protocol == 10 ? " (fflonk)" : "";
    p.fail("not a Groth16 key: protocol " + std::to_string(protocol) + name);
  }

  // ---- header ----
  auto h = f.section(sec_header, "groth16 header");
  iden3::read_prime(h, iden3::prime_t::q);
  iden3::read_prime(h, iden3::prime_t::r);
  k.n_vars = h.u32();
  k.n_public = h.u32();
  const uint32_t domain = h.u32();
  if (k.n_vars == 0 || uint64_t(k.n_public) + 1 > k.n_vars) {
    h.fail("counts inconsistent: nPublic = " + std::to_string(k.n_public) + " with nVars = " +
           std::to_string(k.n_vars));
  }
  if (!std::has_single_bit(domain) || domain < uint64_t(k.n_public) + 1) {
    h.fail("domainSize " + std::to_string(domain) + " is not a power of two holding nPublic + 1 rows");
  }
  k.domain_size = domain;
  k.alpha_g1 = iden3::read_g1(h, "alpha_1", infinity_t::forbidden);
  k.beta_g1 = iden3::read_g1(h, "beta_1", infinity_t::forbidden);
  k.beta_g2 = iden3::read_g2(h, "beta_2", infinity_t::forbidden);
  k.vk.gamma_g2 = iden3::read_g2(h, "gamma_2", infinity_t::forbidden);
  k.delta_g1 = iden3::read_g1(h, "delta_1", infinity_t::forbidden);
  k.delta_g2 = iden3::read_g2(h, "delta_2", infinity_t::forbidden);
  h.expect_end();
  k.vk.alpha_g1 = k.alpha_g1;
  k.vk.beta_g2 = k.beta_g2;
  k.vk.delta_g2 = k.delta_g2;

  // ---- IC and the matrices ----
  auto ic = f.section(sec_ic, "IC");
  k.vk.ic = read_g1s(ic, uint64_t(k.n_public) + 1, infinity_t::forbidden);
  auto co = f.section(sec_coeffs, "coefficients");
  read_coeffs(co, k);

  // ---- queries ----
  auto a = f.section(sec_a, "A query");
  k.a = read_g1s(a, k.n_vars, infinity_t::allowed);
  auto b1 = f.section(sec_b1, "B1 query");
  k.b_g1 = read_g1s(b1, k.n_vars, infinity_t::allowed);
  auto b2 = f.section(sec_b2, "B2 query");
  k.b_g2 = read_g2s(b2, k.n_vars, infinity_t::allowed);
  auto c = f.section(sec_c, "C query");
  k.l = read_g1s(c, uint64_t(k.n_vars) - k.n_public - 1, infinity_t::allowed);
  auto hq = f.section(sec_h, "H query");
  k.h = read_g1s(hq, k.domain_size, infinity_t::forbidden);
  return k;
}

std::vector<uint8_t> read_zkey_transcript(const std::filesystem::path& file) {
  bin_file_t f(file, "zkey", 1, 1);
  auto s = f.section(sec_mpc, "MPC transcript");
  auto b = s.bytes(s.size());
  return {b.begin(), b.end()};
}

void check_zkey_shape(const std::filesystem::path& file, const proving_key_t& k) {
  auto fail = [&](const std::string& p) { throw io_error(file, "cannot write key: " + p); };
  if (k.convention != h_convention_t::snarkjs_odd_coset) {
    fail("a .zkey holds snarkjs_odd_coset keys only (this one uses the bellman H query)");
  }
  if (k.n_vars == 0 || uint64_t(k.n_public) + 1 > k.n_vars) fail("n_public does not fit in n_vars");
  if (!std::has_single_bit(k.domain_size) || k.domain_size > UINT32_MAX) fail("domain_size is not a power of two");
  auto size = [&](size_t got, uint64_t want, const char* what) {
    if (got != want) fail(std::string(what) + " has " + std::to_string(got) + " entries, expected " + std::to_string(want));
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
  w.reserve(4096 + 44 * (k.zkey_a.nnz() + k.zkey_b.nnz()) + 96 * (3ull * k.n_vars + k.h.size()) +
            192ull * k.n_vars + transcript.size());

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
