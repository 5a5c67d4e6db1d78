// .zkey reader (see zkey.hpp for the format; the writer: zkey_write.cpp).
#include "io/zkey.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "io/binfile.hpp"
#include "io/iden3_codec.hpp"
#include "io/zkey_layout.hpp"
#include "io/io_error.hpp"
#include "io/matrix_view.hpp"
#include "msm/batch_membership.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

using iden3::infinity_t;

using namespace zkey_layout;

// Throws unless the section holds exactly `count` points of `size` bytes,
// where `count` comes from the header field `field` ("nVars", "domainSize",
// ...), named in the message. Called for every section before anything is
// allocated, so a raised count fails here at once.
void expect_points(bin_cursor_t& c, uint64_t count, size_t size, const std::string& field) {
  if (size != 0 && count <= c.remaining() / size && c.remaining() == count * size) return;
  c.fail("length lies: " + field + " = " + std::to_string(count) + " needs " + std::to_string(count) + " points (" +
         std::to_string(count) + " x " + std::to_string(size) + " bytes), the section has " +
         std::to_string(c.remaining()) + " bytes");
}

// Decodes the section's points into v (sized by the caller, after
// expect_points) and checks them on the curve and against the infinity
// rule (not with decode_check::none), in one parallel pass at memory speed;
// then, with decode_check::full, the subgroup checks (a large section
// tested whole first, msm/batch_membership.hpp) on the points before the
// first failure of the first pass. The first bad point, by index, is
// reported.
template <class Point, bool (*decode)(const uint8_t*, Point&), class V>
void decode_points(bin_cursor_t& c, V& v, size_t size, infinity_t inf, decode_check check) {
  const uint64_t count = v.size();
  const uint8_t* raw = c.bytes(size_t(count * size)).data();
  std::mutex m;
  uint64_t bad = count;
  std::string why;  // with its separator: ": a coordinate ..." or " is not on the curve"
  parallel_for(
      count, 0,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          std::string w;
          if (!decode(raw + i * size, v[i]))
            w = ": a coordinate is not below q";
          else if (const char* cw = check == decode_check::none ? nullptr : iden3::curve_problem(v[i], inf))
            w = std::string(" ") + cw;
          if (!w.empty()) {
            std::lock_guard<std::mutex> lock(m);
            if (i < bad) bad = i, why = w;
            return;
          }
        }
      },
      4096);
  if (check == decode_check::full) {
    if (const auto b = first_outside_subgroup_batched(std::span<const Point>(v).first(bad), 0)) {
      bad = *b;
      why = std::string(" ") + iden3::subgroup_problem;
    }
  }
  if (bad < count) c.fail("point " + std::to_string(bad) + why);
}

// The section's points as v's elements, borrowed from the mapping `keeper`
// holds (see map_points in zkey.hpp), when the section is aligned for them
// and the machine stores limbs as the file does; false (nothing consumed)
// otherwise. The section holds v.size() points (expect_points checked it).
template <class T>
bool borrow_points(bin_cursor_t& c, mappable_vector_t<T>& v, const std::shared_ptr<const bin_file_t>& keeper) {
  if constexpr (std::endian::native != std::endian::little) return false;
  const size_t count = v.size();
  const uint8_t* at = c.bytes(0).data();
  if (reinterpret_cast<uintptr_t>(at) % alignof(T) != 0) return false;
  c.skip(count * sizeof(T));
  v = mappable_vector_t<T>::borrow({reinterpret_cast<const T*>(at), count}, keeper);
  return true;
}

template <class V>
void decode_g1s(bin_cursor_t& c, V& v, infinity_t inf, decode_check check) {
  decode_points<g1_affine_t, iden3::decode_g1>(c, v, g1_snarkjs_size, inf, check);
}
template <class V>
void decode_g2s(bin_cursor_t& c, V& v, infinity_t inf, decode_check check) {
  decode_points<g2_affine_t, iden3::decode_g2>(c, v, g2_snarkjs_size, inf, check);
}

struct coeff_t {
  uint32_t matrix, row, wire;
  fr_t value;
};

// One section 4 entry into `out` (its value as the file holds it, v·R²
// in Montgomery limbs: see with_value): "" when it is fine, else the
// problem.
std::string parse_coeff(const uint8_t* p, const proving_key_t& k, coeff_t& out) {
  out.matrix = load_u32_le(p);
  out.row = load_u32_le(p + 4);
  out.wire = load_u32_le(p + 8);
  if (out.matrix > 1) return "matrix id " + std::to_string(out.matrix) + " is neither 0 (A) nor 1 (B)";
  if (out.row >= k.domain_size)
    return "row " + std::to_string(out.row) + " out of range (domainSize = " + std::to_string(k.domain_size) + ")";
  if (out.wire >= k.n_vars)
    return "wire index " + std::to_string(out.wire) + " out of range (nVars = " + std::to_string(k.n_vars) + ")";
  if (!fr_t::from_mont_bytes_le(p + 12, out.value)) return "value is not below r";
  return "";
}

// The entry's value v from the file's v·R² (one product, zkey_layout.hpp).
fr_t with_value(const coeff_t& c) { return c.value * limbs_one(); }

// Section 4 into two CSR matrices (domain_size x n_vars), in four passes:
//   1. every entry parsed and checked, in parallel (the first bad one is
//      reported);
//   2. the entries of each row counted (row_ptr), one serial pass reading
//      two words per entry;
//   3. each entry's place: the next free slot of its row, in file order
//      (a stable counting sort), serial;
//   4. col and val written at those places, in parallel.
void read_coeffs(bin_cursor_t& c, proving_key_t& k) {
  const uint32_t n = c.u32();
  c.need_elements(n, coeff_bytes, "coefficients");
  if (c.remaining() != uint64_t(n) * coeff_bytes) {
    c.fail("length lies: " + std::to_string(n) + " coefficients need " + std::to_string(uint64_t(n) * coeff_bytes) +
           " bytes, " + std::to_string(c.remaining()) + " remain");
  }
  const uint8_t* raw = c.bytes(size_t(n) * coeff_bytes).data();
  std::mutex mu;
  uint64_t bad = n;
  std::string why;
  parallel_for(
      n, 0,
      [&](size_t begin, size_t end) {
        coeff_t x;
        for (size_t i = begin; i < end; ++i) {
          if (std::string w = parse_coeff(raw + i * coeff_bytes, k, x); !w.empty()) {
            std::lock_guard<std::mutex> lock(mu);
            if (i < bad) bad = i, why = std::move(w);
            return;
          }
        }
      },
      size_t(1) << 14);
  if (bad < n) c.fail("coefficient " + std::to_string(bad) + ": " + why);

  sparse_matrix_t* mats[2] = {&k.zkey_a, &k.zkey_b};
  for (sparse_matrix_t* mat : mats) *mat = sparse_matrix_t::empty(k.domain_size, k.n_vars);
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* p = raw + size_t(i) * coeff_bytes;
    ++mats[load_u32_le(p)]->row_ptr[load_u32_le(p + 4) + 1];
  }
  for (sparse_matrix_t* mat : mats) {
    for (uint64_t r = 0; r < k.domain_size; ++r) mat->row_ptr[r + 1] += mat->row_ptr[r];
  }
  parallel_tasks(4, 4, [&](size_t t) {  // zeroed on four threads, not one after another
    sparse_matrix_t& mat = *mats[t / 2];
    if (t % 2 == 0)
      mat.col.resize(mat.row_ptr.back());
    else
      mat.val.resize(mat.row_ptr.back());
  });
  std::vector<uint64_t> place(n);
  {
    std::vector<uint64_t> next_a(k.zkey_a.row_ptr.begin(), k.zkey_a.row_ptr.end() - 1);
    std::vector<uint64_t> next_b(k.zkey_b.row_ptr.begin(), k.zkey_b.row_ptr.end() - 1);
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t* p = raw + size_t(i) * coeff_bytes;
      place[i] = (load_u32_le(p) == 0 ? next_a : next_b)[load_u32_le(p + 4)]++;
    }
  }
  parallel_for(
      n, 0,
      [&](size_t begin, size_t end) {
        coeff_t x;
        for (size_t i = begin; i < end; ++i) {
          (void)parse_coeff(raw + i * coeff_bytes, k, x);  // checked in pass 1
          sparse_matrix_t& mat = *mats[x.matrix];
          mat.col[place[i]] = x.wire;
          mat.val[place[i]] = with_value(x);
        }
      },
      size_t(1) << 14);
}

}  // namespace

proving_key_t read_zkey(const std::filesystem::path& file) { return read_zkey(file, zkey_read_options_t{}); }

proving_key_t read_zkey(const std::filesystem::path& file, const zkey_read_options_t& options) {
  proving_key_t k;
  read_zkey(file, options, k);
  return k;
}

void read_zkey(const std::filesystem::path& file, const zkey_read_options_t& options, proving_key_t& k) {
  const decode_check ck = options.check;
  k = proving_key_t{};
  // Shared: a key that borrows its queries keeps the mapping alive.
  const auto mapped = std::make_shared<const bin_file_t>(file, "zkey", 1, 1);
  const bin_file_t& f = *mapped;
  auto done = [&](key_query_t q) {
    if (options.on_query) options.on_query(q, k);
  };
  k.convention = root_convention_t::snarkjs;

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
    h.fail("counts inconsistent: nPublic = " + std::to_string(k.n_public) +
           " with nVars = " + std::to_string(k.n_vars));
  }
  if (!std::has_single_bit(domain) || domain < uint64_t(k.n_public) + 1) {
    h.fail("domainSize " + std::to_string(domain) + " is not a power of two holding nPublic + 1 rows");
  }
  k.domain_size = domain;
  k.alpha_g1 = iden3::read_g1(h, "alpha_1", infinity_t::forbidden, ck);
  k.beta_g1 = iden3::read_g1(h, "beta_1", infinity_t::forbidden, ck);
  k.beta_g2 = iden3::read_g2(h, "beta_2", infinity_t::forbidden, ck);
  k.vk.gamma_g2 = iden3::read_g2(h, "gamma_2", infinity_t::forbidden, ck);
  k.delta_g1 = iden3::read_g1(h, "delta_1", infinity_t::forbidden, ck);
  k.delta_g2 = iden3::read_g2(h, "delta_2", infinity_t::forbidden, ck);
  h.expect_end();
  k.vk.alpha_g1 = k.alpha_g1;
  k.vk.beta_g2 = k.beta_g2;
  k.vk.delta_g2 = k.delta_g2;

  // ---- every section's length against the header's counts ----
  // Before any allocation: a raised nVars, nPublic or domainSize must fail
  // here, naming the field, not after gigabytes were reserved for it.
  auto ic = f.section(sec_ic, "IC");
  auto co = f.section(sec_coeffs, "coefficients");
  auto a = f.section(sec_a, "A query");
  auto b1 = f.section(sec_b1, "B1 query");
  auto b2 = f.section(sec_b2, "B2 query");
  auto c = f.section(sec_c, "C query");
  auto hq = f.section(sec_h, "H query");
  const uint64_t n_l = uint64_t(k.n_vars) - k.n_public - 1;
  expect_points(ic, uint64_t(k.n_public) + 1, g1_snarkjs_size, "nPublic + 1");
  expect_points(a, k.n_vars, g1_snarkjs_size, "nVars");
  expect_points(b1, k.n_vars, g1_snarkjs_size, "nVars");
  expect_points(b2, k.n_vars, g2_snarkjs_size, "nVars");
  expect_points(c, n_l, g1_snarkjs_size, "nVars - nPublic - 1");
  expect_points(hq, k.domain_size, g1_snarkjs_size, "domainSize");

  // ---- IC and the matrices ----
  k.vk.ic.resize(uint64_t(k.n_public) + 1);
  decode_g1s(ic, k.vk.ic, infinity_t::forbidden, ck);
  done(key_query_t::ic);
  if (options.vk_only) return;
  read_coeffs(co, k);

  // ---- queries ----
  // The five vectors sized (allocated, not touched: the decoder's threads
  // touch each page as they write it; a borrowed query gives its storage
  // back), then read in file order.
  k.a.resize(k.n_vars);
  k.b_g1.resize(k.n_vars);
  k.b_g2.resize(k.n_vars);
  k.l.resize(n_l);
  k.h.resize(k.domain_size);
  const auto check = [&] { return options.vouched && options.vouched() ? decode_check::none : ck; };
  // A vouched query in an aligned section is borrowed, else decoded.
  const auto read_points = [&](bin_cursor_t& cur, auto& v, infinity_t inf) {
    const decode_check now = check();
    if (options.map_points && now == decode_check::none && borrow_points(cur, v, mapped)) return;
    if constexpr (std::is_same_v<typename std::decay_t<decltype(v)>::value_type, g2_affine_t>)
      decode_g2s(cur, v, inf, now);
    else
      decode_g1s(cur, v, inf, now);
  };
  read_points(a, k.a, infinity_t::allowed);
  done(key_query_t::a);
  read_points(b1, k.b_g1, infinity_t::allowed);
  done(key_query_t::b_g1);
  read_points(b2, k.b_g2, infinity_t::allowed);
  done(key_query_t::b_g2);
  read_points(c, k.l, infinity_t::allowed);
  done(key_query_t::l);
  read_points(hq, k.h, infinity_t::forbidden);
  done(key_query_t::h);
}

std::vector<uint8_t> read_zkey_transcript(const std::filesystem::path& file) {
  bin_file_t f(file, "zkey", 1, 1);
  auto s = f.section(sec_mpc, "MPC transcript");
  auto b = s.bytes(s.size());
  return {b.begin(), b.end()};
}

}  // namespace starzk
