// fp6_t: F_p6 = F_p2[v]/(v^3 - ξ) with ξ = u + 1, the middle of the BLS12-381
// pairing tower (draft-irtf-cfrg-pairing-friendly-curves). ξ is neither a
// square nor a cube in F_p2, so v^3 - ξ is irreducible.
//
// An element is c0 + c1·v + c2·v^2 with c_i in F_p2. Multiplication by v
// shifts the coefficients and folds v^3 = ξ back:
//   (c0 + c1 v + c2 v^2)·v = ξ c2 + c0 v + c1 v^2.
// The products (fp6.cpp) follow Devegili, Ó hÉigeartaigh, Scott, Dahab,
// "Multiplication and Squaring on Pairing-Friendly Fields" (eprint 2006/471).
#pragma once

#include <span>
#include <string>

#include "ff/fp2.hpp"

namespace starzk {

struct fp6_t {
  fp2_t c0, c1, c2;

  static fp6_t zero() { return {fp2_t::zero(), fp2_t::zero(), fp2_t::zero()}; }
  static fp6_t one() { return {fp2_t::one(), fp2_t::zero(), fp2_t::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }

  friend bool operator==(const fp6_t& a, const fp6_t& b) { return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2; }
  friend bool operator!=(const fp6_t& a, const fp6_t& b) { return !(a == b); }
  friend fp6_t operator+(const fp6_t& a, const fp6_t& b) { return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2}; }
  friend fp6_t operator-(const fp6_t& a, const fp6_t& b) { return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2}; }
  fp6_t operator-() const { return {-c0, -c1, -c2}; }
  friend fp6_t operator*(const fp6_t& a, const fp6_t& b);  // 6 F_p2 mul (Karatsuba)
  fp6_t& operator+=(const fp6_t& b) { return *this = *this + b; }
  fp6_t& operator-=(const fp6_t& b) { return *this = *this - b; }
  fp6_t& operator*=(const fp6_t& b) { return *this = *this * b; }

  fp6_t dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }
  fp6_t sqr() const;      // CH-SQR2: 3 F_p2 mul + 2 F_p2 sqr
  fp6_t inverse() const;  // one F_p2 inversion; inverse of zero is zero
  // × v (the F_p12 non-residue): (ξ c2, c0, c1).
  fp6_t mul_by_nonresidue() const { return {c2.mul_by_nonresidue(), c0, c1}; }
  fp6_t mul_by_fp2(const fp2_t& s) const { return {c0 * s, c1 * s, c2 * s}; }
  // a^(p^k): coefficient-wise Frobenius times v^(p^k - 1) = ξ^((p^k-1)/3)
  // and v^(2(p^k-1)) = ξ^(2(p^k-1)/3) (ff/frobenius.hpp).
  fp6_t frobenius_map(unsigned power) const;

  // × (b0 + b1 v): 5 F_p2 mul. The shape of a line value in F_p12.c0.
  fp6_t mul_by_01(const fp2_t& b0, const fp2_t& b1) const;
  // × (b1 v): 3 F_p2 mul.
  fp6_t mul_by_1(const fp2_t& b1) const;

  fp6_t pow(std::span<const uint64_t> e) const;  // e little-endian limbs
  fp6_t pow(uint64_t e) const { return pow(std::span<const uint64_t>(&e, 1)); }

  template <class URBG>
  static fp6_t random(URBG& g) {
    fp2_t a = fp2_t::random(g);
    fp2_t b = fp2_t::random(g);
    fp2_t c = fp2_t::random(g);
    return {a, b, c};
  }
  std::string to_string() const;
};

static_assert(sizeof(fp6_t) == 288 && std::is_trivially_copyable_v<fp6_t>);

}  // namespace starzk
