// Device math of the key checks (cuda/key_check.cu): the tests of one
// affine point and the zcash decompression of one point, for G1
// (F = dev_fp_t) and G2 (F = dev_fp2_t). Each function is the device twin of
// a host one, step for step, so the device accepts exactly what the host
// accepts and decompresses to the same bytes:
//   on_curve                    ec/affine.hpp    affine_t::is_on_curve
//   sqrt_of (Fp)                ff/mont.hpp      mont_t::sqrt
//   sqrt_of (Fp2)               ff/fp2.cpp       fp2_t::sqrt (one formula:
//                                                ff/fp2_formulas.hpp)
//   lexicographically_largest   ff/mont.hpp, ff/fp2.hpp
//   in_subgroup                 ec/subgroup.cpp  affine_t::is_in_subgroup
//   decompress                  ec/encoding.cpp  decode_compressed
// Point arithmetic is point.cuh's (XYZZ, a = 0); the constants are field.cuh's
// (values and checks: field_constants.hpp, field_constants_check.cpp).
// Costs per point, in Fp products (Fp2: M = 3, S = 2):
//   G1 subgroup: two multiplications by |x| = 0xd201000000010000 (63 dbl of
//     6M + 3S, 5 add of 12M + 2S each) + 3M:          ~1270
//   G2 subgroup: one multiplication by |x| + psi:      ~1730
//   Fp sqrt: 380 S + ~190 M;  Fp2 sqrt: two of those and ~12 M: ~1150.
#pragma once

#include "cuda/key_check.hpp"
#include "cuda/point.cuh"

namespace starzk::gpu::key_check {

// What a scan asks beyond the format (key_check_options_t).
struct rules_t {
  bool subgroup;
  bool allow_infinity;
};

// zcash flag bits of the first byte (ec/encoding.hpp).
constexpr uint32_t flag_compressed = 0x80, flag_infinity = 0x40, flag_sort = 0x20;
constexpr uint32_t flag_bits = flag_compressed | flag_infinity | flag_sort;

// b of the curve whose coordinates have the type of the argument:
// G1 b = 4, G2 b' = 4 + 4u.
SZK_D dev_fp_t curve_b(const dev_fp_t&) { return dev_fp_t::load_const(d_fp_four); }
SZK_D dev_fp2_t curve_b(const dev_fp2_t&) {
  const dev_fp_t four = dev_fp_t::load_const(d_fp_four);
  return {four, four};
}

// y^2 == x^3 + b (1M + 2S over F). P != O.
template <class F>
SZK_D bool on_curve(const dev_affine_t<F>& p) {
  return p.y.sqr() == p.x.sqr() * p.x + curve_b(p.x);
}

// Montgomery form of a canonical integer: a·R^2·R^-1 = a·R.
SZK_D dev_fp_t to_mont(const dev_fp_t& a) { return a.to_mont(); }
SZK_D dev_fp2_t to_mont(const dev_fp2_t& a) { return {a.c0.to_mont(), a.c1.to_mont()}; }

// Fp, p = 3 mod 4: x = a^((p+1)/4), then x^2 = a·a^((p-1)/2), which is a
// exactly when a is a square (a = 0 gives x = 0). False: no root.
SZK_D bool sqrt_of(const dev_fp_t& a, dev_fp_t& out) {
  const dev_fp_t x = a.pow_limbs(d_fp_p_plus_1_div_4);
  if (x.sqr() != a) return false;
  out = x;
  return true;
}

// Fp2 = Fp[u]/(u^2 + 1): the host's formula (ff::fp2_sqrt in
// ff/fp2_formulas.hpp, which derives it) over sqrt_of (Fp) above and
// t^((p-3)/4). False: no root.
struct dev_fp_sqrt {
  SZK_D bool operator()(const dev_fp_t& a, dev_fp_t& r) const { return sqrt_of(a, r); }
};
struct dev_fp_pow_p_minus_3_div_4 {
  SZK_D dev_fp_t operator()(const dev_fp_t& t) const { return t.pow_limbs(d_fp_p_minus_3_div_4); }
};
SZK_D bool sqrt_of(const dev_fp2_t& a, dev_fp2_t& out) {
  return ff::fp2_sqrt(a, out, dev_fp_sqrt{}, dev_fp_pow_p_minus_3_div_4{});
}

// zcash / IETF sort rule. Fp: the canonical value is above (p-1)/2, i.e.
// (p-1)/2 - value borrows. Fp2: c1 decides, c0 when c1 = 0.
SZK_D bool lexicographically_largest(const dev_fp_t& a) {
  const dev_fp_t v = a.from_mont();
  uint32_t borrow = 0;
#pragma unroll
  for (int i = 0; i < 12; ++i) {
    const uint64_t t = uint64_t(d_fp_p_minus_1_div_2[i]) - v.l[i] - borrow;
    borrow = uint32_t(t >> 63);
  }
  return borrow != 0;
}
SZK_D bool lexicographically_largest(const dev_fp2_t& a) {
  return a.c1.is_zero() ? lexicographically_largest(a.c0) : lexicographically_largest(a.c1);
}

static_assert(bls_x_is_negative, "the subgroup tests below take x = -|x|");

// G1 (eprint 2021/1130, ec/subgroup.hpp): P (on the curve, not O) is in the
// subgroup iff phi(P) = [-x^2] P, phi(x, y) = (beta x, y).
// Q = [x^2] P = [|x|]([|x|] P) in XYZZ (X/ZZ, Y/ZZZ), so -Q = (X/ZZ, -Y/ZZZ)
// and the test is X = beta·x·ZZ and Y + y·ZZZ = 0. Q = O fails (phi(P) != O).
SZK_D bool in_subgroup(const dev_g1_affine_t& p) {
  const dev_g1_xyzz_t q = dev_g1_xyzz_t::from_affine(p).mul_u64(bls_x_abs).mul_u64(bls_x_abs);
  if (q.is_infinity()) return false;
  const dev_fp_t beta = dev_fp_t::load_const(d_fp_beta);
  return q.x == (beta * p.x) * q.zz && (q.y + p.y * q.zzz).is_zero();
}

// G2 (eprint 2021/1130): P in the subgroup iff psi(P) = [x] P = -[|x|] P,
// psi(x, y) = (conj(x)·cx, conj(y)·cy). With Q = [|x|] P in XYZZ the test is
// X = psi_x·ZZ and Y + psi_y·ZZZ = 0.
SZK_D bool in_subgroup(const dev_g2_affine_t& p) {
  const dev_g2_xyzz_t q = dev_g2_xyzz_t::from_affine(p).mul_u64(bls_x_abs);
  if (q.is_infinity()) return false;
  const dev_fp2_t cx{dev_fp_t::zero(), dev_fp_t::load_const(d_fp_psi_cx_c1)};
  const dev_fp2_t cy{dev_fp_t::load_const(d_fp_psi_cy_c0), dev_fp_t::load_const(d_fp_psi_cy_c1)};
  const dev_fp2_t psi_x = p.x.conjugate() * cx;
  const dev_fp2_t psi_y = p.y.conjugate() * cy;
  return q.x == psi_x * q.zz && (q.y + psi_y * q.zzz).is_zero();
}

// Checks 1-4 of key_check.hpp on one host-layout point, in that order.
template <class F>
SZK_D point_fault_t check_point(const dev_affine_t<F>& p, const rules_t& rules) {
  if (!p.x.is_canonical() || !p.y.is_canonical()) return point_fault_t::non_canonical;
  if (p.is_infinity()) return rules.allow_infinity ? point_fault_t::none : point_fault_t::infinity;
  if (!on_curve(p)) return point_fault_t::not_on_curve;
  if (rules.subgroup && !in_subgroup(p)) return point_fault_t::not_in_subgroup;
  return point_fault_t::none;
}

// 48 big-endian bytes, read as 12 little-endian words w[0..12), -> the
// integer's 32-bit limbs: limb j is bytes 44-4j .. 47-4j, most significant
// first, i.e. word 11-j byte-swapped. Not reduced, not Montgomery.
SZK_D void load_be(const uint32_t* w, dev_fp_t& a) {
#pragma unroll
  for (int j = 0; j < 12; ++j) a.l[j] = __byte_perm(w[11 - j], 0, 0x0123);
}
// Fp2: c1 first, then c0 (zcash order).
SZK_D void load_be(const uint32_t* w, dev_fp2_t& a) {
  load_be(w, a.c1);
  load_be(w + 12, a.c0);
}

// One zcash-compressed point (sizeof(F) bytes as words, w[0]'s low byte the
// first byte) -> out, as ec/encoding.cpp decode_compressed, then checks 3-4:
//   flags = top 3 bits of byte 0; compression bit clear: bad flags;
//   infinity bit: the sort bit or any other bit set is bad, else O;
//   x (flags cleared) >= p: non-canonical;
//   y = sqrt(x^3 + b), none: not on the curve;
//   y's sort class differs from the sort bit: y = -y.
// w is clobbered (flags cleared). out is O on the early failures.
template <class F>
SZK_D point_fault_t decompress(uint32_t (&w)[sizeof(F) / 4], dev_affine_t<F>& out, const rules_t& rules) {
  const uint32_t flags = w[0] & flag_bits;
  w[0] &= ~flag_bits;
  F x;
  load_be(w, x);
  out = {F::zero(), F::zero()};
  if (!(flags & flag_compressed)) return point_fault_t::bad_flags;
  if (flags & flag_infinity) {
    if ((flags & flag_sort) || !x.is_zero()) return point_fault_t::bad_flags;
    return rules.allow_infinity ? point_fault_t::none : point_fault_t::infinity;
  }
  if (!x.is_canonical()) return point_fault_t::non_canonical;
  x = to_mont(x);
  F y;
  if (!sqrt_of(x.sqr() * x + curve_b(x), y)) return point_fault_t::not_on_curve;
  if (lexicographically_largest(y) != ((flags & flag_sort) != 0)) y = -y;
  out = {x, y};
  if (rules.subgroup && !in_subgroup(out)) return point_fault_t::not_in_subgroup;
  return point_fault_t::none;
}

}  // namespace starzk::gpu::key_check
