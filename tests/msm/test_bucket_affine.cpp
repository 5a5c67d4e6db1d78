// Affine buckets with batched inversions (msm/bucket_affine.hpp) against
// plain XYZZ buckets, on G1 and G2: random points thrown at few buckets (so
// batches meet taken buckets and use the side sums), points at infinity, the same point
// twice (a doubling inside a batch), a point and its opposite (the bucket
// empties and fills again), batch sizes from 1 up; and the Pippenger MSM
// with affine buckets on and off against msm_naive at sizes where the
// affine path is taken, with infinity, repeated and opposite bases.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ec/xyzz.hpp"
#include "msm/bucket_affine.hpp"
#include "msm/pippenger.hpp"
#include "msm_test_util.hpp"

namespace starzk {
namespace {

template <class P>
class AffineBuckets : public ::testing::Test {};
using curves = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(AffineBuckets, curves);

template <class P>
jacobian_t<P> value(const affine_buckets_t<P>& ab, size_t b) {
  xyzz_t<P> acc = xyzz_t<P>::infinity();
  ab.add_bucket_to(acc, b);
  return acc.to_jacobian();
}

// Adds the same stream to affine and XYZZ buckets and compares every bucket.
template <class P>
void expect_same_buckets(const std::vector<std::pair<size_t, affine_t<P>>>& stream, size_t n, size_t batch) {
  affine_buckets_t<P> ab(n, batch);
  std::vector<xyzz_t<P>> ref(n, xyzz_t<P>::infinity());
  for (const auto& [b, p] : stream) {
    ab.add(b, p);
    ref[b] += p;
  }
  ab.finish();
  for (size_t b = 0; b < n; ++b) ASSERT_EQ(value(ab, b), ref[b].to_jacobian()) << "bucket " << b << ", batch " << batch;
}

TYPED_TEST(AffineBuckets, MatchXyzzWithCollisionsAndSpecialPoints) {
  using P = TypeParam;
  std::mt19937_64 g(std::random_device{}());
  const size_t n_points = 400;
  const auto pts = test::random_bases<P>(g, n_points);
  for (size_t n : {size_t(1), size_t(3), size_t(16)}) {
    std::vector<std::pair<size_t, affine_t<P>>> stream;
    for (size_t i = 0; i < n_points; ++i) {
      const size_t b = size_t(g() % n);
      switch (g() % 8) {
        case 0:
          stream.push_back({b, affine_t<P>::infinity()});
          break;
        case 1:
          stream.push_back({b, pts[0]});
          break;  // repeats: doublings
        case 2:
          stream.push_back({b, -pts[0]});
          break;  // opposites: cancels
        default:
          stream.push_back({b, pts[i]});
      }
    }
    for (size_t batch : {size_t(0), size_t(1), size_t(2), size_t(7), size_t(64)})
      expect_same_buckets<P>(stream, n, batch);
  }
}

// Doublings and cancels on purpose: P + P in one batch, P + P + P (the
// third in the side sum), P + (-P), and the same after the bucket held something.
TYPED_TEST(AffineBuckets, DoublingsAndCancels) {
  using P = TypeParam;
  std::mt19937_64 g(std::random_device{}());
  const auto pts = test::random_bases<P>(g, 3);
  const affine_t<P> p = pts[0], q = pts[1];
  const std::vector<std::pair<size_t, affine_t<P>>> stream = {
      {0, p}, {0, p},                     // 2P
      {1, q}, {1, q},  {1, q},            // 3Q (the third in the side sum)
      {2, p}, {2, -p},                    // O
      {3, q}, {3, p},  {3, -p}, {3, -q},  // O after other sums
      {4, p}, {4, q},  {4, -q}, {4, p}};  // 2P via P + Q - Q
  for (size_t batch : {size_t(1), size_t(2), size_t(8)}) expect_same_buckets<P>(stream, 5, batch);
}

TYPED_TEST(AffineBuckets, PointPlusOppositeEmptiesBucket) {
  using P = TypeParam;
  std::mt19937_64 g(std::random_device{}());
  const auto pts = test::random_bases<P>(g, 2);
  affine_buckets_t<P> ab(2, 4);
  ab.add(1, pts[0]);
  ab.add(1, -pts[0]);
  ab.finish();
  EXPECT_TRUE(value(ab, 1).is_infinity());
  EXPECT_TRUE(value(ab, 0).is_infinity());
  ab.add(1, pts[1]);  // an emptied bucket takes a point as is
  ab.finish();
  EXPECT_EQ(value(ab, 1), pts[1]);
}

TYPED_TEST(AffineBuckets, PippengerBothWaysMatchesNaive) {
  using P = TypeParam;
  std::mt19937_64 g(std::random_device{}());
  const size_t n = std::is_same_v<P, g1_params> ? 3000 : 1500;
  auto bases = test::random_bases<P>(g, n);
  for (size_t i = 0; i < n; i += 97) bases[i] = affine_t<P>::infinity();
  for (size_t i = 5; i < n; i += 89) bases[i] = bases[1];
  for (size_t i = 6; i < n; i += 83) bases[i] = -bases[1];
  auto s = test::random_scalars(g, n);
  for (size_t i = 5; i < n; i += 178) s[i] = s[5];
  s[7] = fr_t::zero();
  s[8] = -fr_t::one();
  const auto expect = msm_naive<P>(bases, s);
  for (unsigned threads : {1u, 2u})
    for (bool glv : {false, true}) {
      msm_config_t on, off;
      on.threads = off.threads = threads;
      on.glv = off.glv = glv;
      off.affine_buckets = false;
      // The GLV form has 2n terms of 127 bits.
      const size_t terms = glv ? 2 * n : n;
      const msm_plan_t plan = msm_plan(terms, threads, 0, glv ? 127 : 255);
      // The affine path is taken: a unit holds >= 1024 points and >= 2 per bucket.
      ASSERT_GE(terms / plan.slices, size_t(1024));
      ASSERT_GE(terms / plan.slices, size_t(2) << (plan.window_bits - 1));
      ASSERT_GE(size_t(1) << (plan.window_bits - 1), size_t(64));
      EXPECT_EQ(msm_pippenger<P>(bases, s, on), expect) << "threads " << threads << " glv " << glv;
      EXPECT_EQ(msm_pippenger<P>(bases, s, off), expect) << "threads " << threads << " glv " << glv;
    }
}

}  // namespace
}  // namespace starzk
