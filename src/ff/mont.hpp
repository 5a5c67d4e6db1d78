// mont_t<P>: a prime field Z/mZ in Montgomery form, generic over a parameter
// struct P (the modulus as 64-bit limbs plus a few field facts). fp_t (the
// BLS12-381 base field) and fr_t (its scalar field) are instantiations.
//
// Representation: an element a is stored as the N limbs of a·R mod m with
// R = 2^(64N), little-endian limb order, always fully reduced (< m). Equal
// elements therefore have equal limbs, and == is a limb compare. The type is
// an aggregate of one uint64_t[N] (trivially copyable, standard layout,
// alignas(8)), so arrays of it can be copied byte-for-byte to the CUDA device
// types, which hold the same bytes as uint32_t[2N].
//
// Multiplication is CIOS Montgomery multiplication (Koç, Acar, Kaliski,
// "Analyzing and Comparing Montgomery Multiplication Algorithms", IEEE Micro
// 1996) in its "no-carry" form (the gnark-crypto note "Faster Montgomery
// multiplication", 2020): when the top limb of m is below 2^63 − 1, the
// running sum t stays below 2m < 2^(64N) and the extra (N+1)-th word of
// textbook CIOS is never needed. Both BLS12-381 moduli qualify (top limbs
// 0x1a01... and 0x73ed...); a static_assert guards it. Cost: 2N^2 + N
// 64x64->128 multiplications, one conditional subtraction. With GCC on
// x86-64 the same product is computed with its row additions as adc chains
// (mul_raw_chains), which GCC compiles better; on a CPU with BMI2 and ADX it
// is mulx/adcx/adox assembly (mul_raw_mulx, ff/mulx.hpp), chosen at run time;
// tests check all of them agree. Squaring is the same product with a = b.
//
// Inversion is the binary extended Euclidean algorithm (Hankerson, Menezes,
// Vanstone, "Guide to Elliptic Curve Cryptography", Alg. 2.22). It runs in
// variable time: do not feed it secrets where timing is observable.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ff/bingcd.hpp"
#include "ff/limbs.hpp"
#include "ff/mulx.hpp"

namespace starzk {

template <class P>
struct alignas(8) mont_t {
  static constexpr size_t n_limbs = P::n_limbs;
  static constexpr size_t n_bytes = 8 * P::n_limbs;
  using limbs_t = std::array<uint64_t, n_limbs>;

  // ---- constants, all derived from the modulus at compile time ----
  static constexpr limbs_t modulus = P::modulus;
  static constexpr unsigned modulus_bits = limbs::bit_length(modulus);
  static constexpr limbs_t r1_mod = limbs::pow2_mod(64 * n_limbs, modulus);   // R mod m: "one"
  static constexpr limbs_t r2_mod = limbs::pow2_mod(128 * n_limbs, modulus);  // R^2 mod m: to Montgomery
  static constexpr limbs_t r3_mod = limbs::pow2_mod(192 * n_limbs, modulus);  // R^3 mod m: after inversion
  static constexpr uint64_t m_inv = limbs::neg_inv64(modulus[0]);             // -m^-1 mod 2^64
  static constexpr limbs_t m_minus_1 = limbs::sub_small(modulus, 1);
  static constexpr limbs_t m_minus_2 = limbs::sub_small(modulus, 2);
  static constexpr limbs_t half_m = limbs::shr(m_minus_1, 1);  // (m-1)/2
  // Mask of the bits the top limb can use (for rejection sampling).
  static constexpr uint64_t top_mask = modulus_bits % 64 == 0 ? ~uint64_t(0) : (uint64_t(1) << (modulus_bits % 64)) - 1;

  static_assert(modulus[0] & 1, "Montgomery form needs an odd modulus");
  static_assert(modulus[n_limbs - 1] < 0x7FFFFFFFFFFFFFFFull, "no-carry CIOS needs the top limb of m below 2^63 - 1");

  uint64_t l[n_limbs];

  // ---- construction ----
  static constexpr mont_t from_mont_limbs(const limbs_t& v) {
    mont_t r{};
    for (size_t i = 0; i < n_limbs; ++i) r.l[i] = v[i];
    return r;
  }
  constexpr limbs_t mont_limbs() const {
    limbs_t v{};
    for (size_t i = 0; i < n_limbs; ++i) v[i] = l[i];
    return v;
  }
  static constexpr mont_t zero() { return mont_t{}; }
  static constexpr mont_t one() { return from_mont_limbs(r1_mod); }
  static constexpr mont_t from_u64(uint64_t v) {
    limbs_t c{};
    c[0] = v;  // m > 2^64, so v is already reduced
    return from_reduced(c);
  }
  static constexpr mont_t from_i64(int64_t v) {
    if (v >= 0) return from_u64(uint64_t(v));
    return -from_u64(uint64_t(-(v + 1)) + 1);  // |v| without overflow at INT64_MIN
  }
  // Canonical integer value (must be < m) to Montgomery form: a·R = mont(a, R^2).
  static constexpr mont_t from_reduced(const limbs_t& c) {
    mont_t r{};
    mul_raw(r.l, c.data(), r2_mod.data());
    return r;
  }
  static mont_t from_canonical(const limbs_t& c) {
    if (!limbs::less(c, modulus))
      throw std::invalid_argument(std::string(P::name) + "::from_canonical: value >= modulus");
    return from_reduced(c);
  }
  // Montgomery form back to the integer: mont(a·R, 1) = a.
  constexpr limbs_t to_canonical() const {
    limbs_t one_plain{};
    one_plain[0] = 1;
    mont_t r{};
    mul_raw(r.l, l, one_plain.data());
    return r.mont_limbs();
  }

  // ---- byte and string codecs (definitions in ff/mont_codec.hpp) ----
  static bool from_bytes_le(const uint8_t* in, mont_t& out);
  static bool from_bytes_be(const uint8_t* in, mont_t& out);
  void to_bytes_le(uint8_t* out) const;
  void to_bytes_be(uint8_t* out) const;
  // Raw Montgomery bytes (a·R mod m, little-endian), as snarkjs .zkey stores Fq.
  static bool from_mont_bytes_le(const uint8_t* in, mont_t& out);
  void to_mont_bytes_le(uint8_t* out) const;
  static mont_t from_decimal(std::string_view s);
  std::string to_decimal() const;
  // Big-endian hex, optional 0x prefix; to_hex prints "0x" + 2·n_bytes digits.
  static mont_t from_hex(std::string_view s);
  std::string to_hex() const;

  // ---- arithmetic ----
  constexpr bool is_zero() const { return limbs::is_zero(mont_limbs()); }
  constexpr bool is_one() const { return *this == one(); }
  friend constexpr bool operator==(const mont_t& a, const mont_t& b) {
    uint64_t acc = 0;
    for (size_t i = 0; i < n_limbs; ++i) acc |= a.l[i] ^ b.l[i];
    return acc == 0;
  }
  friend constexpr bool operator!=(const mont_t& a, const mont_t& b) { return !(a == b); }

  friend constexpr mont_t operator+(const mont_t& a, const mont_t& b) {
    mont_t r;
    add_raw(r.l, a.l, b.l);
    return r;
  }
  friend constexpr mont_t operator-(const mont_t& a, const mont_t& b) {
    mont_t r;
    sub_raw(r.l, a.l, b.l);
    return r;
  }
  friend constexpr mont_t operator*(const mont_t& a, const mont_t& b) {
    mont_t r;
    mul_raw(r.l, a.l, b.l);
    return r;
  }
  constexpr mont_t operator-() const {
    mont_t r;
    sub_raw(r.l, zero().l, l);
    return r;
  }
  constexpr mont_t& operator+=(const mont_t& b) { return *this = *this + b; }
  constexpr mont_t& operator-=(const mont_t& b) { return *this = *this - b; }
  constexpr mont_t& operator*=(const mont_t& b) { return *this = *this * b; }
  constexpr mont_t dbl() const { return *this + *this; }
  // a/2 mod m: a + m first when a is odd (m is), then one bit right. The
  // Montgomery form halves with the value, (a/2)·R = (a·R)/2 mod m.
  // cuda/field.cuh dev_mont_t::halve is its twin.
  constexpr mont_t halve() const {
    mont_t r{};
    const uint64_t odd = uint64_t(0) - (l[0] & 1);
    unsigned __int128 c = 0;
    for (size_t i = 0; i < n_limbs; ++i) {
      c += static_cast<unsigned __int128>(l[i]) + (modulus[i] & odd);
      r.l[i] = uint64_t(c);
      c >>= 64;
    }
    for (size_t i = 0; i + 1 < n_limbs; ++i) r.l[i] = (r.l[i] >> 1) | (r.l[i + 1] << 63);
    r.l[n_limbs - 1] = (r.l[n_limbs - 1] >> 1) | (uint64_t(c) << 63);
    return r;
  }
  constexpr mont_t sqr() const { return *this * *this; }

  // a^e, e given as little-endian 64-bit limbs (left-to-right square-and-multiply).
  constexpr mont_t pow(std::span<const uint64_t> e) const {
    mont_t r = one();
    for (size_t i = e.size(); i-- > 0;) {
      for (int b = 63; b >= 0; --b) {
        r = r.sqr();
        if ((e[i] >> b) & 1) r *= *this;
      }
    }
    return r;
  }
  constexpr mont_t pow(uint64_t e) const { return pow(std::span<const uint64_t>(&e, 1)); }

  // a^-1: the integer inverse of the Montgomery limbs x = aR, x^-1 =
  // a^-1 R^-1, then mont(x^-1, R^3) = a^-1 R. At run time by the optimised
  // binary GCD (ff/bingcd.hpp), in constant evaluation by the binary
  // extended Euclid. The inverse of zero is defined as zero, so callers can
  // invert without a branch.
  constexpr mont_t inverse() const;
  constexpr mont_t inverse_euclid() const;  // always the binary extended Euclid (inverse's cross-check)
  // Fermat: a^(m-2). Constant sequence of operations; slower; test reference.
  constexpr mont_t inverse_fermat() const { return pow(std::span<const uint64_t>(m_minus_2)); }

  // Montgomery's trick: one inversion and 3(n-1) multiplications for n
  // elements. Zeros are skipped and stay zero.
  static void batch_inverse(std::span<mont_t> v);

  // Uniform element: rejection sampling of canonical values below m.
  template <class URBG>
  static mont_t random(URBG& g);

  // Legendre symbol a^((m-1)/2): 0 for a = 0, 1 for a nonzero square, -1 else.
  int legendre() const {
    mont_t t = pow(std::span<const uint64_t>(half_m));
    if (t.is_zero()) return 0;
    return t.is_one() ? 1 : -1;
  }
  // zcash / IETF rule: canonical value > (m-1)/2.
  bool lexicographically_largest() const { return limbs::less(half_m, to_canonical()); }

  // Square root for m ≡ 3 (mod 4): x = a^((m+1)/4) (then x^2 = a·a^((m-1)/2),
  // which is a exactly when a is a square). Returns false if a is not a square.
  bool sqrt(mont_t& out) const requires(P::modulus[0] % 4 == 3) {
    static constexpr limbs_t e = limbs::shr(limbs::add_small(modulus, 1), 2);  // (m+1)/4
    mont_t x = pow(std::span<const uint64_t>(e));
    if (x.sqr() != *this) return false;
    out = x;
    return true;
  }

  // Roots of unity, for fields with P::two_adicity > 1 (fr_t):
  // root_of_unity(k) = g^((m-1)/2^k) with g = P::root_generator (snarkjs:
  // the smallest quadratic non-residue, 5 for BLS12-381 r);
  // bellman_root_of_unity(k) = h^((m-1)/2^k) with h = P::coset_generator
  // (bellman / arkworks / blstrs GENERATOR, 7). Throws for k > two_adicity.
  static mont_t root_of_unity(unsigned log2n) requires(P::two_adicity > 1) {
    return two_adic_root(P::root_generator, log2n);
  }
  static mont_t bellman_root_of_unity(unsigned log2n) requires(P::two_adicity > 1) {
    return two_adic_root(P::coset_generator, log2n);
  }
  static mont_t multiplicative_generator() requires(P::two_adicity > 1) { return from_u64(P::coset_generator); }

  // ---- limb kernels on raw arrays (the same code the CUDA port mirrors) ----
  // add/sub are a dozen instructions: always inlined (a call costs as much,
  // and the caller's copies of the result would wait on its stores).
  [[gnu::always_inline]] static constexpr void add_raw(uint64_t* r, const uint64_t* a, const uint64_t* b);
  [[gnu::always_inline]] static constexpr void sub_raw(uint64_t* r, const uint64_t* a, const uint64_t* b);
  // mul_raw: the product every operation uses. At compile time, and where
  // ff_path::fast() is off, it is mul_raw_portable (chains on GCC x86-64,
  // CIOS elsewhere; at run time on x86-64 through one out-of-line copy,
  // mul_raw_outlined); at run time with BMI2/ADX it is mul_raw_mulx.
  static constexpr void mul_raw(uint64_t* r, const uint64_t* a, const uint64_t* b);
  static constexpr void mul_raw_portable(uint64_t* r, const uint64_t* a, const uint64_t* b);
  static constexpr void mul_raw_cios(uint64_t* r, const uint64_t* a, const uint64_t* b);
  static constexpr void mul_raw_chains(uint64_t* r, const uint64_t* a, const uint64_t* b);
  // mulx/adcx/adox assembly (ff/mulx.hpp), one out-of-line copy per field.
  // Call only where ff_path::cpu_has_mulx(); elsewhere it is the portable one.
  [[gnu::noinline]] static void mul_raw_mulx(uint64_t* r, const uint64_t* a, const uint64_t* b);
  [[gnu::noinline]] static void mul_raw_outlined(uint64_t* r, const uint64_t* a, const uint64_t* b);
  static constexpr void reduce_once(uint64_t* r, const uint64_t* t);

 private:
  static mont_t two_adic_root(uint64_t g, unsigned log2n);
};

}  // namespace starzk

#include "ff/mont_arith.hpp"
#include "ff/mont_codec.hpp"
