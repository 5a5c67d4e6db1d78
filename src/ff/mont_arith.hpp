// Limb kernels of mont_t<P> (included by ff/mont.hpp; not a public header on
// its own): modular add/sub, the no-carry CIOS Montgomery product, binary
// inversion, batch inversion, sampling and roots of unity.
//
// All inputs are fully reduced (< m) and so are all outputs. Loops run over
// the compile-time limb count and are unrolled by the compiler; the products
// go through unsigned __int128 so GCC/Clang emit mul (or mulx) with adc.
#pragma once

namespace starzk {

// r = a + b mod m. m < 2^(64N-1), so a + b < 2m < 2^(64N): no carry out of
// the top limb. Then subtract m if a + b >= m (branch-free select).
// Cost: 2N add-with-carry.
template <class P>
constexpr void mont_t<P>::add_raw(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  constexpr size_t N = n_limbs;
  uint64_t s[N], d[N];
  unsigned char carry = 0, borrow = 0;
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) s[i] = limbs::addc(a[i], b[i], carry);
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) d[i] = limbs::subb(s[i], modulus[i], borrow);
  // borrow == 1 <=> s < m: keep s.
  const uint64_t keep_s = uint64_t(0) - borrow;
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) r[i] = (s[i] & keep_s) | (d[i] & ~keep_s);
}

// r = a - b mod m: subtract, and add m back when it borrowed.
template <class P>
constexpr void mont_t<P>::sub_raw(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  constexpr size_t N = n_limbs;
  uint64_t d[N];
  unsigned char borrow = 0, carry = 0;
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) d[i] = limbs::subb(a[i], b[i], borrow);
  const uint64_t mask = uint64_t(0) - borrow;
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) r[i] = limbs::addc(d[i], modulus[i] & mask, carry);
}

// Final step of both products: r = t >= m ? t - m : t (t < 2m).
template <class P>
constexpr void mont_t<P>::reduce_once(uint64_t* r, const uint64_t* t) {
  constexpr size_t N = n_limbs;
  uint64_t d[N];
  unsigned char borrow = 0;
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) d[i] = limbs::subb(t[i], modulus[i], borrow);
  const uint64_t keep_t = uint64_t(0) - borrow;
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) r[i] = (t[i] & keep_t) | (d[i] & ~keep_t);
}

// r = a·b·R^-1 mod m, CIOS without the extra carry word (the portable form).
// For each limb b[i] of b (t starts at 0, t < 2m throughout):
//   (A, t[0]) = t[0] + a[0]·b[i]
//   k = t[0] · (-m^-1) mod 2^64            (makes t + k·m divisible by 2^64)
//   (C, _)    = t[0] + k·m[0]              (low word is 0 by choice of k)
//   for j = 1..N-1:
//     (A, t[j])   = t[j] + a[j]·b[i] + A
//     (C, t[j-1]) = t[j] + k·m[j] + C       (shift down one word as we go)
//   t[N-1] = C + A                          (cannot overflow: m[N-1] < 2^63 - 1)
// Then t < 2m; one conditional subtraction makes it < m.
// Each u128 sum is at most (2^64-1)^2 + 2(2^64-1) = 2^128 - 1: no overflow.
template <class P>
constexpr void mont_t<P>::mul_raw_cios(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  using limbs::u128;
  constexpr size_t N = n_limbs;
  uint64_t t[N] = {};
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) {
    const uint64_t bi = b[i];
    u128 p = u128(a[0]) * bi + t[0];
    uint64_t A = uint64_t(p >> 64);
    const uint64_t t0 = uint64_t(p);
    const uint64_t k = t0 * m_inv;
    u128 q = u128(k) * modulus[0] + t0;
    uint64_t C = uint64_t(q >> 64);
#pragma GCC unroll 16
    for (size_t j = 1; j < N; ++j) {
      p = u128(a[j]) * bi + t[j] + A;
      A = uint64_t(p >> 64);
      q = u128(k) * modulus[j] + uint64_t(p) + C;
      C = uint64_t(q >> 64);
      t[j - 1] = uint64_t(q);
    }
    t[N - 1] = C + A;
  }
  reduce_once(r, t);
}

// The same product with the row additions as two straight carry chains,
// which GCC compiles to adc runs (see limbs::addc). Per limb b[i], over an
// (N+1)-word t:
//   t += lo(a·b[i]);  t[1..] += hi(a·b[i])          (2 chains of N adc)
//   k = t[0]·(-m^-1);  t += lo(k·m);  t[1..] += hi(k·m);  t >>= 64
// t + a·b[i] + k·m < 2m + 2^65·m < 2^(64N+64) (m < 2^(64N-1) - 2^(64N-64)),
// so N+1 words hold it, and after the shift t < 2m as in CIOS.
template <class P>
constexpr void mont_t<P>::mul_raw_chains(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  using limbs::u128;
  constexpr size_t N = n_limbs;
  uint64_t t[N + 1] = {};
  uint64_t lo[N], hi[N];
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) {
    unsigned char c = 0;
#pragma GCC unroll 16
    for (size_t j = 0; j < N; ++j) {
      const u128 p = u128(a[j]) * b[i];
      lo[j] = uint64_t(p);
      hi[j] = uint64_t(p >> 64);
    }
#pragma GCC unroll 16
    for (size_t j = 0; j < N; ++j) t[j] = limbs::addc(t[j], lo[j], c);
    t[N] += c;
    c = 0;
#pragma GCC unroll 16
    for (size_t j = 0; j < N; ++j) t[j + 1] = limbs::addc(t[j + 1], hi[j], c);
    const uint64_t k = t[0] * m_inv;
#pragma GCC unroll 16
    for (size_t j = 0; j < N; ++j) {
      const u128 p = u128(k) * modulus[j];
      lo[j] = uint64_t(p);
      hi[j] = uint64_t(p >> 64);
    }
    c = 0;
#pragma GCC unroll 16
    for (size_t j = 0; j < N; ++j) t[j] = limbs::addc(t[j], lo[j], c);
    t[N] += c;
    c = 0;
#pragma GCC unroll 16
    for (size_t j = 0; j < N; ++j) t[j + 1] = limbs::addc(t[j + 1], hi[j], c);
#pragma GCC unroll 16
    for (size_t j = 0; j < N; ++j) t[j] = t[j + 1];  // t[0] was 0: divide by 2^64
    t[N] = 0;
  }
  reduce_once(r, t);
}

template <class P>
constexpr void mont_t<P>::mul_raw_portable(uint64_t* r, const uint64_t* a, const uint64_t* b) {
#if STARZK_FF_X86_CHAINS
  mul_raw_chains(r, a, b);
#else
  mul_raw_cios(r, a, b);
#endif
}

// The assembly rows leave t < 2m; the same reduce_once finishes it.
// (store_pairs: see ff/mulx.hpp.)
template <class P>
void mont_t<P>::mul_raw_mulx(uint64_t* r, const uint64_t* a, const uint64_t* b) {
#if STARZK_FF_MULX
  if constexpr (n_limbs == 4 || n_limbs == 6) {
    uint64_t t[n_limbs], u[n_limbs];
    mulx::mont_rows<n_limbs>(t, a, b, modulus.data(), m_inv);
    reduce_once(u, t);
    mulx::store_pairs<n_limbs>(r, u);
    return;
  }
#endif
  mul_raw_portable(r, a, b);
}

// The portable product as one out-of-line copy per field, for the run-time
// fallback: mul_raw then stays a few instructions (a flag test and a call
// either way), so the compiler inlines it, and the small add_raw / sub_raw
// around it, into every caller.
template <class P>
void mont_t<P>::mul_raw_outlined(uint64_t* r, const uint64_t* a, const uint64_t* b) {
#if STARZK_FF_MULX
  uint64_t u[n_limbs];
  mul_raw_portable(u, a, b);
  mulx::store_pairs<n_limbs>(r, u);
#else
  mul_raw_portable(r, a, b);
#endif
}

// One relaxed load of a flag that never changes in a run (unless a test
// flips it): the branch predicts perfectly.
template <class P>
constexpr void mont_t<P>::mul_raw(uint64_t* r, const uint64_t* a, const uint64_t* b) {
#if STARZK_FF_MULX
  if (!std::is_constant_evaluated()) {
    if (ff_path::fast())
      mul_raw_mulx(r, a, b);
    else
      mul_raw_outlined(r, a, b);
    return;
  }
#endif
  mul_raw_portable(r, a, b);
}

// At run time the optimised binary GCD (ff/bingcd.hpp); in constant
// evaluation, and for zero, inverse_euclid below.
template <class P>
constexpr mont_t<P> mont_t<P>::inverse() const {
  if (std::is_constant_evaluated() || is_zero()) return inverse_euclid();
  const limbs::big_t<n_limbs> xinv = limbs::bingcd_inverse<n_limbs>(mont_limbs(), modulus, m_inv);
  mont_t r{};
  mul_raw(r.l, xinv.data(), r3_mod.data());  // a^-1 R^-1 · R^3 · R^-1 = a^-1 R
  return r;
}

// Binary extended Euclid (Guide to ECC, Alg. 2.22) on x = aR as an
// integer. Invariants: x1·x ≡ u and x2·x ≡ v (mod m); u, v > 0 with
// gcd(u, v) = 1. Halving x1 mod m: x1/2 if even, (x1 + m)/2 if odd (m odd
// makes it even). About 2·log2(m) halvings and log2(m) subtractions in all.
template <class P>
constexpr mont_t<P> mont_t<P>::inverse_euclid() const {
  constexpr size_t N = n_limbs;
  using big = limbs::big_t<N>;
  if (is_zero()) return zero();
  big u = mont_limbs(), v = modulus, x1{}, x2{};
  x1[0] = 1;
  big one_plain{};
  one_plain[0] = 1;
  auto halve_mod = [](big& x) {
    uint64_t carry = 0;
    if (x[0] & 1) carry = limbs::add(x, x, modulus);
    limbs::shr1(x, carry);
  };
  auto sub_mod = [](big& x, const big& y) {
    if (limbs::sub(x, x, y)) limbs::add(x, x, modulus);
  };
  while (u != one_plain && v != one_plain) {
    while ((u[0] & 1) == 0) {
      limbs::shr1(u);
      halve_mod(x1);
    }
    while ((v[0] & 1) == 0) {
      limbs::shr1(v);
      halve_mod(x2);
    }
    if (!limbs::less(u, v)) {
      limbs::sub(u, u, v);
      sub_mod(x1, x2);
    } else {
      limbs::sub(v, v, u);
      sub_mod(x2, x1);
    }
  }
  const big& xinv = (u == one_plain) ? x1 : x2;  // x^-1 = a^-1 R^-1 mod m
  mont_t r{};
  mul_raw(r.l, xinv.data(), r3_mod.data());  // a^-1 R^-1 · R^3 · R^-1 = a^-1 R
  return r;
}

// Montgomery's trick. prefix[i] = product of the nonzero v[0..i]; invert the
// total once; walk back: inv(v[i]) = acc · prefix[i-1], acc <- acc · v[i].
template <class P>
void mont_t<P>::batch_inverse(std::span<mont_t> v) {
  std::vector<mont_t> prefix(v.size());
  mont_t acc = one();
  for (size_t i = 0; i < v.size(); ++i) {
    prefix[i] = acc;  // product of the nonzero elements before i
    if (!v[i].is_zero()) acc *= v[i];
  }
  acc = acc.inverse();
  for (size_t i = v.size(); i-- > 0;) {
    if (v[i].is_zero()) continue;
    const mont_t vi = v[i];
    v[i] = acc * prefix[i];
    acc *= vi;
  }
}

namespace ff_detail {
// 64 uniform bits from any uniform random bit generator. Generators with a
// full 64-bit or 32-bit range (mt19937_64, mt19937, random_device) are used
// directly (low word first) so a seed gives the same values everywhere;
// anything else goes through uniform_int_distribution.
template <class URBG>
uint64_t draw_u64(URBG& g) {
  using res_t = typename URBG::result_type;
  if constexpr (URBG::min() == 0 && uint64_t(URBG::max()) == ~uint64_t(0)) {
    return uint64_t(g());
  } else if constexpr (URBG::min() == 0 && uint64_t(URBG::max()) == 0xFFFFFFFFull) {
    const uint64_t lo = uint64_t(g());
    const uint64_t hi = uint64_t(g());
    return lo | (hi << 32);
  } else {
    (void)sizeof(res_t);
    std::uniform_int_distribution<uint64_t> d;
    return d(g);
  }
}
}  // namespace ff_detail

template <class P>
template <class URBG>
mont_t<P> mont_t<P>::random(URBG& g) {
  limbs_t c{};
  do {
    for (auto& w : c) w = ff_detail::draw_u64(g);
    c[n_limbs - 1] &= top_mask;  // acceptance probability m / 2^bits > 1/2
  } while (!limbs::less(c, modulus));
  return from_reduced(c);
}

template <class P>
mont_t<P> mont_t<P>::two_adic_root(uint64_t g, unsigned log2n) {
  if (log2n > P::two_adicity)
    throw std::invalid_argument(std::string(P::name) + "::root_of_unity: 2^" + std::to_string(log2n) +
                                " exceeds the two-adicity " + std::to_string(P::two_adicity));
  // (m-1)/2^k, k <= two_adicity so the shift is exact.
  const limbs_t e = limbs::shr_any(m_minus_1, log2n);
  return from_u64(g).pow(std::span<const uint64_t>(e));
}

}  // namespace starzk
