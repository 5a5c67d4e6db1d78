// fp12_t: F_p12 = F_p6[w]/(w^2 - v), the top of the BLS12-381 pairing tower
// (pairing values live here). An element is c0 + c1·w with c_i in F_p6;
// over F_p2 the basis is (1, v, v^2, w, v w, v^2 w), i.e. the coefficients
// c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2 are the slots 0..5.
//
// Sparse product convention (mul_by_014): the M-type twist line value of a
// BLS12-381 Miller loop has only slots 0, 1 and 4 nonzero,
//   l = b0 + b1·v + b4·v·w   ->   fp12_t{{b0, b1, 0}, {0, b4, 0}},
// the same convention as the zkcrypto bls12_381 crate's mul_by_014.
//
// p^6-Frobenius is conjugation (w^(p^6) = -w), and on the cyclotomic
// subgroup (where f^(p^6+1) = 1, e.g. after the easy part of the final
// exponentiation) the inverse is the conjugate and squaring can use the
// Granger–Scott formula (eprint 2009/565), cyclotomic_sqr().
#pragma once

#include <span>
#include <string>

#include "ff/fp6.hpp"

namespace starzk {

struct fp12_t {
  fp6_t c0, c1;

  static fp12_t zero() { return {fp6_t::zero(), fp6_t::zero()}; }
  static fp12_t one() { return {fp6_t::one(), fp6_t::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool is_one() const { return c0.is_one() && c1.is_zero(); }

  friend bool operator==(const fp12_t& a, const fp12_t& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend bool operator!=(const fp12_t& a, const fp12_t& b) { return !(a == b); }
  friend fp12_t operator+(const fp12_t& a, const fp12_t& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend fp12_t operator-(const fp12_t& a, const fp12_t& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  fp12_t operator-() const { return {-c0, -c1}; }
  friend fp12_t operator*(const fp12_t& a, const fp12_t& b);  // 3 F_p6 mul
  fp12_t& operator+=(const fp12_t& b) { return *this = *this + b; }
  fp12_t& operator-=(const fp12_t& b) { return *this = *this - b; }
  fp12_t& operator*=(const fp12_t& b) { return *this = *this * b; }

  fp12_t sqr() const;                             // complex squaring, 2 F_p6 mul
  fp12_t inverse() const;                         // one F_p6 inversion; inverse of zero is zero
  fp12_t conjugate() const { return {c0, -c1}; }  // = frobenius_map(6)
  fp12_t frobenius_map(unsigned power) const;     // a^(p^power)

  // × (b0 + b1 v + b4 v w), see the convention above: 13 F_p2 mul.
  fp12_t mul_by_014(const fp2_t& b0, const fp2_t& b1, const fp2_t& b4) const;
  // Squaring valid only in the cyclotomic subgroup (Granger–Scott): 9 F_p2 sqr.
  fp12_t cyclotomic_sqr() const;

  fp12_t pow(std::span<const uint64_t> e) const;  // e little-endian limbs
  fp12_t pow(uint64_t e) const { return pow(std::span<const uint64_t>(&e, 1)); }

  template <class URBG>
  static fp12_t random(URBG& g) {
    fp6_t a = fp6_t::random(g);
    fp6_t b = fp6_t::random(g);
    return {a, b};
  }
  std::string to_string() const;
};

static_assert(sizeof(fp12_t) == 576 && std::is_trivially_copyable_v<fp12_t>);

}  // namespace starzk
