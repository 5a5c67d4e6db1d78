// Tests of the pairing's building blocks, each against an independent
// definition: the projective doubling/addition steps against the Jacobian
// group law of ec/, the line coefficients against the geometry (a line must
// vanish at the untwisted points it passes through, and only there), the
// sparse line product against a dense F_p12 product, and the final
// exponentiation (easy part, x-power chain, hard part) against plain
// square-and-multiply with the exponents of pairing_test_util.hpp.
#include <gtest/gtest.h>

#include "pairing_test_util.hpp"

namespace starzk {
namespace {

using test::random_g2;
using test::rng;

fp12_t embed(const fp2_t& a) { return {{a, fp2_t::zero(), fp2_t::zero()}, fp6_t::zero()}; }
const fp12_t& v_elt() {
  static const fp12_t v{{fp2_t::zero(), fp2_t::one(), fp2_t::zero()}, fp6_t::zero()};
  return v;
}
const fp12_t& w_elt() {
  static const fp12_t w{fp6_t::zero(), fp6_t::one()};
  return w;
}

// ψ(x', y') = (x'/w^2, y'/w^3): the twist point as a point of E(F_p12).
struct untwisted_t {
  fp12_t x, y;
};
untwisted_t untwist(const g2_affine_t& q) {
  const fp12_t wi = w_elt().inverse();
  const fp12_t wi2 = wi.sqr();
  return {embed(q.x) * wi2, embed(q.y) * wi2 * wi};
}
// The line l = c0 + cx·X·v + cy·Y·v w at an arbitrary point of E(F_p12).
fp12_t eval_line(const line_t& l, const untwisted_t& p) {
  return embed(l.c0) + embed(l.cx) * p.x * v_elt() + embed(l.cy) * p.y * v_elt() * w_elt();
}

// A projective representative with a random Z, so the formulas see Z != 1.
g2_projective_t random_rep(const g2_affine_t& q) {
  const fp2_t z = fp2_t::random(rng());
  return {q.x * z, q.y * z, z};
}

TEST(PairingLines, UntwistLandsOnTheCurve) {
  const untwisted_t p = untwist(random_g2());
  EXPECT_EQ(p.y.sqr(), p.x.sqr() * p.x + embed(fp2_t{fp_t::from_u64(4), fp_t::zero()}));
}

TEST(PairingLines, DoublingStepMatchesJacobianDoubling) {
  for (int i = 0; i < 4; ++i) {
    const g2_affine_t q = random_g2();
    g2_projective_t t = random_rep(q);
    g2_jacobian_t ref = g2_jacobian_t::from_affine(q);
    for (int k = 0; k < 3; ++k) {  // chained: the output feeds the next step
      doubling_step(t);
      ref = ref.dbl();
      ASSERT_EQ(t.to_affine(), ref.to_affine()) << "round " << i << " step " << k;
    }
  }
}

TEST(PairingLines, AdditionStepMatchesJacobianAddition) {
  for (int i = 0; i < 4; ++i) {
    const g2_affine_t q = random_g2();
    const g2_affine_t r = random_g2();
    g2_projective_t t = random_rep(r);
    addition_step(t, q);
    const g2_jacobian_t ref = g2_jacobian_t::from_affine(r).add_mixed(q);
    EXPECT_EQ(t.to_affine(), ref.to_affine()) << "round " << i;
  }
}

TEST(PairingLines, TangentVanishesAtTAndMinusTwoT) {
  for (int i = 0; i < 3; ++i) {
    const g2_affine_t q = random_g2();
    g2_projective_t t = random_rep(q);
    const line_t l = doubling_step(t);
    const g2_affine_t two_t = t.to_affine();
    EXPECT_TRUE(eval_line(l, untwist(q)).is_zero());
    EXPECT_TRUE(eval_line(l, untwist(-two_t)).is_zero());
    EXPECT_FALSE(eval_line(l, untwist(two_t)).is_zero());  // 2T itself is not on it
    EXPECT_FALSE(eval_line(l, untwist(random_g2())).is_zero());
  }
}

TEST(PairingLines, ChordVanishesAtTQAndMinusSum) {
  for (int i = 0; i < 3; ++i) {
    const g2_affine_t q = random_g2();
    const g2_affine_t r = random_g2();
    g2_projective_t t = random_rep(r);
    const line_t l = addition_step(t, q);
    const g2_affine_t sum = t.to_affine();
    EXPECT_TRUE(eval_line(l, untwist(r)).is_zero());
    EXPECT_TRUE(eval_line(l, untwist(q)).is_zero());
    EXPECT_TRUE(eval_line(l, untwist(-sum)).is_zero());
    EXPECT_FALSE(eval_line(l, untwist(sum)).is_zero());
  }
}

TEST(PairingLines, SparseLineProductMatchesDenseProduct) {
  for (int i = 0; i < 4; ++i) {
    const fp12_t f = fp12_t::random(rng());
    const line_t l{fp2_t::random(rng()), fp2_t::random(rng()), fp2_t::random(rng())};
    const g1_affine_t p = test::random_g1();
    const fp2_t px{p.x, fp_t::zero()}, py{p.y, fp_t::zero()};
    const fp12_t dense = embed(l.c0) + embed(l.cx * px) * v_elt() + embed(l.cy * py) * v_elt() * w_elt();
    EXPECT_EQ(mul_by_line(f, l, p), f * dense);
  }
}

TEST(PairingFinalExp, EasyPartLandsInCyclotomicSubgroup) {
  const fp12_t m = final_exponentiation_easy(fp12_t::random(rng()));
  EXPECT_TRUE((m * m.conjugate()).is_one());              // m^(p^6 + 1) = 1
  EXPECT_EQ(m.frobenius_map(4) * m, m.frobenius_map(2));  // m^(p^4 - p^2 + 1) = 1
  EXPECT_EQ(m.cyclotomic_sqr(), m.sqr());
}

TEST(PairingFinalExp, ExpByXIsPowerByMinusX) {
  const fp12_t m = final_exponentiation_easy(fp12_t::random(rng()));
  const fp12_t mx = cyclotomic_exp_by_x(m);
  EXPECT_EQ(mx.conjugate(), m.pow(ate_loop_count));  // m^|x| = conj(m^x)
  EXPECT_TRUE((mx * m.pow(ate_loop_count)).is_one());
  EXPECT_NE(mx, m.pow(ate_loop_count));
}

TEST(PairingFinalExp, HardPartIsPowerByThreePhi12OverR) {
  const fp12_t m = final_exponentiation_easy(fp12_t::random(rng()));
  EXPECT_EQ(final_exponentiation_hard(m), m.pow(std::span<const uint64_t>(test::hard_part_exponent)));
}

TEST(PairingFinalExp, WholeIsPowerByThreeTimesPTwelveMinusOneOverR) {
  const fp12_t f = fp12_t::random(rng());
  const fp12_t e = final_exponentiation(f);
  EXPECT_EQ(e, f.pow(std::span<const uint64_t>(test::final_exp_exponent)));
  EXPECT_TRUE(e.pow(std::span<const uint64_t>(group_order_limbs)).is_one());  // lands in GT
}

TEST(PairingFinalExp, EdgeValues) {
  EXPECT_TRUE(final_exponentiation(fp12_t::one()).is_one());
  EXPECT_TRUE(final_exponentiation(fp12_t::zero()).is_zero());
  // Elements of F_p6 (and so F_p2, F_p) are killed by the easy part.
  EXPECT_TRUE(final_exponentiation(fp12_t{fp6_t::random(rng()), fp6_t::zero()}).is_one());
  EXPECT_TRUE(final_exponentiation(-fp12_t::one()).is_one());
}

}  // namespace
}  // namespace starzk
