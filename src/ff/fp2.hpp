// fp2_t: F_p2 = F_p[u]/(u^2 + 1), the field of G2 coordinates and the bottom
// of the pairing tower F_p2 -> F_p6 -> F_p12 (draft-irtf-cfrg-pairing-
// friendly-curves, BLS12-381: u^2 = -1, then v^3 = u + 1, then w^2 = v).
//
// An element is c0 + c1·u. The formulas (Karatsuba product, complex
// squaring, inversion through the norm, the square root, and why each
// holds) are written once for host and device in ff/fp2_formulas.hpp; this
// type names them as members and operators. Hot operations are inline here;
// sqrt and the string helpers are in fp2.cpp. fp2_t is fp2_over<fp_t>, and
// the 8-lane G2 subgroup check (ec/subgroup_x8.cpp) instantiates the same
// formulas over eight F_p elements per register.
#pragma once

#include <random>
#include <span>
#include <string>

#include "ff/fp.hpp"
#include "ff/fp2_formulas.hpp"

namespace starzk {

template <class F>
struct fp2_over {
  F c0, c1;

  static constexpr fp2_over zero() { return {F::zero(), F::zero()}; }
  static constexpr fp2_over one() { return {F::one(), F::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool is_one() const { return c0.is_one() && c1.is_zero(); }

  friend bool operator==(const fp2_over& a, const fp2_over& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend bool operator!=(const fp2_over& a, const fp2_over& b) { return !(a == b); }
  friend fp2_over operator+(const fp2_over& a, const fp2_over& b) { return ff::fp2_add(a, b); }
  friend fp2_over operator-(const fp2_over& a, const fp2_over& b) { return ff::fp2_sub(a, b); }
  fp2_over operator-() const { return ff::fp2_neg(*this); }

  // Karatsuba, 3M + 5A.
  friend fp2_over operator*(const fp2_over& a, const fp2_over& b) { return ff::fp2_mul(a, b); }
  fp2_over& operator+=(const fp2_over& b) { return *this = *this + b; }
  fp2_over& operator-=(const fp2_over& b) { return *this = *this - b; }
  fp2_over& operator*=(const fp2_over& b) { return *this = *this * b; }

  fp2_over dbl() const { return ff::fp2_dbl(*this); }
  // Complex squaring, 2M + 3A.
  fp2_over sqr() const { return ff::fp2_sqr(*this); }
  // The Frobenius a -> a^p.
  fp2_over conjugate() const { return ff::fp2_conjugate(*this); }
  fp2_over mul_by_fp(const F& s) const { return ff::fp2_mul_by_fp(*this, s); }
  // × ξ = (1 + u), 2A.
  fp2_over mul_by_nonresidue() const { return ff::fp2_mul_by_nonresidue(*this); }
  // a^(p^k): conjugate when k is odd.
  fp2_over frobenius_map(unsigned power) const { return (power & 1) ? conjugate() : *this; }

  // One F_p inversion, 2S + 2M; the inverse of zero is zero.
  fp2_over inverse() const { return ff::fp2_inverse(*this); }
  // Norm a · a^p = a0^2 + a1^2 in F_p.
  F norm() const { return ff::fp2_norm(*this); }

  // e as 64-bit words, least significant first.
  fp2_over pow(std::span<const uint64_t> e) const { return ff::fp2_pow(*this, e.data(), e.size()); }
  fp2_over pow(uint64_t e) const { return pow(std::span<const uint64_t>(&e, 1)); }

  // Square root from two F_p square roots (the norm's, then x0's; p ≡ 3
  // mod 4, u^2 = -1); false when a is not a square in F_p2. Defined in
  // fp2.cpp over ff::fp2_sqrt, which derives it.
  bool sqrt(fp2_over& out) const;
  // zcash rule: compare c1; if c1 == 0 compare c0.
  bool lexicographically_largest() const {
    if (!c1.is_zero()) return c1.lexicographically_largest();
    return c0.lexicographically_largest();
  }

  template <class URBG>
  static fp2_over random(URBG& g) {
    F a = F::random(g);
    F b = F::random(g);
    return {a, b};
  }

  // "(c0, c1)" in decimal; for test failure messages.
  std::string to_string() const;
};

using fp2_t = fp2_over<fp_t>;
template <>
bool fp2_t::sqrt(fp2_t& out) const;
template <>
std::string fp2_t::to_string() const;

static_assert(sizeof(fp2_t) == 96 && std::is_trivially_copyable_v<fp2_t> && std::is_standard_layout_v<fp2_t>);

}  // namespace starzk
