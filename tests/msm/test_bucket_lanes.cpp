// The lane buckets (msm/bucket_lanes.hpp, G1 and G2) against plain XYZZ buckets and
// the MSM with the lanes on against the one-at-a-time affine buckets, the
// XYZZ buckets and msm_naive, on fresh random inputs: the lane form's round
// trip (edge coordinates 0, 1, p − 1, and O), streams thrown at few buckets
// (so pairs wait for the next batch and meet busy buckets twice), P + P and
// P + (−P), batches of every group fill, the window sums in lanes against
// the running sum (bucket counts off multiples of 8, side sums, buckets
// that cancel, and offsets that force every exceptional step), and MSMs
// with infinity, repeated and opposite bases and the scalars 0, 1, −1.
// Skipped where the CPU has no AVX-512 IFMA (the lanes never run there).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "msm/bucket_lanes.hpp"
#include "msm/pippenger.hpp"
#include "msm_test_util.hpp"

namespace starzk {
namespace {

using P = g1_params;

#define SKIP_WITHOUT_LANES() \
  if (!lane_buckets_available()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU (or STARZK_FF_IFMA=0)"

template <class C>
std::vector<lane_point_of<C>> lanes_of(const std::vector<affine_t<C>>& pts) {
  std::vector<lane_point_of<C>> t(pts.size());
  to_lane_points(std::span<const affine_t<C>>(pts), t.data());
  return t;
}

TEST(LaneBuckets, RoundTripAndEdgeCoordinates) {
  SKIP_WITHOUT_LANES();
  std::mt19937_64 g(std::random_device{}());
  auto pts = test::random_bases<P>(g, 21);  // not a multiple of 8: a partial group
  const fp_t pm1 = -fp_t::one();
  pts.push_back(g1_affine_t::infinity());
  pts.push_back(g1_affine_t{fp_t::zero(), fp_t::one()});
  pts.push_back(g1_affine_t{pm1, pm1});
  pts.push_back(g1_affine_t{fp_t::one(), fp_t::zero()});
  const auto t = lanes_of<P>(pts);
  for (size_t i = 0; i < pts.size(); ++i) {
    EXPECT_EQ(from_lane_point(t[i]).x, pts[i].x) << i;
    EXPECT_EQ(from_lane_point(t[i]).y, pts[i].y) << i;
    for (unsigned l = 0; l < 8; ++l) ASSERT_LT(t[i].x[l], uint64_t(1) << 52) << i;
  }
  for (unsigned l = 0; l < 8; ++l) EXPECT_EQ(t[21].x[l] | t[21].y[l], 0u) << "O is all zeros";
}

TEST(LaneBuckets, G2RoundTripAndEdgeCoordinates) {
  SKIP_WITHOUT_LANES();
  std::mt19937_64 g(std::random_device{}());
  auto pts = test::random_bases<g2_params>(g, 13);  // not a multiple of 8: a partial group
  const fp2_t pm1 = -fp2_t::one(), mixed{fp_t::zero(), -fp_t::one()};
  pts.push_back(g2_affine_t::infinity());
  pts.push_back(g2_affine_t{pm1, mixed});
  pts.push_back(g2_affine_t{mixed, fp2_t::one()});
  const auto t = lanes_of<g2_params>(pts);
  for (size_t i = 0; i < pts.size(); ++i) {
    EXPECT_EQ(from_lane_point(t[i]).x, pts[i].x) << i;
    EXPECT_EQ(from_lane_point(t[i]).y, pts[i].y) << i;
  }
  EXPECT_TRUE(from_lane_point(t[13]).is_infinity());
}

using stream_t = std::vector<std::pair<size_t, size_t>>;  // (bucket, term)

// The stream into the lane buckets and into n XYZZ buckets (returned).
template <class C>
std::vector<xyzz_t<C>> fill(lane_buckets_t<C>& lb, const std::vector<affine_t<C>>& terms, const stream_t& stream,
                            const std::vector<bool>& neg, size_t n) {
  std::vector<xyzz_t<C>> ref(n, xyzz_t<C>::infinity());
  for (size_t i = 0; i < stream.size(); ++i) {
    const auto [b, j] = stream[i];
    lb.add(b, j, neg[i]);
    ref[b] += neg[i] ? -terms[j] : terms[j];
  }
  return ref;
}

// The same stream into lane buckets and XYZZ buckets; every bucket compared.
template <class C>
void expect_same_buckets(const std::vector<affine_t<C>>& terms, const stream_t& stream, const std::vector<bool>& neg,
                         size_t n, size_t batch) {
  const auto table = lanes_of<C>(terms);
  lane_buckets_t<C> lb(n, batch, table.data());
  const std::vector<xyzz_t<C>> ref = fill<C>(lb, terms, stream, neg, n);
  lb.finish();
  for (size_t b = 0; b < n; ++b) {
    xyzz_t<C> got = xyzz_t<C>::infinity();
    lb.add_bucket_to(got, b);
    ASSERT_EQ(got.to_jacobian(), ref[b].to_jacobian()) << "bucket " << b << " of " << n << ", batch " << batch;
  }
}

// Random terms, O at 3 and −terms[0] at 4: streams that pick terms 0-4
// often make doublings and cancels.
template <class C>
std::vector<affine_t<C>> edge_terms(std::mt19937_64& g, size_t count) {
  auto terms = test::random_bases<C>(g, count);
  terms[3] = affine_t<C>::infinity();
  terms[4] = -terms[0];
  return terms;
}

template <class C>
class LaneBucketsBoth : public ::testing::Test {};
using curves = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(LaneBucketsBoth, curves);

TYPED_TEST(LaneBucketsBoth, MatchXyzzWithWaitsDoublingsAndCancels) {
  using C = TypeParam;
  SKIP_WITHOUT_LANES();
  std::mt19937_64 g(std::random_device{}());
  const auto terms = edge_terms<C>(g, 600);
  for (size_t n : {size_t(1), size_t(5), size_t(64), size_t(700)}) {
    stream_t stream;
    std::vector<bool> neg;
    for (size_t i = 0; i < 3000; ++i) {
      const size_t b = size_t(g() % n);
      size_t j = size_t(g() % terms.size());
      if (g() % 6 == 0) j = g() % 5;  // O, P_0, −P_0 (as a term and by sign): doublings and cancels
      stream.push_back({b, j});
      neg.push_back(g() % 2 == 1);
    }
    for (size_t batch : {size_t(8), size_t(9), size_t(16), size_t(63), size_t(256)})
      expect_same_buckets<C>(terms, stream, neg, n, batch);
  }
}

TEST(LaneBuckets, PippengerMatchesEveryOtherForm) {
  SKIP_WITHOUT_LANES();
  std::mt19937_64 g(std::random_device{}());
  for (size_t n : {size_t(1023), size_t(4096), size_t(5000)}) {
    auto bases = test::random_bases<P>(g, n);
    for (size_t i = 0; i < n; i += 97) bases[i] = g1_affine_t::infinity();
    for (size_t i = 5; i < n; i += 89) bases[i] = bases[1];
    for (size_t i = 6; i < n; i += 83) bases[i] = -bases[1];
    auto s = test::random_scalars(g, n);
    for (size_t i = 5; i < n; i += 178) s[i] = s[5];
    s[7] = fr_t::zero();
    s[8] = -fr_t::one();
    s[9] = fr_t::one();
    const auto expect = msm_naive<P>(bases, s);
    for (unsigned threads : {1u, 2u})
      for (bool glv : {false, true})
        for (unsigned c : {0u, 10u, 11u, 12u}) {
          msm_config_t lanes{.threads = threads, .window_bits = c};
          lanes.glv = glv;
          msm_config_t one_at_a_time = lanes, xyzz = lanes;
          one_at_a_time.lanes = false;
          xyzz.affine_buckets = false;
          const auto got = msm_pippenger<P>(bases, s, lanes);
          EXPECT_EQ(got, expect) << "n " << n << " threads " << threads << " glv " << glv << " c " << c;
          EXPECT_EQ(got, msm_pippenger<P>(bases, s, one_at_a_time)) << n;
          EXPECT_EQ(got, msm_pippenger<P>(bases, s, xyzz)) << n;
        }
  }
}

// Σ_b (b + 1)·bucket[b] from the XYZZ reference buckets.
xyzz_t<P> weighted_sum(const std::vector<xyzz_t<P>>& ref) {
  xyzz_t<P> run = xyzz_t<P>::infinity(), tot = xyzz_t<P>::infinity();
  for (size_t b = ref.size(); b-- > 0;) {
    run += ref[b];
    tot += run;
  }
  return tot;
}

// The same stream into lane buckets and XYZZ buckets; the window sums
// compared, with the fixed offsets and with offsets given.
void expect_same_window_sum(const std::vector<g1_affine_t>& terms, const stream_t& stream, const std::vector<bool>& neg,
                            size_t n, const g1_affine_t* r = nullptr, const g1_affine_t* r2 = nullptr) {
  const auto table = lanes_of<P>(terms);
  lane_buckets_t<g1_params> lb(n, 16, table.data());
  const std::vector<xyzz_t<P>> ref = fill(lb, terms, stream, neg, n);
  const xyzz_t<P> got = r ? lb.window_sum(*r, *r2) : lb.window_sum();
  ASSERT_EQ(got.to_jacobian(), weighted_sum(ref).to_jacobian()) << n << " buckets";
}

// Bucket counts below, at and off multiples of eight; empty buckets, side
// sums (doublings, cancels, waits) and buckets that cancel to O.
TEST(LaneBuckets, WindowSumMatchesTheRunningSum) {
  SKIP_WITHOUT_LANES();
  std::mt19937_64 g(std::random_device{}());
  const auto terms = edge_terms<P>(g, 300);
  for (size_t n : {size_t(1), size_t(7), size_t(8), size_t(9), size_t(64), size_t(100), size_t(4096)}) {
    stream_t stream;
    std::vector<bool> neg;
    for (size_t i = 0; i < 3 * n + 40; ++i) {
      size_t b = size_t(g() % n), j = size_t(g() % terms.size());
      if (g() % 5 == 0) j = g() % 5;
      if (g() % 7 == 0) continue;  // some buckets stay empty
      stream.push_back({b, j});
      neg.push_back(g() % 2 == 1);
    }
    // A bucket that ends at O: P_0, then −P_0 (the side sum cancels it).
    stream.push_back({n - 1, 0});
    neg.push_back(false);
    stream.push_back({n - 1, 0});
    neg.push_back(true);
    expect_same_window_sum(terms, stream, neg, n);
  }
}

// Offsets that force exceptional steps: a run that meets its bucket's
// negation (run = O after it), a run equal to its bucket (a doubling), and
// a tot equal to its run; each lane must fall back to one bucket at a
// time and the sum stay right.
TEST(LaneBuckets, WindowSumSurvivesExceptionalSteps) {
  SKIP_WITHOUT_LANES();
  std::mt19937_64 g(std::random_device{}());
  const size_t n = 64, L = n / 8;
  auto terms = test::random_bases<P>(g, n);
  stream_t stream;
  std::vector<bool> neg;
  for (size_t b = 0; b < n; ++b) {
    stream.push_back({b, b});  // bucket b holds term b alone
    neg.push_back(false);
  }
  // Lane 0 first meets bucket L − 1: r = −that bucket gives run = O.
  const g1_affine_t minus_top = -terms[L - 1];
  const g1_affine_t other = test::random_bases<P>(g, 1)[0];
  expect_same_window_sum(terms, stream, neg, n, &minus_top, &other);
  // r = that bucket: the first step doubles.
  expect_same_window_sum(terms, stream, neg, n, &terms[L - 1], &other);
  // r2 = r + bucket: tot meets its run at the first step.
  const g1_affine_t sum =
      (xyzz_t<P>::from_affine(other) + xyzz_t<P>::from_affine(terms[L - 1])).to_jacobian().to_affine();
  expect_same_window_sum(terms, stream, neg, n, &other, &sum);
}

// All scalars equal: every term of a window lands in one bucket, so each
// batch holds one pair and the rest wait, then go to the side sum.
TEST(LaneBuckets, EqualScalarsPileIntoOneBucket) {
  SKIP_WITHOUT_LANES();
  std::mt19937_64 g(std::random_device{}());
  const size_t n = 3000;
  const auto bases = test::random_bases<P>(g, n);
  const std::vector<fr_t> s(n, fr_t::random(g));
  msm_config_t lanes{.threads = 2, .window_bits = 11};
  EXPECT_EQ(msm_pippenger<P>(bases, s, lanes), msm_naive<P>(bases, s));
}

}  // namespace
}  // namespace starzk
