// Known answers and algebraic laws of the prime fields fp_t and fr_t: the
// moduli from the BLS12-381 spec, the Montgomery constants, the two-adic
// roots of unity in both conventions (snarkjs 5^t, bellman 7^t), inversion
// (binary Euclid vs Fermat), batch inversion, small-integer constructors.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "ff/ff.hpp"

namespace starzk {
namespace {

template <size_t N>
std::array<uint64_t, N> hex_limbs(std::string_view hex) {
  std::array<uint64_t, N> v{};
  size_t bit = 0;
  for (size_t i = hex.size(); i-- > 2;) {  // skip "0x"
    const char c = hex[i];
    const uint64_t d = c <= '9' ? uint64_t(c - '0') : uint64_t(c - 'a' + 10);
    v[bit / 64] |= d << (bit % 64);
    bit += 4;
  }
  return v;
}

TEST(FfKnownAnswers, Moduli) {
  EXPECT_EQ(fp_t::modulus,
            hex_limbs<6>(
                "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab"));
  EXPECT_EQ(fr_t::modulus, hex_limbs<4>("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"));
  EXPECT_EQ(fp_t::modulus_bits, 381u);
  EXPECT_EQ(fr_t::modulus_bits, 255u);
  EXPECT_EQ(fp_t::n_bytes, 48u);
  EXPECT_EQ(fr_t::n_bytes, 32u);
}

TEST(FfKnownAnswers, MontgomeryConstants) {
  // R = 2^384 mod p, R^2 mod p, -p^-1 mod 2^64 (values as in zkcrypto/blst).
  EXPECT_EQ(fp_t::r1_mod,
            hex_limbs<6>(
                "0x15f65ec3fa80e4935c071a97a256ec6d77ce5853705257455f48985753c758baebf4000bc40c0002760900000002fffd"));
  EXPECT_EQ(fp_t::r2_mod,
            hex_limbs<6>(
                "0x11988fe592cae3aa9a793e85b519952d67eb88a9939d83c08de5476c4c95b6d50a76e6a609d104f1f4df1f341c341746"));
  EXPECT_EQ(fp_t::m_inv, 0x89f3fffcfffcfffdull);
  EXPECT_EQ(fr_t::r1_mod, hex_limbs<4>("0x1824b159acc5056f998c4fefecbc4ff55884b7fa0003480200000001fffffffe"));
  EXPECT_EQ(fr_t::r2_mod, hex_limbs<4>("0x0748d9d99f59ff1105d314967254398f2b6cedcb87925c23c999e990f3f29c6d"));
  EXPECT_EQ(fr_t::m_inv, 0xfffffffeffffffffull);
  // Self-consistency: m·(-m^-1) ≡ -1 mod 2^64.
  EXPECT_EQ(fp_t::modulus[0] * fp_t::m_inv, ~uint64_t(0));
  EXPECT_EQ(fr_t::modulus[0] * fr_t::m_inv, ~uint64_t(0));
  // one() holds R mod m; to_canonical gives 1.
  EXPECT_EQ(fp_t::one().to_canonical()[0], 1u);
  EXPECT_EQ(fr_t::one().mont_limbs(), fr_t::r1_mod);
}

TEST(FfKnownAnswers, TwoAdicity) {
  // r - 1 = 2^32 · odd.
  auto t = fr_t::m_minus_1;
  EXPECT_EQ(t[0] & 0xffffffffull, 0u);
  EXPECT_EQ((t[0] >> 32) & 1, 1u);
  EXPECT_EQ(fr_params::two_adicity, 32u);
}

// ω^(2^k) = 1 and ω^(2^(k-1)) = -1 (primitive), for both conventions.
TEST(FfRootsOfUnity, PrimitiveAndConsistent) {
  for (auto root : {&fr_t::root_of_unity, &fr_t::bellman_root_of_unity}) {
    const fr_t w32 = root(32);
    fr_t x = w32;
    for (int i = 0; i < 31; ++i) x = x.sqr();
    EXPECT_EQ(x, -fr_t::one());     // ω^(2^31) = -1 ≠ 1
    EXPECT_TRUE(x.sqr().is_one());  // ω^(2^32) = 1
    for (unsigned k = 1; k <= 32; ++k) EXPECT_EQ(root(k).sqr(), root(k - 1)) << "k=" << k;
    EXPECT_TRUE(root(0).is_one());
    EXPECT_THROW(root(33), std::invalid_argument);
  }
}

TEST(FfRootsOfUnity, KnownValuesBothConventions) {
  // snarkjs (ffjavascript Fr.w[32] for bls12381): 5^((r-1)/2^32).
  EXPECT_EQ(fr_t::root_of_unity(32).to_hex(), "0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f");
  EXPECT_EQ(fr_t::root_of_unity(3).to_hex(), "0x3f96405d25a31660a733b23a98ca5b22a032824078eaa4fe8dd702cb688bc087");
  // bellman / blstrs / arkworks ROOT_OF_UNITY = 7^((r-1)/2^32).
  EXPECT_EQ(fr_t::bellman_root_of_unity(32).to_hex(),
            "0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
  EXPECT_EQ(fr_t::multiplicative_generator(), fr_t::from_u64(7));
  // They coincide up to k = 2 and differ from k = 3.
  EXPECT_EQ(fr_t::root_of_unity(2), fr_t::bellman_root_of_unity(2));
  EXPECT_NE(fr_t::root_of_unity(3), fr_t::bellman_root_of_unity(3));
  // 5 is the smallest quadratic non-residue (ffjavascript's nqr): 2, 3, 4 are squares.
  EXPECT_EQ(fr_t::from_u64(2).legendre(), 1);
  EXPECT_EQ(fr_t::from_u64(3).legendre(), 1);
  EXPECT_EQ(fr_t::from_u64(5).legendre(), -1);
  EXPECT_EQ(fr_t::from_u64(7).legendre(), -1);
}

template <class T>
class PrimeField : public ::testing::Test {};
using prime_fields = ::testing::Types<fp_t, fr_t>;
TYPED_TEST_SUITE(PrimeField, prime_fields);

TYPED_TEST(PrimeField, SmallIntegers) {
  using T = TypeParam;
  EXPECT_TRUE(T::zero().is_zero());
  EXPECT_TRUE(T::one().is_one());
  EXPECT_FALSE(T::zero().is_one());
  EXPECT_EQ(T::from_u64(2) + T::from_u64(3), T::from_u64(5));
  EXPECT_EQ(T::from_u64(6) * T::from_u64(7), T::from_u64(42));
  EXPECT_EQ(T::from_i64(-1), -T::one());
  EXPECT_EQ(T::from_i64(-5) + T::from_u64(5), T::zero());
  EXPECT_EQ(T::from_i64(INT64_MIN), -(T::from_u64(uint64_t(1) << 63)));
  EXPECT_EQ(T::from_u64(~uint64_t(0)) + T::one(), T::from_u64(uint64_t(1) << 32).sqr());
  EXPECT_EQ(-T::zero(), T::zero());
  EXPECT_EQ(T::from_u64(5).dbl(), T::from_u64(10));
  EXPECT_EQ(T::from_u64(3).pow(5), T::from_u64(243));
  EXPECT_EQ(T::from_u64(3).pow(0), T::one());
  // m - 1 = -1, and (-1)^2 = 1.
  EXPECT_EQ(T::from_canonical(T::m_minus_1), -T::one());
  EXPECT_TRUE(T::from_canonical(T::m_minus_1).sqr().is_one());
  // Fermat: a^(m-1) = 1.
  EXPECT_TRUE(T::from_u64(123456789).pow(std::span<const uint64_t>(T::m_minus_1)).is_one());
}

TYPED_TEST(PrimeField, FieldLawsRandom) {
  using T = TypeParam;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 300; ++i) {
    const T a = T::random(rng), b = T::random(rng), c = T::random(rng);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a + b - b, a);
    EXPECT_EQ(a - b, -(b - a));
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_EQ(a.dbl(), a + a);
    if (!a.is_zero()) {
      EXPECT_TRUE((a * a.inverse()).is_one());
      EXPECT_EQ(a.inverse(), a.inverse_fermat());
    }
    T x = a;
    x += b;
    x *= c;
    x -= a;
    EXPECT_EQ(x, (a + b) * c - a);
  }
}

// The two Montgomery product kernels (portable CIOS, adc chains) agree, on
// random operands and on the largest ones (m-1)·(m-1).
TYPED_TEST(PrimeField, ProductKernelsAgree) {
  using T = TypeParam;
  std::mt19937_64 rng(77);
  const T big = -T::one();
  for (int i = 0; i < 2000; ++i) {
    const T a = i < 2 ? big : T::random(rng);
    const T b = i < 1 ? big : T::random(rng);
    T x, y;
    T::mul_raw_cios(x.l, a.l, b.l);
    T::mul_raw_chains(y.l, a.l, b.l);
    ASSERT_EQ(x, y);
    ASSERT_EQ(x, a * b);
  }
  // constexpr evaluation takes the portable carry path.
  constexpr T c = T::from_u64(6) * T::from_u64(7);
  static_assert(c == T::from_u64(42));
  EXPECT_EQ(c, T::from_u64(42));
}

// The run-time inverse (the optimised binary GCD, ff/bingcd.hpp) against
// the binary extended Euclid, on random elements and on limb patterns that
// stress the 64-bit approximations: inputs y (the Montgomery limbs the
// algorithm sees) of every bit length, around 2^31, 2^33 and 2^64, all
// ones, near m, and alternating bits. Each result is also checked by a
// product.
TYPED_TEST(PrimeField, InverseByBinaryGcdMatchesEuclid) {
  using T = TypeParam;
  using big = limbs::big_t<T::n_limbs>;
  std::vector<big> ys;
  const auto add = [&](big y) {
    if (!limbs::is_zero(y) && limbs::less(y, T::modulus)) ys.push_back(y);
  };
  for (unsigned k = 0; k < T::modulus_bits; ++k) {
    big p{};
    p[k / 64] = uint64_t(1) << (k % 64);
    add(p);                       // 2^k
    add(limbs::sub_small(p, 1));  // 2^k − 1
    add(limbs::add_small(p, 1));  // 2^k + 1
    big below{};
    limbs::sub(below, T::modulus, p);  // m − 2^k
    add(below);
  }
  add(T::m_minus_1), add(T::m_minus_2), add(T::half_m), add(limbs::add_small(T::half_m, 1));
  for (const uint64_t pattern : {0x5555555555555555ull, 0xAAAAAAAAAAAAAAAAull, 0xFFFFFFFFFFFFFFFFull}) {
    big y;
    y.fill(pattern);
    y[T::n_limbs - 1] &= T::top_mask >> 1;
    add(y);
  }
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 20000; ++i) ys.push_back(T::random(rng).mont_limbs());
  for (const big& y : ys) {
    const T a = T::from_mont_limbs(y);
    const T inv = a.inverse();
    ASSERT_EQ(inv, a.inverse_euclid()) << "limbs " << y[0] << " " << y[T::n_limbs - 1];
    ASSERT_TRUE((a * inv).is_one());
  }
}

TYPED_TEST(PrimeField, InverseEdges) {
  using T = TypeParam;
  EXPECT_TRUE(T::zero().inverse().is_zero());
  EXPECT_TRUE(T::one().inverse().is_one());
  EXPECT_EQ((-T::one()).inverse(), -T::one());
  EXPECT_EQ(T::from_u64(2).inverse() * T::from_u64(2), T::one());
  const T m2 = T::from_canonical(T::m_minus_2);
  EXPECT_TRUE((m2 * m2.inverse()).is_one());
}

TYPED_TEST(PrimeField, BatchInverse) {
  using T = TypeParam;
  std::mt19937_64 rng(7);
  std::vector<T> v;
  for (int i = 0; i < 100; ++i) v.push_back(i % 17 == 3 ? T::zero() : T::random(rng));
  v.push_back(T::one());
  v.push_back(T::zero());
  std::vector<T> w = v;
  T::batch_inverse(w);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(w[i], v[i].inverse()) << i;
  std::vector<T> empty;
  T::batch_inverse(empty);  // no-op
  std::vector<T> single{T::from_u64(9)};
  T::batch_inverse(single);
  EXPECT_EQ(single[0] * T::from_u64(9), T::one());
}

TYPED_TEST(PrimeField, RandomIsReducedAndSeeded) {
  using T = TypeParam;
  std::mt19937_64 a(1), b(1);
  std::mt19937 c(1);  // 32-bit generator path
  bool top_used = false;
  for (int i = 0; i < 200; ++i) {
    const T x = T::random(a);
    EXPECT_EQ(x, T::random(b));
    EXPECT_TRUE(limbs::less(x.mont_limbs(), T::modulus));
    EXPECT_TRUE(limbs::less(T::random(c).to_canonical(), T::modulus));
    top_used |= (x.to_canonical()[T::n_limbs - 1] >> (T::modulus_bits % 64 - 2)) != 0;
  }
  EXPECT_TRUE(top_used);  // the high bits are sampled, not masked away
}

TYPED_TEST(PrimeField, LegendreAndLexOrder) {
  using T = TypeParam;
  std::mt19937_64 rng(3);
  EXPECT_EQ(T::zero().legendre(), 0);
  EXPECT_EQ(T::one().legendre(), 1);
  int squares = 0;
  for (int i = 0; i < 64; ++i) {
    const T a = T::random(rng);
    if (a.is_zero()) continue;
    EXPECT_EQ(a.sqr().legendre(), 1);
    squares += a.legendre() == 1;
    // exactly one of a, -a is lexicographically largest
    EXPECT_NE(a.lexicographically_largest(), (-a).lexicographically_largest());
  }
  EXPECT_GT(squares, 10);
  EXPECT_LT(squares, 54);
  EXPECT_FALSE(T::zero().lexicographically_largest());
  EXPECT_FALSE(T::from_canonical(T::half_m).lexicographically_largest());
  EXPECT_TRUE((T::from_canonical(T::half_m) + T::one()).lexicographically_largest());
}

TEST(FpSqrt, RoundTripsAndNonSquares) {
  std::mt19937_64 rng(11);
  fp_t r;
  EXPECT_TRUE(fp_t::zero().sqrt(r));
  EXPECT_TRUE(r.is_zero());
  EXPECT_TRUE(fp_t::from_u64(4).sqrt(r));
  EXPECT_TRUE(r == fp_t::from_u64(2) || r == -fp_t::from_u64(2));
  EXPECT_FALSE((-fp_t::one()).sqrt(r));  // p ≡ 3 mod 4: -1 is not a square
  for (int i = 0; i < 100; ++i) {
    const fp_t a = fp_t::random(rng);
    ASSERT_TRUE(a.sqr().sqrt(r));
    EXPECT_TRUE(r == a || r == -a);
    fp_t s;
    EXPECT_EQ(a.sqrt(s), a.legendre() >= 0);
    if (a.legendre() == 1) {
      EXPECT_EQ(s.sqr(), a);
    }
  }
}

TEST(FfLayout, DeviceCompatibleBytes) {
  // l[0] holds the least significant 64 bits; as uint32_t[12] the device
  // type reads the same bytes (little-endian host).
  const fp_t x = fp_t::from_u64(0x1122334455667788ull);
  uint8_t mont[48];
  x.to_mont_bytes_le(mont);
  EXPECT_EQ(std::memcmp(mont, x.l, 48), 0);
  uint32_t words[12];
  std::memcpy(words, &x, sizeof x);
  EXPECT_EQ(words[0], uint32_t(x.l[0]));
  EXPECT_EQ(words[1], uint32_t(x.l[0] >> 32));
}

}  // namespace
}  // namespace starzk
