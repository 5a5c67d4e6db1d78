// Properties of the optimal ate pairing that any correct implementation must
// have, each able to fail: bilinearity in both arguments, non-degeneracy,
// e(P, -Q) = e(P, Q)^-1, the identities at infinity, order r of the values,
// the multi-pairing equal to the product of single pairings (also with
// prepared G2 points), a Groth16-shaped product check that must hold and
// tampered ones that must not, and clear errors for bad input.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "pairing_test_util.hpp"

namespace starzk {
namespace {

using test::g1_times;
using test::g2_times;
using test::pow_fr;
using test::random_g1;
using test::random_g2;
using test::random_scalar;

const g1_affine_t g1 = g1_affine_t::generator();
const g2_affine_t g2 = g2_affine_t::generator();

TEST(Pairing, NonDegenerate) {
  const fp12_t e = pairing(g1, g2);
  EXPECT_FALSE(e.is_one());
  EXPECT_FALSE(e.is_zero());
}

TEST(Pairing, ValuesHaveOrderR) {
  const fp12_t e = pairing(random_g1(), random_g2());
  EXPECT_TRUE(e.pow(std::span<const uint64_t>(group_order_limbs)).is_one());
  EXPECT_FALSE(e.is_one());
}

TEST(Pairing, BilinearInBothArguments) {
  const fp12_t base = pairing(g1, g2);
  for (int i = 0; i < 2; ++i) {
    const fr_t a = random_scalar(), b = random_scalar();
    const fp12_t eab = pairing(g1_times(a), g2_times(b));
    EXPECT_EQ(eab, pow_fr(base, a * b)) << "round " << i;
    EXPECT_NE(eab, pow_fr(base, a + b));
    // Moving the scalar across: e(aP, Q) = e(P, aQ).
    const g1_affine_t p = random_g1();
    const g2_affine_t q = random_g2();
    EXPECT_EQ(pairing(mul(p, a).to_affine(), q), pairing(p, mul(q, a).to_affine()));
  }
}

TEST(Pairing, AdditiveInEachArgument) {
  const g1_affine_t p1 = random_g1(), p2 = random_g1();
  const g2_affine_t q = random_g2();
  const g1_affine_t sum = g1_jacobian_t::from_affine(p1).add_mixed(p2).to_affine();
  EXPECT_EQ(pairing(sum, q), pairing(p1, q) * pairing(p2, q));
}

TEST(Pairing, NegationInverts) {
  const g1_affine_t p = random_g1();
  const g2_affine_t q = random_g2();
  const fp12_t e = pairing(p, q);
  EXPECT_TRUE((pairing(p, -q) * e).is_one());
  EXPECT_TRUE((pairing(-p, q) * e).is_one());
  EXPECT_EQ(pairing(-p, -q), e);
  EXPECT_EQ(pairing(p, -q), e.conjugate());  // GT is unitary: inverse = conjugate
}

TEST(Pairing, InfinityGivesOne) {
  EXPECT_TRUE(pairing(g1_affine_t::infinity(), random_g2()).is_one());
  EXPECT_TRUE(pairing(random_g1(), g2_affine_t::infinity()).is_one());
  EXPECT_TRUE(pairing(g1_affine_t::infinity(), g2_affine_t::infinity()).is_one());
  EXPECT_TRUE(miller_loop(g1_affine_t::infinity(), g2).is_one());
  // [r] P = O through the scalar path: e([r-1]P, Q) · e(P, Q) = 1.
  const fr_t minus_one = -fr_t::one();
  EXPECT_TRUE((pairing(g1_times(minus_one), g2) * pairing(g1, g2)).is_one());
}

TEST(MultiPairing, EqualsProductOfSinglePairings) {
  std::vector<g1_affine_t> ps;
  std::vector<g2_affine_t> qs;
  fp12_t product = fp12_t::one();
  for (int i = 0; i < 4; ++i) {
    ps.push_back(random_g1());
    qs.push_back(random_g2());
    product *= pairing(ps.back(), qs.back());
  }
  EXPECT_EQ(multi_pairing(ps, qs), product);
  // A pair with an infinity contributes 1 and does not disturb the others.
  ps.push_back(g1_affine_t::infinity());
  qs.push_back(random_g2());
  ps.push_back(random_g1());
  qs.push_back(g2_affine_t::infinity());
  EXPECT_EQ(multi_pairing(ps, qs), product);
  // Prepared G2 points give the same value.
  std::vector<g2_prepared_t> prepared;
  for (const g2_affine_t& q : qs) prepared.push_back(g2_prepared_t::prepare(q));
  EXPECT_EQ(multi_pairing(std::span<const g1_affine_t>(ps), std::span<const g2_prepared_t>(prepared)), product);
  EXPECT_EQ(prepared[0].lines.size(), 68u);
  EXPECT_TRUE(prepared.back().infinity);
  // Dropping one pair changes the value.
  EXPECT_NE(multi_pairing(std::span(ps).subspan(1), std::span(qs).subspan(1)), product);
}

TEST(MultiPairing, EdgeSizes) {
  EXPECT_TRUE(multi_pairing({}, std::span<const g2_affine_t>()).is_one());
  EXPECT_TRUE(pairing_product_is_one({}, std::span<const g2_affine_t>()));
  const g1_affine_t p = random_g1();
  const g2_affine_t q = random_g2();
  EXPECT_EQ(multi_pairing(std::span(&p, 1), std::span(&q, 1)), pairing(p, q));
}

// Groth16 verification shape (docs/prover.md): a "proof" built from scalars so
// that a·b = α·β + ic·γ + c·δ (mod r), ic = ic0 + x1·ic1 + x2·ic2.
struct groth16_case_t {
  std::vector<g1_affine_t> ps;  // -A, α, IC, C
  std::vector<g2_affine_t> qs;  //  B, β, γ, δ
};
groth16_case_t make_groth16_case(const fr_t& x1, const fr_t& x2) {
  const fr_t a = random_scalar(), b = random_scalar(), alpha = random_scalar(), beta = random_scalar();
  const fr_t gamma = random_scalar(), delta = random_scalar();
  const fr_t ic0 = random_scalar(), ic1 = random_scalar(), ic2 = random_scalar();
  const fr_t ic = ic0 + x1 * ic1 + x2 * ic2;
  const fr_t c = (a * b - alpha * beta - ic * gamma) * delta.inverse();
  // IC assembled as a point sum, the way a verifier does.
  const g1_jacobian_t ic_pt =
      g1_jacobian_t::from_affine(g1_times(ic0)).add(mul(g1_times(ic1), x1)).add(mul(g1_times(ic2), x2));
  return {{-g1_times(a), g1_times(alpha), ic_pt.to_affine(), g1_times(c)},
          {g2_times(b), g2_times(beta), g2_times(gamma), g2_times(delta)}};
}

TEST(MultiPairing, Groth16ShapedCheckAcceptsAndRejects) {
  const fr_t x1 = random_scalar(), x2 = random_scalar();
  groth16_case_t ok = make_groth16_case(x1, x2);
  EXPECT_TRUE(pairing_product_is_one(ok.ps, ok.qs));

  groth16_case_t bad_c = ok;  // C + G1
  bad_c.ps[3] = g1_jacobian_t::from_affine(ok.ps[3]).add_mixed(g1).to_affine();
  EXPECT_FALSE(pairing_product_is_one(bad_c.ps, bad_c.qs));

  groth16_case_t bad_a = ok;  // A instead of -A
  bad_a.ps[0] = -ok.ps[0];
  EXPECT_FALSE(pairing_product_is_one(bad_a.ps, bad_a.qs));

  groth16_case_t swapped = ok;  // B and δ swapped
  std::swap(swapped.qs[0], swapped.qs[3]);
  EXPECT_FALSE(pairing_product_is_one(swapped.ps, swapped.qs));

  // The same check with the verifying key's G2 points prepared.
  std::vector<g2_prepared_t> prepared;
  for (const g2_affine_t& q : ok.qs) prepared.push_back(g2_prepared_t::prepare(q));
  EXPECT_TRUE(pairing_product_is_one(std::span<const g1_affine_t>(ok.ps), std::span<const g2_prepared_t>(prepared)));
  EXPECT_FALSE(
      pairing_product_is_one(std::span<const g1_affine_t>(bad_c.ps), std::span<const g2_prepared_t>(prepared)));
}

TEST(PairingErrors, BadInputThrowsWithAClearMessage) {
  const g1_affine_t p = random_g1();
  const g2_affine_t q = random_g2();
  g1_affine_t off1 = p;
  off1.y += fp_t::one();
  g2_affine_t off2 = q;
  off2.x += fp2_t::one();
  auto message = [](auto&& fn) {
    try {
      fn();
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message([&] { pairing(off1, q); }).find("G1 point 0 is not on the curve"), std::string::npos);
  EXPECT_NE(message([&] { pairing(p, off2); }).find("G2 point 0 is not on the twist"), std::string::npos);
  EXPECT_NE(message([&] { g2_prepared_t::prepare(off2); }).find("not on the twist"), std::string::npos);
  const std::vector<g1_affine_t> ps{p, p};
  const std::vector<g2_affine_t> qs{q};
  EXPECT_NE(message([&] { multi_pairing(ps, qs); }).find("2 G1 points but 1 G2 points"), std::string::npos);
  const std::vector<g2_affine_t> qs2{q, off2};
  EXPECT_NE(message([&] { multi_pairing(ps, qs2); }).find("G2 point 1"), std::string::npos);
  g2_prepared_t truncated = g2_prepared_t::prepare(q);
  truncated.lines.pop_back();
  EXPECT_NE(message([&] {
              multi_pairing(std::span(&p, 1), std::span<const g2_prepared_t>(&truncated, 1));
            }).find("expected 68"),
            std::string::npos);
}

}  // namespace
}  // namespace starzk
