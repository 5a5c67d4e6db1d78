// The GLV decomposition and its endomorphism (ec/glv.hpp): the constants
// against what defines them (mu^2 − mu + 1 ≡ 0 and lambda = −mu a cube root
// of unity mod r, phi(P) = [lambda]P on G1, x2_endo(P) = [x^2]P on G1 and
// G2 by two multiplications by |x|, N(psi_cy) = −1, omega a nontrivial cube
// root of unity in Fp), and glv_split on edge scalars (0, 1, r − 1, lambda,
// mu, the step boundaries mu/2 and mu/2 + 1 of both halves) and random ones:
// k1 + k2·mu ≡ k (mod r), both halves at most mu/2 in size, and
// [k]P = [k1]P + [k2]x2_endo(P).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ec/glv.hpp"
#include "ec_test_util.hpp"

namespace starzk {
namespace {

using u128 = unsigned __int128;

fr_t fr_from_u128(u128 v) { return fr_t::from_canonical({uint64_t(v), uint64_t(v >> 64), 0, 0}); }

fr_t fr_from_i128(__int128 v) {
  const fr_t mag = fr_from_u128(v < 0 ? u128(-v) : u128(v));
  return v < 0 ? -mag : mag;
}

u128 magnitude(__int128 v) { return v < 0 ? u128(-v) : u128(v); }

TEST(glv_constants, mu_is_a_sixth_root_of_unity_mod_r) {
  EXPECT_EQ(glv_mu, u128(bls_x_abs) * bls_x_abs);
  EXPECT_EQ(glv_mu % 2, 0u);
  EXPECT_GT(glv_mu, u128(1) << 127);  // 128 bits, so mu/2 < 2^127
  const fr_t mu = fr_from_u128(glv_mu);
  EXPECT_TRUE((mu.sqr() - mu + fr_t::one()).is_zero());
  const fr_t lambda = -mu;
  EXPECT_TRUE((lambda.sqr() + lambda + fr_t::one()).is_zero());
  EXPECT_NE(lambda, fr_t::one());
  EXPECT_EQ(lambda.sqr() * lambda, fr_t::one());
}

TEST(glv_constants, phi_is_lambda_on_g1) {
  const fr_t lambda = -fr_from_u128(glv_mu);
  const g1_affine_t g = g1_affine_t::generator();
  EXPECT_EQ(g1_jacobian_t::from_affine(phi(g)), mul(g, lambda));
  const g1_affine_t p = test::random_subgroup_point<g1_params>();
  EXPECT_EQ(g1_jacobian_t::from_affine(phi(p)), mul(p, lambda));
  // The conjugate eigenvalue lambda^2 = −1 − lambda belongs to phi^2.
  EXPECT_EQ(g1_jacobian_t::from_affine(phi(phi(p))), mul(p, lambda.sqr()));
  EXPECT_NE(g1_jacobian_t::from_affine(phi(p)), mul(p, lambda.sqr()));
}

TEST(glv_constants, psi_squared_is_omega_x_minus_y) {
  const fp2_t cx = g2_params::psi_cx(), cy = g2_params::psi_cy();
  EXPECT_TRUE((cx * cx.conjugate()).c1.is_zero());
  EXPECT_EQ(cy * cy.conjugate(), -fp2_t::one());
  const fp_t omega = g2_psi2_omega();
  EXPECT_NE(omega, fp_t::one());
  EXPECT_EQ(omega.sqr() * omega, fp_t::one());
  const g2_affine_t p = test::random_subgroup_point<g2_params>();
  EXPECT_EQ(x2_endo(p), psi(psi(p)));
}

template <class P>
class glv_endo : public ::testing::Test {};
using curves = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(glv_endo, curves);

TYPED_TEST(glv_endo, x2_endo_is_mul_by_x_squared) {
  using P = TypeParam;
  std::vector<affine_t<P>> pts = {affine_t<P>::generator(), test::random_subgroup_point<P>(),
                                  test::random_subgroup_point<P>()};
  for (const auto& p : pts) {
    const affine_t<P> e = x2_endo(p);
    EXPECT_TRUE(e.is_on_curve());
    EXPECT_EQ(jacobian_t<P>::from_affine(e), mul_u64(mul_u64(p, bls_x_abs), bls_x_abs));
    EXPECT_EQ(jacobian_t<P>::from_affine(e), mul(p, fr_from_u128(glv_mu)));
  }
  EXPECT_TRUE(x2_endo(affine_t<P>::infinity()).is_infinity());
}

// The scalars glv_split is checked on: the edges of every step, then random.
std::vector<fr_t> split_cases() {
  const fr_t mu = fr_from_u128(glv_mu), one = fr_t::one();
  const fr_t half = fr_from_u128(glv_mu / 2);
  std::vector<fr_t> v = {fr_t::zero(), one, fr_t::from_u64(2), -one, -fr_t::from_u64(2)};
  v.push_back(-mu);  // lambda
  // One step of q.
  v.insert(v.end(), {mu, mu - one, mu + one});
  // Step 2 at its boundary.
  v.insert(v.end(), {half, half + one, half - one});
  // q = m = mu/2: neither step; q = m = mu/2 + 1: both; q = mu/2 + 1, m = 0: step 3 alone.
  v.insert(v.end(), {half * mu + half, (half + one) * mu + half + one, (half + one) * mu});
  // r − 2 through both steps; 2^254.
  v.insert(v.end(), {(mu - fr_t::from_u64(2)) * mu + mu - one, fr_t::from_canonical({0, 0, 0, uint64_t(1) << 62})});

  std::mt19937_64 g(401);
  for (int i = 0; i < 2000; ++i) v.push_back(fr_t::random(g));
  // Random q with small m, random m with small q.
  for (int i = 0; i < 200; ++i) {
    const u128 a = ((u128(g()) << 64) | g()) % glv_mu;
    v.push_back(fr_from_u128(a) * mu + fr_t::from_u64(g() % 4));
    v.push_back(fr_t::from_u64(g() % 4) * mu + fr_from_u128(a));
  }
  return v;
}

TEST(glv_split, recombines_with_halves_of_at_most_mu_over_2) {
  const fr_t mu = fr_from_u128(glv_mu);
  u128 worst = 0;
  for (const fr_t& s : split_cases()) {
    const glv_split_t d = glv_split(s.to_canonical());
    EXPECT_EQ(fr_from_i128(d.k1) + fr_from_i128(d.k2) * mu, s) << s.to_hex();
    EXPECT_LE(magnitude(d.k1), glv_mu / 2) << s.to_hex();
    EXPECT_LE(magnitude(d.k2), glv_mu / 2) << s.to_hex();
    worst = std::max({worst, magnitude(d.k1), magnitude(d.k2)});
  }
  EXPECT_GT(worst, glv_mu / 4);  // the bound is not loose by a factor of 2
  const glv_split_t zero = glv_split({0, 0, 0, 0});
  EXPECT_EQ(zero.k1, 0);
  EXPECT_EQ(zero.k2, 0);
  const glv_split_t minus_one = glv_split((-fr_t::one()).to_canonical());  // r − 1 = (mu − 1)·mu
  EXPECT_EQ(minus_one.k1, -1);
  EXPECT_EQ(minus_one.k2, 0);
  const glv_split_t lambda = glv_split((-mu).to_canonical());  // r − mu ≡ −mu
  EXPECT_EQ(lambda.k1, 0);
  EXPECT_EQ(lambda.k2, -1);
}

TYPED_TEST(glv_endo, split_gives_the_same_point) {
  using P = TypeParam;
  const affine_t<P> p = test::random_subgroup_point<P>();
  const affine_t<P> e = x2_endo(p);
  const fr_t mu = fr_from_u128(glv_mu);
  const std::vector<fr_t> ks = {-fr_t::one(), -mu, fr_from_u128(glv_mu / 2) * mu, test::random_scalar()};
  for (const fr_t& k : ks) {
    const glv_split_t d = glv_split(k.to_canonical());
    EXPECT_EQ(mul(p, k), mul(p, fr_from_i128(d.k1)) + mul(e, fr_from_i128(d.k2)));
  }
}

}  // namespace
}  // namespace starzk
