// Multi-limb unsigned integers as std::array<uint64_t, N>, little-endian limb
// order (l[0] is the least significant 64 bits).
//
// These are the small building blocks under the Montgomery fields in
// ff/mont.hpp: compare, add/sub with carry, shifts, and the derivation of the
// Montgomery constants (R mod m, R^2 mod m, R^3 mod m, -m^-1 mod 2^64) from the
// modulus alone, at compile time, so no hand-copied constant can be wrong.
// Everything is constexpr; unsigned __int128 carries the double-width
// products (GCC/Clang extension; CMAKE_CXX_EXTENSIONS is ON).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

// GCC turns the u128 carry idiom into long xor/adc sequences; its
// _addcarry_u64/_subborrow_u64 builtins give clean adc/sbb chains (~30%
// faster Montgomery products with GCC 12). Clang does well with u128 and
// worse with these builtins, so it keeps the portable form.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#include <x86intrin.h>
#define STARZK_FF_X86_CHAINS 1
#else
#define STARZK_FF_X86_CHAINS 0
#endif

namespace starzk::limbs {

using u128 = unsigned __int128;

// a + b + carry (carry 0/1 in and out).
constexpr inline uint64_t addc(uint64_t a, uint64_t b, unsigned char& carry) {
#if STARZK_FF_X86_CHAINS
  if (!std::is_constant_evaluated()) {
    unsigned long long r;
    carry = _addcarry_u64(carry, a, b, &r);
    return r;
  }
#endif
  const u128 s = u128(a) + b + carry;
  carry = (unsigned char)(s >> 64);
  return uint64_t(s);
}

// a - b - borrow (borrow 0/1 in and out).
constexpr inline uint64_t subb(uint64_t a, uint64_t b, unsigned char& borrow) {
#if STARZK_FF_X86_CHAINS
  if (!std::is_constant_evaluated()) {
    unsigned long long r;
    borrow = _subborrow_u64(borrow, a, b, &r);
    return r;
  }
#endif
  const u128 d = u128(a) - b - borrow;
  borrow = (unsigned char)((d >> 64) & 1);
  return uint64_t(d);
}

template <size_t N>
using big_t = std::array<uint64_t, N>;

// a < b as integers.
template <size_t N>
constexpr bool less(const big_t<N>& a, const big_t<N>& b) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i];
  }
  return false;
}

template <size_t N>
constexpr bool is_zero(const big_t<N>& a) {
  uint64_t acc = 0;
  for (size_t i = 0; i < N; ++i) acc |= a[i];
  return acc == 0;
}

// r = a + b; returns the carry out (0 or 1).
template <size_t N>
constexpr uint64_t add(big_t<N>& r, const big_t<N>& a, const big_t<N>& b) {
  unsigned char carry = 0;
  for (size_t i = 0; i < N; ++i) r[i] = addc(a[i], b[i], carry);
  return carry;
}

// r = a - b; returns the borrow out (0 or 1).
template <size_t N>
constexpr uint64_t sub(big_t<N>& r, const big_t<N>& a, const big_t<N>& b) {
  unsigned char borrow = 0;
  for (size_t i = 0; i < N; ++i) r[i] = subb(a[i], b[i], borrow);
  return borrow;
}

// a >> 1 with the bit `top` shifted into the most significant position.
template <size_t N>
constexpr void shr1(big_t<N>& a, uint64_t top = 0) {
  for (size_t i = 0; i + 1 < N; ++i) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
  a[N - 1] = (a[N - 1] >> 1) | (top << 63);
}

// a >> s for 0 <= s < 64.
template <size_t N>
constexpr big_t<N> shr(big_t<N> a, unsigned s) {
  if (s == 0) return a;
  for (size_t i = 0; i + 1 < N; ++i) a[i] = (a[i] >> s) | (a[i + 1] << (64 - s));
  a[N - 1] >>= s;
  return a;
}

// a >> s for any s (whole limbs first, then bits).
template <size_t N>
constexpr big_t<N> shr_any(const big_t<N>& a, unsigned s) {
  big_t<N> r{};
  const unsigned w = s / 64;
  for (size_t i = 0; i + w < N; ++i) r[i] = a[i + w];
  return shr(r, s % 64);
}

template <size_t N>
constexpr big_t<N> add_small(big_t<N> a, uint64_t v) {
  for (size_t i = 0; i < N && v != 0; ++i) {
    u128 s = u128(a[i]) + v;
    a[i] = uint64_t(s);
    v = uint64_t(s >> 64);
  }
  return a;
}

template <size_t N>
constexpr big_t<N> sub_small(big_t<N> a, uint64_t v) {
  for (size_t i = 0; i < N && v != 0; ++i) {
    uint64_t old = a[i];
    a[i] = old - v;
    v = old < v ? 1 : 0;
  }
  return a;
}

// Number of significant bits of a (0 for a = 0).
template <size_t N>
constexpr unsigned bit_length(const big_t<N>& a) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] != 0) return unsigned(64 * i) + unsigned(std::bit_width(a[i]));
  }
  return 0;
}

template <size_t N>
constexpr bool bit(const big_t<N>& a, unsigned i) {
  return (a[i / 64] >> (i % 64)) & 1;
}

// Quotient and remainder of a by a small divisor d (schoolbook, 64-bit digits).
template <size_t N>
constexpr uint64_t div_small(big_t<N>& a, uint64_t d) {
  u128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    u128 cur = (rem << 64) | a[i];
    a[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  return uint64_t(rem);
}

// (2^k) mod m for an odd m with m > 2^(64N-2) is not assumed: we double the
// residue k times, each step x <- 2x mod m (x < m, so 2x < 2m; 2m may carry
// out of N limbs, which the carry bit accounts for).
template <size_t N>
constexpr big_t<N> pow2_mod(unsigned k, const big_t<N>& m) {
  big_t<N> x{};
  x[0] = 1;
  for (unsigned i = 0; i < k; ++i) {
    big_t<N> d{};
    uint64_t carry = add(d, x, x);
    big_t<N> t{};
    uint64_t borrow = sub(t, d, m);
    x = (carry || !borrow) ? t : d;
  }
  return x;
}

// -m^-1 mod 2^64 for odd m0 by Newton iteration on the 2-adic inverse:
// y <- y(2 - m0 y) doubles the number of correct low bits (1 -> 2 -> ... -> 64),
// starting from y = m0, which is correct mod 2^3 for any odd m0.
constexpr uint64_t neg_inv64(uint64_t m0) {
  uint64_t y = m0;
  for (int i = 0; i < 5; ++i) y *= 2 - m0 * y;
  return ~y + 1;
}

}  // namespace starzk::limbs
