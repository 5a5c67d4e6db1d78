// F_p12 operations the pairing relies on: w^2 = v, conjugation as the
// p^6-Frobenius, the sparse line product mul_by_014, Granger–Scott
// cyclotomic squaring, pow, and the Frobenius coefficient table checked
// against direct exponentiation of ξ.
#include <gtest/gtest.h>

#include <random>

#include "ff/ff.hpp"
#include "tower_util.hpp"

namespace starzk {
namespace {

using test::p_pow_minus_1_div;
using test::xi;

// f^((p^6 - 1)(p^2 + 1)): the easy part of the final exponentiation, which
// lands in the cyclotomic subgroup.
fp12_t to_cyclotomic(const fp12_t& f) {
  const fp12_t g = f.conjugate() * f.inverse();  // f^(p^6 - 1)
  return g.frobenius_map(2) * g;                 // g^(p^2 + 1)
}

TEST(Fp12, BasisAndConjugate) {
  std::mt19937_64 rng(41);
  const fp12_t w{fp6_t::zero(), fp6_t::one()};
  const fp12_t v{{fp2_t::zero(), fp2_t::one(), fp2_t::zero()}, fp6_t::zero()};
  EXPECT_EQ(w.sqr(), v);  // w^2 = v
  for (int i = 0; i < 10; ++i) {
    const fp12_t a = fp12_t::random(rng);
    EXPECT_EQ(a.conjugate(), a.frobenius_map(6));
    EXPECT_EQ(a.conjugate().conjugate(), a);
  }
}

TEST(Fp12, MulBy014MatchesFullProduct) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 40; ++i) {
    const fp12_t a = fp12_t::random(rng);
    const fp2_t b0 = fp2_t::random(rng), b1 = fp2_t::random(rng), b4 = fp2_t::random(rng);
    const fp12_t sparse{{b0, b1, fp2_t::zero()}, {fp2_t::zero(), b4, fp2_t::zero()}};
    EXPECT_EQ(a.mul_by_014(b0, b1, b4), a * sparse);
  }
}

TEST(Fp12, CyclotomicSquare) {
  std::mt19937_64 rng(43);
  for (int i = 0; i < 10; ++i) {
    const fp12_t f = fp12_t::random(rng);
    const fp12_t g = to_cyclotomic(f);
    // In the cyclotomic subgroup: g^(p^6 + 1) = 1, so g^-1 = conj(g).
    EXPECT_TRUE((g * g.conjugate()).is_one());
    EXPECT_EQ(g.inverse(), g.conjugate());
    EXPECT_EQ(g.cyclotomic_sqr(), g.sqr());
    EXPECT_EQ(g.cyclotomic_sqr().cyclotomic_sqr(), g.sqr().sqr());
    // Outside the subgroup the formula does not hold (the test can fail).
    EXPECT_NE(f.cyclotomic_sqr(), f.sqr());
  }
}

TEST(Fp12, Pow) {
  std::mt19937_64 rng(44);
  const fp12_t a = fp12_t::random(rng);
  EXPECT_TRUE(a.pow(0).is_one());
  EXPECT_EQ(a.pow(1), a);
  EXPECT_EQ(a.pow(5), a.sqr().sqr() * a);
  const uint64_t e1 = rng() >> 1, e2 = rng() >> 1;
  EXPECT_EQ(a.pow(e1) * a.pow(e2), a.pow(e1 + e2));
  const uint64_t two_limbs[2] = {e1, 3};
  // a^(e1 + 3·2^64) = a^e1 · (a^(2^64))^3
  fp12_t a64 = a;
  for (int i = 0; i < 64; ++i) a64 = a64.sqr();
  EXPECT_EQ(a.pow(std::span<const uint64_t>(two_limbs, 2)), a.pow(e1) * a64.pow(3));
}

TEST(Frobenius, CoefficientsMatchDirectPowers) {
  const frobenius_coeffs_t& t = frobenius_coeffs();
  EXPECT_TRUE(t.w[0].is_one());
  EXPECT_TRUE(t.v[0].is_one());
  for (unsigned k = 1; k <= 3; ++k) {
    const auto e6 = p_pow_minus_1_div(k, 6);
    const auto e3 = p_pow_minus_1_div(k, 3);
    EXPECT_EQ(t.w[k], xi().pow(std::span<const uint64_t>(e6))) << k;
    EXPECT_EQ(t.v[k], xi().pow(std::span<const uint64_t>(e3))) << k;
    EXPECT_EQ(t.v2[k], t.v[k].sqr()) << k;
  }
  // ξ^((p^6-1)/3) = 1 (v is fixed by the p^6-Frobenius) and ξ^((p^6-1)/6) = -1.
  EXPECT_TRUE(t.v[6].is_one());
  EXPECT_EQ(t.w[6], -fp2_t::one());
  // ξ^((p^2-1)/6) lies in F_p (a well-known simplification used by pairing code).
  EXPECT_TRUE(t.w[2].c1.is_zero());
}

}  // namespace
}  // namespace starzk
