// Laws of F_p2 and F_p6 on seeded random elements: associativity,
// distributivity, inverses, squaring, the non-residue multiplications,
// Frobenius against pow by p^k, sparse products against full ones, F_p2
// square roots, and the irreducibility facts the tower rests on.
#include <gtest/gtest.h>

#include <random>

#include "ff/ff.hpp"
#include "tower_util.hpp"

namespace starzk {
namespace {

using test::p_pow;
using test::p_pow_minus_1_div;
using test::xi;

template <class T>
class TowerLaws : public ::testing::Test {};
using tower_fields = ::testing::Types<fp2_t, fp6_t, fp12_t>;
TYPED_TEST_SUITE(TowerLaws, tower_fields);

TYPED_TEST(TowerLaws, RingAndFieldLaws) {
  using T = TypeParam;
  std::mt19937_64 rng(31);
  for (int i = 0; i < 40; ++i) {
    const T a = T::random(rng), b = T::random(rng), c = T::random(rng);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a - b + b, a);
    EXPECT_EQ(-(a - b), b - a);
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_TRUE((a * a.inverse()).is_one());
    EXPECT_EQ(a * T::one(), a);
    EXPECT_TRUE((a * T::zero()).is_zero());
    EXPECT_EQ(a.inverse().inverse(), a);
  }
  EXPECT_TRUE(T::zero().inverse().is_zero());
  EXPECT_TRUE(T::one().inverse().is_one());
  EXPECT_NE(T::one(), T::zero());
}

TYPED_TEST(TowerLaws, FrobeniusIsPowP) {
  using T = TypeParam;
  std::mt19937_64 rng(32);
  const auto p1 = p_pow(1);
  for (int i = 0; i < 3; ++i) {
    const T a = T::random(rng);
    const T ap = a.pow(std::span<const uint64_t>(p1));
    EXPECT_EQ(a.frobenius_map(1), ap);
    EXPECT_EQ(a.frobenius_map(0), a);
    // frobenius_map(k) = frobenius_map(1) applied k times, k = 1..12.
    T x = a;
    for (unsigned k = 1; k <= 12; ++k) {
      x = x.frobenius_map(1);
      EXPECT_EQ(a.frobenius_map(k), x) << "k=" << k;
    }
    EXPECT_EQ(x, a);  // x^(p^12) = x in every subfield of F_p12
  }
  // One independent check at k = 2 with the exponent p^2 itself.
  const T a = T::random(rng);
  EXPECT_EQ(a.frobenius_map(2), a.pow(std::span<const uint64_t>(p_pow(2))));
}

TEST(Fp2, NonResidueAndConjugate) {
  std::mt19937_64 rng(33);
  const fp2_t u{fp_t::zero(), fp_t::one()};
  EXPECT_EQ(u.sqr(), -fp2_t::one());  // u^2 = -1
  for (int i = 0; i < 50; ++i) {
    const fp2_t a = fp2_t::random(rng);
    const fp_t s = fp_t::random(rng);
    EXPECT_EQ(a.mul_by_nonresidue(), a * xi());
    EXPECT_EQ(a.mul_by_fp(s), (a * fp2_t{s, fp_t::zero()}));
    EXPECT_EQ(a.conjugate(), a.frobenius_map(1));
    EXPECT_EQ(a * a.conjugate(), (fp2_t{a.norm(), fp_t::zero()}));
    EXPECT_EQ(a.dbl(), a + a);
  }
  // ξ is neither a square nor a cube in F_p2: v^3 - ξ and w^2 - v are irreducible.
  EXPECT_FALSE(xi().pow(std::span<const uint64_t>(p_pow_minus_1_div(2, 2))).is_one());
  EXPECT_FALSE(xi().pow(std::span<const uint64_t>(p_pow_minus_1_div(2, 3))).is_one());
  // -1 is not a square in F_p (u^2 + 1 irreducible).
  EXPECT_EQ((-fp_t::one()).legendre(), -1);
}

TEST(Fp2, SqrtRoundTrip) {
  std::mt19937_64 rng(34);
  fp2_t r;
  EXPECT_TRUE(fp2_t::zero().sqrt(r));
  EXPECT_TRUE(r.is_zero());
  // -1 = u^2 is a square in F_p2 (a1 = 0, a0 not a square in F_p: x = sqrt(-a0)·u).
  ASSERT_TRUE((-fp2_t::one()).sqrt(r));
  EXPECT_EQ(r.sqr(), -fp2_t::one());
  // p - 1 and u: a1 = 0 with a0 = -1, and a0 = 0 with a1 = 1.
  const fp2_t u{fp_t::zero(), fp_t::one()};
  ASSERT_TRUE(u.sqrt(r));
  EXPECT_EQ(r.sqr(), u);
  int branch[2] = {0, 0};  // t = (a0 + d)/2 a square in F_p, or not
  int non_squares = 0;
  for (int i = 0; i < 60; ++i) {
    const fp2_t a = fp2_t::random(rng);
    ASSERT_TRUE(a.sqr().sqrt(r));
    EXPECT_TRUE(r == a || r == -a);
    fp_t d;
    const fp2_t sq = a.sqr();
    ASSERT_TRUE((sq.c0.sqr() + sq.c1.sqr()).sqrt(d));
    ++branch[(sq.c0 + d).halve().legendre() == 1 ? 0 : 1];
    // Embedded in F_p2 with a non-square a0: the root is on the u side.
    if (a.c0.legendre() == -1) {
      ASSERT_TRUE((fp2_t{a.c0, fp_t::zero()}).sqrt(r));
      EXPECT_TRUE(r.c0.is_zero());
    }
    // Elements of F_p embedded in F_p2 are always squares there.
    const fp2_t e{a.c0, fp_t::zero()};
    ASSERT_TRUE(e.sqrt(r));
    EXPECT_EQ(r.sqr(), e);
    // a is a square in F_p2 iff its norm is a square in F_p.
    const bool is_sq = a.norm().legendre() == 1;
    fp2_t s;
    EXPECT_EQ(a.sqrt(s), is_sq);
    if (is_sq) {
      EXPECT_EQ(s.sqr(), a);
    }
    non_squares += !is_sq;
  }
  EXPECT_GT(non_squares, 5);
  EXPECT_GT(branch[0], 5);
  EXPECT_GT(branch[1], 5);
}

TEST(Fp, HalveTimesTwoIsTheValue) {
  std::mt19937_64 rng(35);
  const fp_t edges[] = {fp_t::zero(), fp_t::one(), -fp_t::one(), fp_t::from_u64(2), -fp_t::from_u64(2)};
  for (const fp_t& a : edges) EXPECT_EQ(a.halve().dbl(), a);
  EXPECT_EQ(fp_t::from_u64(2).halve(), fp_t::one());
  EXPECT_EQ(fp_t::one().halve(), fp_t::from_u64(2).inverse());
  for (int i = 0; i < 200; ++i) {
    const fp_t a = fp_t::random(rng);
    EXPECT_EQ(a.halve().dbl(), a);
    EXPECT_EQ(a.halve(), a * fp_t::from_u64(2).inverse());
  }
  const fr_t b = fr_t::random(rng);
  EXPECT_EQ(b.halve().dbl(), b);
}

TEST(Fp2, LexicographicallyLargest) {
  std::mt19937_64 rng(35);
  EXPECT_FALSE(fp2_t::zero().lexicographically_largest());
  for (int i = 0; i < 50; ++i) {
    const fp2_t a = fp2_t::random(rng);
    EXPECT_NE(a.lexicographically_largest(), (-a).lexicographically_largest());
    EXPECT_EQ(a.lexicographically_largest(), a.c1.lexicographically_largest());
    const fp2_t b{a.c0, fp_t::zero()};  // c1 = 0: decided by c0
    EXPECT_EQ(b.lexicographically_largest(), a.c0.lexicographically_largest());
  }
}

TEST(Fp6, NonResidueAndSparse) {
  std::mt19937_64 rng(36);
  const fp6_t v{fp2_t::zero(), fp2_t::one(), fp2_t::zero()};
  EXPECT_EQ(v.sqr() * v, (fp6_t{xi(), fp2_t::zero(), fp2_t::zero()}));  // v^3 = ξ
  for (int i = 0; i < 40; ++i) {
    const fp6_t a = fp6_t::random(rng);
    const fp2_t b0 = fp2_t::random(rng), b1 = fp2_t::random(rng);
    EXPECT_EQ(a.mul_by_nonresidue(), a * v);
    EXPECT_EQ(a.mul_by_01(b0, b1), (a * fp6_t{b0, b1, fp2_t::zero()}));
    EXPECT_EQ(a.mul_by_1(b1), (a * fp6_t{fp2_t::zero(), b1, fp2_t::zero()}));
    EXPECT_EQ(a.mul_by_fp2(b0), (a * fp6_t{b0, fp2_t::zero(), fp2_t::zero()}));
    EXPECT_EQ(a.dbl(), a + a);
  }
}

}  // namespace
}  // namespace starzk
