// The 8-lane AVX-512 IFMA subgroup checks (ec/subgroup_x8.cpp) against the
// scalar ones, on G1 and G2: lanes holding fresh subgroup points, curve
// points outside the subgroup, points of small order (whose chains meet O
// and P = ±Q, the cases the branch-free formulas get wrong and hand back to
// the scalar check) and subgroup points shifted by them, each kind at every
// lane position; and first_outside_subgroup with the 8-lane path on and
// forced off giving the same lowest index over vectors of 0, 1, 2, 7, 8, 9
// and 1031 points with a failing point (outside, off the curve) at every
// position of the small ones and around the batch and block edges, O
// points shifting the lanes. Skipped where the CPU lacks AVX-512 IFMA.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <vector>

#include "ec/subgroup_x8.hpp"
#include "ec_test_util.hpp"
#include "ff/fp_x8_ifma.hpp"

namespace starzk {
namespace {

using test::random_curve_point;

// Restores the 8-lane switch a test changed.
struct wide_guard {
  bool was = ff_path::wide();
  ~wide_guard() { ff_path::set_wide(was); }
};

std::mt19937_64& fresh() {
  static std::mt19937_64 g(std::random_device{}());
  return g;
}

template <class P>
affine_t<P> fresh_subgroup_point() {
  return mul(affine_t<P>::generator(), fr_t::random(fresh())).to_affine();
}

// A point of small order: G1 (0, 2), of order 3 (x = 0 gives the
// inflection points of y^2 = x^3 + b); G2 [h2 r / 169] Q for a random
// curve point Q, of order 13 or 169 (13^2 divides h2; the 13-part of
// E'(F_p2) is Z/13 x Z/13, so [h2 r / 13] Q is always O), retried while it
// is O.
template <class P>
affine_t<P> small_order_point();
template <>
g1_affine_t small_order_point<g1_params>() {
  return g1_affine_t{fp_t::zero(), fp_t::from_u64(2)};
}
template <>
g2_affine_t small_order_point<g2_params>() {
  auto h2_over_169 = g2_params::cofactor;
  EXPECT_EQ(limbs::div_small(h2_over_169, 169), 0u);
  for (;;) {
    const g2_jacobian_t rq = mul_limbs(random_curve_point<g2_params>(), std::span<const uint64_t>(group_order_limbs));
    const g2_affine_t t = mul_limbs(rq, std::span<const uint64_t>(h2_over_169)).to_affine();
    if (t.is_infinity()) continue;
    EXPECT_TRUE(mul_u64(t, 169).is_infinity());
    return t;
  }
}

template <class P>
class SubgroupX8 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ff_path::cpu_has_ifma()) GTEST_SKIP() << "CPU without AVX-512 IFMA: the 8-lane checks are never used";
  }
};
using groups = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(SubgroupX8, groups);

// outside_x8 lane by lane against is_in_subgroup: four kinds, rotated so
// that each kind sits at each lane position, fresh points every round.
TYPED_TEST(SubgroupX8, LanesAgreeWithScalarCheck) {
  using P = TypeParam;
  const affine_t<P> t = small_order_point<P>();
  ASSERT_TRUE(t.is_on_curve());
  ASSERT_FALSE(t.is_in_subgroup());
  for (unsigned round = 0; round < 8; ++round) {
    affine_t<P> lanes[8];
    for (unsigned j = 0; j < 8; ++j) {
      switch ((j + round) % 4) {
        case 0:
          lanes[j] = fresh_subgroup_point<P>();
          break;
        case 1:
          lanes[j] = random_curve_point<P>();
          break;
        case 2:
          lanes[j] = t;
          break;
        default:
          lanes[j] = jacobian_t<P>::from_affine(fresh_subgroup_point<P>()).add_mixed(t).to_affine();
      }
    }
    const unsigned bits = outside_x8(lanes);
    for (unsigned j = 0; j < 8; ++j)
      EXPECT_EQ(bool(bits >> j & 1), !lanes[j].is_in_subgroup()) << "round " << round << " lane " << j;
  }
  // All eight lanes in the subgroup, and all eight outside.
  affine_t<P> good[8], bad[8];
  for (unsigned j = 0; j < 8; ++j) good[j] = fresh_subgroup_point<P>(), bad[j] = random_curve_point<P>();
  EXPECT_EQ(outside_x8(good), 0u);
  EXPECT_EQ(outside_x8(bad), 0xffu);
}

// first_outside_subgroup with the switch on and off, and the index expected.
template <class P>
void expect_first(const std::vector<affine_t<P>>& v, std::optional<uint64_t> want, const std::string& what) {
  wide_guard guard;
  const std::span<const affine_t<P>> s(v);
  for (unsigned threads : {1u, 2u}) {
    ff_path::set_wide(true);
    EXPECT_EQ(first_outside_subgroup(s, threads), want) << what << ", 8 lanes, " << threads << " threads";
    ff_path::set_wide(false);
    EXPECT_EQ(first_outside_subgroup(s, threads), want) << what << ", one at a time, " << threads << " threads";
  }
}

TYPED_TEST(SubgroupX8, FirstFailureMatchesScalarPath) {
  using P = TypeParam;
  // Distinct subgroup points: multiples of one fresh point, every 11th O.
  const affine_t<P> g = fresh_subgroup_point<P>();
  std::vector<jacobian_t<P>> jac(1031);
  jacobian_t<P> acc = jacobian_t<P>::from_affine(g);
  for (auto& j : jac) j = acc, acc = acc.add_mixed(g);
  std::vector<affine_t<P>> pool(jac.size());
  jacobian_t<P>::batch_to_affine(jac, pool);
  for (size_t i = 5; i < pool.size(); i += 11) pool[i] = affine_t<P>::infinity();

  const affine_t<P> outside = random_curve_point<P>();
  const affine_t<P> small = small_order_point<P>();
  affine_t<P> off = g;
  off.y = off.y + P::field_t::one();
  ASSERT_FALSE(off.is_on_curve());

  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(7), size_t(8), size_t(9), size_t(1031)}) {
    const std::vector<affine_t<P>> v(pool.begin(), pool.begin() + ptrdiff_t(n));
    expect_first<P>(v, std::nullopt, "all good, n = " + std::to_string(n));
    // A failure at every position of the short vectors; around the batch
    // and block edges of the long one, with a second failure later.
    std::vector<size_t> at;
    for (size_t k = 0; k < std::min<size_t>(n, 17); ++k) at.push_back(k);
    if (n > 17) at.insert(at.end(), {255, 256, 257, 519, n - 1});
    for (size_t k : at) {
      for (const affine_t<P>& bad : {outside, off, small}) {
        std::vector<affine_t<P>> w = v;
        w[k] = bad;
        // Later failures must not win: a point off the curve right after
        // (it ends the batch that holds k), an outside one, one far away.
        if (k + 2 < n) w[k + 2] = off;
        if (k + 5 < n) w[k + 5] = outside;
        if (k + 300 < n) w[k + 300] = off;
        expect_first<P>(w, k, "n = " + std::to_string(n) + ", bad at " + std::to_string(k));
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace starzk
