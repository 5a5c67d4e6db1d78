// The F_p2 formulas, written once for the host (ff/fp2.hpp, fp2.cpp) and the
// device (cuda/fp2.cuh, cuda/key_check_math.cuh).
//
// F_p2 = F_p[u]/(u^2 + 1): an element is c0 + c1·u, and since p ≡ 3 (mod 4),
// -1 is not a square in F_p, so u^2 + 1 is irreducible. Costs in products
// (M), squarings (S) and additions (A) of the base field F:
//   mul      Karatsuba                                  3M + 5A
//   sqr      complex squaring                           2M + 3A
//   inverse  conj(a) / (a0^2 + a1^2)                     1I + 2S + 2M
//   sqrt     from two square roots in F                 ~2 F exponentiations
//
// Templates over the element type: E has members c0, c1 of one base field
// type F (and a static one() for the power). F needs +, -, *, unary -,
// dbl(), sqr() and is_zero(); the inverse and the square root also take
// inverse(), halve(), ==, zero() and one(). The products that a formula
// makes go through a functor (fp_product by default: F's operator*), so the
// device can make them in line inside one out-of-line Fp2 product
// (cuda/fp2.cuh says why). Under nvcc they are __host__ __device__, so the
// host types (fp2_over<fp_t>, fp2_over over the eight IFMA lanes) and the
// device's dev_fp2_t (32-bit limbs, PTX products) run the same steps; a
// translation unit compiles only the side that calls them.
#pragma once

#include <cstddef>

#if defined(__CUDACC__)
#define STARZK_FF_FN __host__ __device__ __forceinline__
#define STARZK_FF_EXEC_CHECK _Pragma("nv_exec_check_disable")
#else
// Always in line: a member such as fp2_over::operator* then holds the whole
// formula, as if written there (the compiler's own choice of what to put in
// line in the callers stays what it was).
#define STARZK_FF_FN inline __attribute__((always_inline))
#define STARZK_FF_EXEC_CHECK
#endif

namespace starzk::ff {

// The base field's product and inverse, as the formulas take them by
// default.
struct fp_product {
  STARZK_FF_EXEC_CHECK
  template <class F>
  STARZK_FF_FN F operator()(const F& a, const F& b) const {
    return a * b;
  }
};
struct fp_inverse {
  STARZK_FF_EXEC_CHECK
  template <class F>
  STARZK_FF_FN F operator()(const F& a) const {
    return a.inverse();
  }
};

// Additions are coefficient-wise (1A each).
STARZK_FF_EXEC_CHECK
template <class E>
STARZK_FF_FN E fp2_add(const E& a, const E& b) {
  return {a.c0 + b.c0, a.c1 + b.c1};
}
STARZK_FF_EXEC_CHECK
template <class E>
STARZK_FF_FN E fp2_sub(const E& a, const E& b) {
  return {a.c0 - b.c0, a.c1 - b.c1};
}
STARZK_FF_EXEC_CHECK
template <class E>
STARZK_FF_FN E fp2_neg(const E& a) {
  return {-a.c0, -a.c1};
}
STARZK_FF_EXEC_CHECK
template <class E>
STARZK_FF_FN E fp2_dbl(const E& a) {
  return {a.c0.dbl(), a.c1.dbl()};
}

// The Frobenius a -> a^p is conjugation: u^p = u·(u^2)^((p-1)/2) =
// u·(-1)^((p-1)/2) = -u, as (p-1)/2 is odd.
STARZK_FF_EXEC_CHECK
template <class E>
STARZK_FF_FN E fp2_conjugate(const E& a) {
  return {a.c0, -a.c1};
}

// Karatsuba (3M + 5A): with t0 = a0 b0, t1 = a1 b1,
//   c0 = t0 - t1                       (u^2 = -1)
//   c1 = (a0 + a1)(b0 + b1) - t0 - t1
STARZK_FF_EXEC_CHECK
template <class E, class Mul = fp_product>
STARZK_FF_FN E fp2_mul(const E& a, const E& b, Mul mul = {}) {
  const auto t0 = mul(a.c0, b.c0);
  const auto t1 = mul(a.c1, b.c1);
  const auto s = mul(a.c0 + a.c1, b.c0 + b.c1);
  return {t0 - t1, s - t0 - t1};
}

// Complex squaring (2M + 3A): (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u.
STARZK_FF_EXEC_CHECK
template <class E, class Mul = fp_product>
STARZK_FF_FN E fp2_sqr(const E& a, Mul mul = {}) {
  return {mul(a.c0 + a.c1, a.c0 - a.c1), mul(a.c0, a.c1).dbl()};
}

// × s for s in F (2M).
STARZK_FF_EXEC_CHECK
template <class E, class F>
STARZK_FF_FN E fp2_mul_by_fp(const E& a, const F& s) {
  return {a.c0 * s, a.c1 * s};
}

// × ξ = (1 + u), the non-residue of F_p6 over F_p2:
// (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u. 2A, no M.
STARZK_FF_EXEC_CHECK
template <class E>
STARZK_FF_FN E fp2_mul_by_nonresidue(const E& a) {
  return {a.c0 - a.c1, a.c0 + a.c1};
}

// The norm a·a^p = (a0 + a1 u)(a0 - a1 u) = a0^2 + a1^2, in F (2S + 1A).
STARZK_FF_EXEC_CHECK
template <class E>
STARZK_FF_FN auto fp2_norm(const E& a) {
  return a.c0.sqr() + a.c1.sqr();
}

// 1/(a0 + a1 u) = (a0 - a1 u)/(a0^2 + a1^2): one inversion in F (inv: F's
// inverse() by default), 2S + 2M. The inverse of zero is zero (the norm of
// zero is zero, and F's inversions take zero to zero).
STARZK_FF_EXEC_CHECK
template <class E, class Inv = fp_inverse>
STARZK_FF_FN E fp2_inverse(const E& a, Inv inv = {}) {
  const auto n = inv(fp2_norm(a));
  return {a.c0 * n, -(a.c1 * n)};
}

// a^e, e given as n words of type W, least significant first; left to
// right: one sqr per bit, one product per set bit, through E's own sqr and
// operator* (on the device, the out-of-line ones).
STARZK_FF_EXEC_CHECK
template <class E, class W>
STARZK_FF_FN E fp2_pow(const E& a, const W* e, size_t n) {
  E r = E::one();
  for (size_t i = n; i-- > 0;) {
    const W w = e[i];
    for (int b = int(8 * sizeof(W)) - 1; b >= 0; --b) {
      r = r.sqr();
      if ((w >> b) & 1) r = r * a;
    }
  }
  return r;
}

// The square root of a = a0 + a1·u (u^2 = -1, p ≡ 3 mod 4) from two
// exponentiations in F (the "complex method"; two in F_p2 take ~2.4x the
// products):
//   a1 = 0: a0 is a square in F, or -a0 is (-1 is not one): x = sqrt(a0),
//           or x = sqrt(-a0)·u, since u^2 = -1.
//   else:   n = a0^2 + a1^2 is the norm of a, and a is a square in F_p2
//           iff n is one in F: d = sqrt(n). A root x = x0 + x1·u has
//           x0^2 - x1^2 = a0 and 2·x0·x1 = a1, so x0^2 = t solves
//           4t^2 - 4·a0·t - a1^2 = 0: t = (a0 ± d)/2, and the two
//           candidates multiply to -(a1/2)^2, a non-square (-1 is one), so
//           exactly one is a square in F. Take t = (a0 + d)/2 (t != 0)
//           and e = t^((p-3)/4), so e^2·t = t^((p-1)/2) = ±1:
//             e^2·t = 1:  x0 = e·t (x0^2 = e^2·t^2 = t), and
//                         x1 = a1/(2·x0) = a1·e/2 (1/x0 = e, as e·x0 = 1);
//             e^2·t = -1: the square is t' = (a0 - d)/2 = -(a1/2)^2/t, a
//                         root of it x0 = (a1/2)·e (e^2 = -1/t), and
//                         x1 = a1/(2·x0) = 1/e = -e·t.
// Either way x^2 == a is checked at the end, which also settles a = 0.
// sqrt_fp(v, r) sets r to a square root of v in F and says whether there
// is one; pow_p_minus_3_div_4(t) is t^((p-3)/4). False: a has no root, and
// out is left as it was.
STARZK_FF_EXEC_CHECK
template <class E, class SqrtF, class PowF>
STARZK_FF_FN bool fp2_sqrt(const E& a, E& out, SqrtF sqrt_fp, PowF pow_p_minus_3_div_4) {
  using F = decltype(a.c0);
  E x;
  F r;
  if (a.c1.is_zero()) {
    if (sqrt_fp(a.c0, r))
      x = {r, F::zero()};
    else if (sqrt_fp(-a.c0, r))
      x = {F::zero(), r};
    else
      return false;
  } else {
    if (!sqrt_fp(fp2_norm(a), r)) return false;  // r = d
    const F t = (a.c0 + r).halve();
    const F e = pow_p_minus_3_div_4(t);
    const F et = e * t;
    if (e * et == F::one())
      x = {et, (a.c1 * e).halve()};
    else
      x = {a.c1.halve() * e, -et};
  }
  if (x.sqr() != a) return false;
  out = x;
  return true;
}

}  // namespace starzk::ff
