// fp2_t: F_p2 = F_p[u]/(u^2 + 1), the field of G2 coordinates and the bottom
// of the pairing tower F_p2 -> F_p6 -> F_p12 (draft-irtf-cfrg-pairing-
// friendly-curves, BLS12-381: u^2 = -1, then v^3 = u + 1, then w^2 = v).
//
// An element is c0 + c1·u. Since p ≡ 3 (mod 4), -1 is not a square in F_p and
// u^2 + 1 is irreducible. The Frobenius a -> a^p is conjugation
// (u^p = u·(u^2)^((p-1)/2) = u·(-1)^((p-1)/2) = -u, (p-1)/2 odd).
// Hot operations are inline here; sqrt and the string helpers are in fp2.cpp.
// The formulas are written once over the base field type F: fp2_t is
// fp2_over<fp_t>, and the 8-lane G2 subgroup check (ec/subgroup_x8.cpp)
// instantiates them over eight F_p elements per register.
#pragma once

#include <random>
#include <span>
#include <string>

#include "ff/fp.hpp"

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
  friend fp2_over operator+(const fp2_over& a, const fp2_over& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend fp2_over operator-(const fp2_over& a, const fp2_over& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  fp2_over operator-() const { return {-c0, -c1}; }

  // Karatsuba (3M + 5A): with t0 = a0 b0, t1 = a1 b1,
  //   c0 = t0 - t1                       (u^2 = -1)
  //   c1 = (a0 + a1)(b0 + b1) - t0 - t1
  friend fp2_over operator*(const fp2_over& a, const fp2_over& b) {
    const F t0 = a.c0 * b.c0;
    const F t1 = a.c1 * b.c1;
    const F s = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {t0 - t1, s - t0 - t1};
  }
  fp2_over& operator+=(const fp2_over& b) { return *this = *this + b; }
  fp2_over& operator-=(const fp2_over& b) { return *this = *this - b; }
  fp2_over& operator*=(const fp2_over& b) { return *this = *this * b; }

  fp2_over dbl() const { return {c0.dbl(), c1.dbl()}; }
  // Complex squaring (2M): (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u.
  fp2_over sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  fp2_over conjugate() const { return {c0, -c1}; }
  fp2_over mul_by_fp(const F& s) const { return {c0 * s, c1 * s}; }
  // × ξ = (1 + u): (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u. 2A, no M.
  fp2_over mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }
  // a^(p^k): conjugate when k is odd.
  fp2_over frobenius_map(unsigned power) const { return (power & 1) ? conjugate() : *this; }

  // 1/(a0 + a1 u) = (a0 - a1 u)/(a0^2 + a1^2): one F_p inversion, 2S + 2M.
  // The inverse of zero is zero.
  fp2_over inverse() const {
    const F n = (c0.sqr() + c1.sqr()).inverse();
    return {c0 * n, -(c1 * n)};
  }
  // Norm a · a^p = a0^2 + a1^2 in F_p.
  F norm() const { return c0.sqr() + c1.sqr(); }

  fp2_over pow(std::span<const uint64_t> e) const {
    fp2_over r = one();
    for (size_t i = e.size(); i-- > 0;) {
      for (int b = 63; b >= 0; --b) {
        r = r.sqr();
        if ((e[i] >> b) & 1) r *= *this;
      }
    }
    return r;
  }
  fp2_over pow(uint64_t e) const { return pow(std::span<const uint64_t>(&e, 1)); }

  // Square root from two F_p square roots (the norm's, then x0's; p ≡ 3
  // mod 4, u^2 = -1); false when a is not a square in F_p2. Defined in
  // fp2.cpp, which derives it.
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
