// Scalar multiplication and the naive MSM on G1 and G2.
//
// The windowed mul is held against double-and-add (mul_limbs), repeated
// addition for small scalars, and the ring laws of Fr acting on the group
// ([a]P + [b]P = [a+b]P, [a][b]P = [ab]P). Edge scalars: 0, 1, 2, 15, 16,
// r-1 (gives -P), and r itself through mul_limbs (gives O on the subgroup).
#include <gtest/gtest.h>

#include <vector>

#include "ec_test_util.hpp"

namespace starzk {
namespace {

using test::random_scalar;
using test::random_subgroup_point;

template <class P>
class scalar_mul_test : public ::testing::Test {};
using param_types = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(scalar_mul_test, param_types);

template <class P>
using jac = jacobian_t<P>;
template <class P>
using aff = affine_t<P>;

TYPED_TEST(scalar_mul_test, order_r_kills_the_generator) {
  using P = TypeParam;
  const aff<P> g = aff<P>::generator();
  EXPECT_TRUE(mul_limbs(g, std::span<const uint64_t>(group_order_limbs)).is_infinity());
  // r - 1 and r + 1 do not.
  std::array<uint64_t, 4> r_minus_1 = group_order_limbs;
  r_minus_1[0] -= 1;
  EXPECT_EQ(mul_limbs(g, std::span<const uint64_t>(r_minus_1)), jac<P>::from_affine(-g));
  std::array<uint64_t, 4> r_plus_1 = group_order_limbs;
  r_plus_1[0] += 1;
  EXPECT_EQ(mul_limbs(g, std::span<const uint64_t>(r_plus_1)), jac<P>::from_affine(g));
}

TYPED_TEST(scalar_mul_test, edge_scalars) {
  using P = TypeParam;
  const aff<P> g = random_subgroup_point<P>();
  const jac<P> jg = jac<P>::from_affine(g);
  EXPECT_TRUE(mul(g, fr_t::zero()).is_infinity());
  EXPECT_EQ(mul(g, fr_t::one()), jg);
  EXPECT_EQ(mul(g, fr_t::from_u64(2)), jg.dbl());
  EXPECT_EQ(mul(g, -fr_t::one()), jg.neg());  // r - 1
  EXPECT_TRUE(mul(aff<P>::infinity(), random_scalar()).is_infinity());
  EXPECT_TRUE(mul_u64(g, 0).is_infinity());
  EXPECT_EQ(mul_u64(g, 1), jg);
  EXPECT_TRUE(mul_u64(aff<P>::infinity(), 12345).is_infinity());
  // The Jacobian overload, from a non-normalised Z.
  EXPECT_EQ(mul(jg.dbl(), fr_t::from_u64(3)), mul_u64(g, 6));
}

TYPED_TEST(scalar_mul_test, small_scalars_match_repeated_addition) {
  using P = TypeParam;
  const aff<P> g = random_subgroup_point<P>();
  jac<P> acc = jac<P>::infinity();
  for (uint64_t k = 0; k <= 40; ++k) {
    ASSERT_EQ(mul(g, fr_t::from_u64(k)), acc) << "k = " << k;
    ASSERT_EQ(mul_u64(g, k), acc) << "k = " << k;
    acc = acc.add_mixed(g);
  }
}

TYPED_TEST(scalar_mul_test, window_mul_matches_double_and_add) {
  using P = TypeParam;
  for (int i = 0; i < 6; ++i) {
    const aff<P> g = random_subgroup_point<P>();
    const fr_t s = random_scalar();
    const std::array<uint64_t, 4> k = s.to_canonical();
    EXPECT_EQ(mul(g, s), mul_limbs(g, std::span<const uint64_t>(k)));
  }
  // Also off the subgroup: mul is plain arithmetic on the curve.
  const aff<P> q = test::random_curve_point<P>();
  const fr_t s = random_scalar();
  const std::array<uint64_t, 4> k = s.to_canonical();
  EXPECT_EQ(mul(q, s), mul_limbs(jac<P>::from_affine(q), std::span<const uint64_t>(k)));
}

TYPED_TEST(scalar_mul_test, scalar_ring_laws) {
  using P = TypeParam;
  for (int i = 0; i < 4; ++i) {
    const aff<P> g = random_subgroup_point<P>();
    const fr_t a = random_scalar();
    const fr_t b = random_scalar();
    EXPECT_EQ(mul(g, a).add(mul(g, b)), mul(g, a + b));
    EXPECT_EQ(mul(mul(g, b), a), mul(g, a * b));
    EXPECT_TRUE(mul(g, a).add(mul(g, -a)).is_infinity());
  }
}

TYPED_TEST(scalar_mul_test, msm_naive) {
  using P = TypeParam;
  // Empty sum.
  EXPECT_TRUE(msm_naive(std::span<const aff<P>>(), std::span<const fr_t>()).is_infinity());

  std::vector<aff<P>> pts;
  std::vector<fr_t> sc;
  jac<P> ref = jac<P>::infinity();
  for (int i = 0; i < 6; ++i) {
    pts.push_back(i == 2 ? aff<P>::infinity() : random_subgroup_point<P>());
    sc.push_back(i == 3 ? fr_t::zero() : i == 4 ? fr_t::one() : random_scalar());
    ref = ref.add(mul(pts.back(), sc.back()));
  }
  EXPECT_EQ(msm_naive<P>(pts, sc), ref);
  // A duplicated point with opposite scalars cancels.
  pts.push_back(pts[0]);
  sc.push_back(-sc[0]);
  EXPECT_EQ(msm_naive<P>(pts, sc), ref.add(mul(pts[0], sc[0]).neg()));

  sc.pop_back();
  EXPECT_THROW(msm_naive<P>(pts, sc), std::runtime_error);
}

}  // namespace
}  // namespace starzk
