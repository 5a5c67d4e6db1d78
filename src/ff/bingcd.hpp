// Modular inversion by the optimised binary GCD (T. Pornin, "Optimized
// Binary GCD for Modular Inversion", 2020): y^-1 mod m for an odd m.
//
// Why: the CPU MSM's affine buckets pay one inversion per batch of
// additions, and the classic binary extended Euclid (ff/mont_arith.hpp)
// walks ~2·log2(m) single-bit steps on full multi-limb numbers. Here the
// steps run on 64-bit approximations of the two numbers, 31 at a time, and
// the full numbers are touched once per 31 steps, by a linear combination.
//
// The algorithm, for 0 < y < m with gcd(y, m) = 1:
//   a = y, b = m, u = 1, v = 0                invariant: a ≡ u·y, b ≡ v·y (mod m)
//   repeat ⌈(2·len(m) − 1) / 31⌉ times:
//     n = max(len(a), len(b), 64)
//     ā = (a mod 2^31) + 2^31·⌊a / 2^(n−33)⌋  (the low 31 and top 33 bits;
//     b̄ likewise                               exact once a, b < 2^64)
//     f0, g0, f1, g1 = 1, 0, 0, 1
//     31 times:  if ā odd: (if ā < b̄: swap ā, b̄ and (f0, g0), (f1, g1))
//                          ā −= b̄, (f0, g0) −= (f1, g1)
//                ā /= 2, (f1, g1) *= 2
//     so that ā·2^31 = f0·ā₀ + g0·b̄₀ and b̄·2^31 = f1·ā₀ + g1·b̄₀, |f|, |g| ≤ 2^31;
//     a, b = (f0·a + g0·b) / 2^31, (f1·a + g1·b) / 2^31   (exact divisions)
//     a negative: a = −a, (f0, g0) = −(f0, g0); b likewise with (f1, g1)
//     u, v = (f0·u + g0·v) / 2^31, (f1·u + g1·v) / 2^31 (mod m)
// The paper shows the approximations never mislead the steps by more than
// the sign fix repairs, and that after the last round a = 0, b = gcd = 1;
// then v·y ≡ 1. The division of u, v by 2^31 mod m is a one-word
// Montgomery step: add q·m with q = −t·m^−1 mod 2^31, then shift.
//
// The inner steps are branch-free (masks, no mispredictions); the function
// is not constant-time (it stops once a = 0, and the sign fixes and the
// reductions branch), which the MSM's data-dependent bucket walk does not
// need either. Tested against the binary extended Euclid on
// random and edge values (tests/ff).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/limbs.hpp"

namespace starzk::limbs {

namespace bingcd_detail {

using i128 = __int128;

// N + 1 limbs in two's complement.
template <size_t N>
using wide_t = std::array<uint64_t, N + 1>;

// t = x·f + y·g (signed), x, y < 2^(64N), |f|, |g| ≤ 2^31.
template <size_t N>
inline wide_t<N> combine(const big_t<N>& x, const big_t<N>& y, int64_t f, int64_t g) {
  wide_t<N> t;
  i128 carry = 0;
  for (size_t i = 0; i < N; ++i) {
    const i128 s = carry + i128(x[i]) * f + i128(y[i]) * g;
    t[i] = uint64_t(s);
    carry = s >> 64;  // arithmetic: C++20
  }
  t[N] = uint64_t(carry);
  return t;
}

template <size_t N>
inline bool negative(const wide_t<N>& t) {
  return int64_t(t[N]) < 0;
}

template <size_t N>
inline void negate(wide_t<N>& t) {
  unsigned char borrow = 0;
  for (size_t i = 0; i <= N; ++i) t[i] = subb(0, t[i], borrow);
}

// t / 2^31 (arithmetic), t a multiple of 2^31 whose quotient fits N limbs
// and a sign.
template <size_t N>
inline wide_t<N> shift31(const wide_t<N>& t) {
  wide_t<N> r;
  for (size_t i = 0; i < N; ++i) r[i] = (t[i] >> 31) | (t[i + 1] << 33);
  r[N] = uint64_t(int64_t(t[N]) >> 31);
  return r;
}

template <size_t N>
inline big_t<N> low(const wide_t<N>& t) {
  big_t<N> r;
  for (size_t i = 0; i < N; ++i) r[i] = t[i];
  return r;
}

// (x·f + y·g) / 2^31 exactly, as |·| with its sign returned.
template <size_t N>
inline bool combine_shift(big_t<N>& out, const big_t<N>& x, const big_t<N>& y, int64_t f, int64_t g) {
  wide_t<N> t = shift31<N>(combine<N>(x, y, f, g));
  const bool neg = negative<N>(t);
  if (neg) negate<N>(t);
  out = low<N>(t);
  return neg;
}

// (x·f + y·g) / 2^31 mod m for x, y < m: a one-word Montgomery division.
template <size_t N>
inline big_t<N> combine_mod(const big_t<N>& x, const big_t<N>& y, int64_t f, int64_t g, const big_t<N>& m,
                            uint64_t m_inv) {
  wide_t<N> t = combine<N>(x, y, f, g);
  const uint64_t q = (t[0] * m_inv) & ((uint64_t(1) << 31) - 1);  // t + q·m ≡ 0 (mod 2^31)
  unsigned char c = 0;
  uint64_t hi = 0;
  for (size_t i = 0; i < N; ++i) {
    const u128 p = u128(q) * m[i] + hi;
    hi = uint64_t(p >> 64);
    t[i] = addc(t[i], uint64_t(p), c);
  }
  t[N] = addc(t[N], hi, c);
  t = shift31<N>(t);  // in (−2m, 3m): |x·f + y·g| < 2^32·m, q·m < 2^31·m
  while (negative<N>(t)) {
    unsigned char k = 0;
    for (size_t i = 0; i < N; ++i) t[i] = addc(t[i], m[i], k);
    t[N] = addc(t[N], 0, k);
  }
  big_t<N> r = low<N>(t);
  while (t[N] != 0 || !less(r, m)) {
    unsigned char k = 0;
    for (size_t i = 0; i < N; ++i) t[i] = subb(t[i], m[i], k);
    t[N] = subb(t[N], 0, k);
    r = low<N>(t);
  }
  return r;
}

// The 64-bit approximation: the low 31 bits and bits [n − 33, n).
template <size_t N>
inline uint64_t approx(const big_t<N>& a, unsigned n) {
  const unsigned pos = n - 33, w = pos / 64, s = pos % 64;
  uint64_t top = a[w] >> s;
  if (s > 31 && w + 1 < N) top |= a[w + 1] << (64 - s);
  return (a[0] & ((uint64_t(1) << 31) - 1)) | ((top & ((uint64_t(1) << 33) - 1)) << 31);
}

}  // namespace bingcd_detail

// y^-1 mod m for odd m, 0 < y < m; m_inv = −m^-1 mod 2^64. Returns 0 when
// gcd(y, m) ≠ 1.
template <size_t N>
big_t<N> bingcd_inverse(const big_t<N>& y, const big_t<N>& m, uint64_t m_inv) {
  using namespace bingcd_detail;
  big_t<N> a = y, b = m, u{}, v{};
  u[0] = 1;
  const unsigned rounds = (2 * bit_length(m) - 1 + 30) / 31;
  for (unsigned round = 0; round < rounds && !is_zero(a); ++round) {  // a = 0: b is the gcd
    unsigned n = bit_length(a);
    if (const unsigned nb = bit_length(b); nb > n) n = nb;
    if (n < 64) n = 64;
    uint64_t ab = approx<N>(a, n), bb = approx<N>(b, n);
    int64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
    for (int j = 0; j < 31; ++j) {
      const uint64_t odd = uint64_t(0) - (ab & 1);
      const uint64_t swap = odd & (uint64_t(0) - uint64_t(ab < bb));
      const uint64_t t = (ab ^ bb) & swap;
      ab ^= t, bb ^= t;
      const int64_t tf = (f0 ^ f1) & int64_t(swap), tg = (g0 ^ g1) & int64_t(swap);
      f0 ^= tf, f1 ^= tf, g0 ^= tg, g1 ^= tg;
      ab -= bb & odd;
      f0 -= f1 & int64_t(odd);
      g0 -= g1 & int64_t(odd);
      ab >>= 1;
      f1 *= 2, g1 *= 2;
    }
    big_t<N> na, nb;
    if (combine_shift<N>(na, a, b, f0, g0)) f0 = -f0, g0 = -g0;
    if (combine_shift<N>(nb, a, b, f1, g1)) f1 = -f1, g1 = -g1;
    a = na, b = nb;
    const big_t<N> nu = combine_mod<N>(u, v, f0, g0, m, m_inv);
    v = combine_mod<N>(u, v, f1, g1, m, m_inv);
    u = nu;
  }
  big_t<N> one{};
  one[0] = 1;
  return b == one ? v : big_t<N>{};
}

}  // namespace starzk::limbs
