// Pippenger MSM vs ec's msm_naive on G1 and G2: edge sizes 0..2^12 (+1),
// random scalars, zeros, ones, r − 1, bases at infinity, repeated and
// opposite bases, every window width from 1 up (in both the GLV and the
// 255-bit form; the rest runs the default, GLV), and thread counts from
// inline (1) to more threads than windows (slices per window).
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "msm/pippenger.hpp"
#include "msm_test_util.hpp"

namespace starzk {
namespace {

template <class P>
class Pippenger : public ::testing::Test {};
using curves = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(Pippenger, curves);

constexpr size_t max_n = 4096;

TYPED_TEST(Pippenger, RandomScalarsAllEdgeSizes) {
  using P = TypeParam;
  std::mt19937_64 g(301);
  const auto bases = test::random_bases<P>(g, max_n + 1);
  const auto s = test::random_scalars(g, max_n + 1);
  const auto expect = test::naive_prefix_sums<P>(bases, s);
  for (size_t n : test::edge_sizes(max_n)) {
    msm_config_t cfg;
    cfg.threads = (n % 3) + 1;
    const auto got = msm_pippenger<P>(std::span(bases).first(n), std::span(s).first(n), cfg);
    EXPECT_EQ(got, expect[n]) << P::name << " n = " << n;
  }
  // Many threads: more units than windows, several slices per window.
  msm_config_t many;
  many.threads = 64;
  ASSERT_GT(msm_plan(max_n + 1, many.threads).slices, 1u);
  EXPECT_EQ(msm_pippenger<P>(bases, s, many), expect[max_n + 1]);
}

TYPED_TEST(Pippenger, EveryWindowWidth) {
  using P = TypeParam;
  std::mt19937_64 g(302);
  const size_t n = 150;
  const auto bases = test::random_bases<P>(g, n);
  const auto s = test::random_scalars(g, n);
  const auto expect = msm_naive<P>(bases, s);
  // Small widths all; one wide window (2^15 buckets) on G1 only, for time.
  std::vector<unsigned> widths = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  if (std::is_same_v<P, g1_params>) widths.push_back(16);
  for (unsigned c : widths)
    for (bool glv : {false, true}) {
      msm_config_t cfg;
      cfg.window_bits = c;
      cfg.threads = 3;
      cfg.glv = glv;
      EXPECT_EQ(msm_pippenger<P>(bases, s, cfg), expect) << P::name << " c = " << c << " glv " << glv;
    }
}

TYPED_TEST(Pippenger, SpecialScalars) {
  using P = TypeParam;
  using jac = jacobian_t<P>;
  std::mt19937_64 g(303);
  const size_t n = 257;
  const auto bases = test::random_bases<P>(g, n);
  jac sum = jac::infinity();
  for (const auto& b : bases) sum = sum.add_mixed(b);

  const std::vector<fr_t> zeros(n, fr_t::zero()), ones(n, fr_t::one()), minus_one(n, -fr_t::one());
  EXPECT_TRUE(msm_pippenger<P>(bases, zeros).is_infinity());
  EXPECT_EQ(msm_pippenger<P>(bases, ones), sum);
  EXPECT_EQ(msm_pippenger<P>(bases, minus_one), sum.neg());  // (r − 1)·P = −P
  EXPECT_FALSE(sum.is_infinity());

  // Mixed: r − 1, 2^254 − 1 style top-heavy values, small values, zeros.
  std::vector<fr_t> mixed(n);
  for (size_t i = 0; i < n; ++i) {
    switch (i % 5) {
      case 0:
        mixed[i] = -fr_t::one();
        break;
      case 1:
        mixed[i] = fr_t::zero();
        break;
      case 2:
        mixed[i] = fr_t::from_u64(i);
        break;
      case 3:
        mixed[i] = -fr_t::from_u64(i);
        break;
      default:
        mixed[i] = fr_t::random(g);
    }
  }
  EXPECT_EQ(msm_pippenger<P>(bases, mixed), msm_naive<P>(bases, mixed));
}

TYPED_TEST(Pippenger, InfinityRepeatedAndOppositeBases) {
  using P = TypeParam;
  std::mt19937_64 g(304);
  const size_t n = 300;
  auto bases = test::random_bases<P>(g, n);
  for (size_t i = 0; i < n; i += 7) bases[i] = affine_t<P>::infinity();
  for (size_t i = 3; i < n; i += 5) bases[i] = bases[1];    // the same base many times
  for (size_t i = 4; i < n; i += 11) bases[i] = -bases[2];  // and its opposite
  auto s = test::random_scalars(g, n);
  for (size_t i = 3; i < n; i += 10) s[i] = s[3];  // same digit: same bucket, P + P
  EXPECT_EQ(msm_pippenger<P>(bases, s), msm_naive<P>(bases, s));

  // s·P + s·(−P) cancels; so does s·P + (r − s)·P.
  const affine_t<P> p = bases[1];
  const fr_t t = fr_t::random(g);
  const std::vector<affine_t<P>> pair = {p, -p, p, p};
  const std::vector<fr_t> ts = {t, t, t, -t};
  EXPECT_TRUE(msm_pippenger<P>(pair, ts).is_infinity());
  const std::vector<affine_t<P>> all_inf(5, affine_t<P>::infinity());
  EXPECT_TRUE(msm_pippenger<P>(all_inf, test::random_scalars(g, 5)).is_infinity());
}

// A split MSM's tail (hundreds to a few thousand terms) takes the pooled
// windows (pippenger.cpp): every form of bucket, thread counts that cut the
// windows unevenly, and a base repeated with the same scalar (P + P in a
// pool bucket) and opposite (P + (−P)).
TYPED_TEST(Pippenger, PooledWindowsEveryForm) {
  using P = TypeParam;
  std::mt19937_64 g(306);
  for (size_t n : {size_t(128), size_t(300), size_t(1500)}) {
    auto bases = test::random_bases<P>(g, n);
    auto s = test::random_scalars(g, n);
    for (size_t i = 10; i < n; i += 13) {
      bases[i] = bases[9];
      s[i] = s[9];
    }
    for (size_t i = 11; i < n; i += 17) bases[i] = -bases[9];
    const auto expect = msm_naive<P>(bases, s);
    for (bool lanes : {true, false})
      for (bool glv : {true, false})
        for (unsigned threads : {1u, 2u, 7u}) {
          msm_config_t cfg;
          cfg.lanes = lanes;
          cfg.glv = glv;
          cfg.threads = threads;
          EXPECT_EQ(msm_pippenger<P>(bases, s, cfg), expect)
              << P::name << " n = " << n << " lanes " << lanes << " glv " << glv << " threads " << threads;
        }
  }
}

TYPED_TEST(Pippenger, IndexedMatchesGathered) {
  using P = TypeParam;
  std::mt19937_64 g(305);
  const auto bases = test::random_bases<P>(g, 200);
  std::vector<uint32_t> idx;
  std::vector<affine_t<P>> gathered;
  for (uint32_t i = 0; i < 200; i += 3) {
    idx.push_back(i);
    gathered.push_back(bases[i]);
  }
  idx.push_back(0);  // an index may repeat
  gathered.push_back(bases[0]);
  const auto s = test::random_scalars(g, idx.size());
  EXPECT_EQ(msm_pippenger_indexed<P>(bases, idx, s), msm_naive<P>(gathered, s));
  idx.back() = 200;
  EXPECT_THROW(msm_pippenger_indexed<P>(bases, idx, s), std::out_of_range);
  idx.pop_back();
  EXPECT_THROW(msm_pippenger_indexed<P>(bases, idx, s), std::invalid_argument);
}

TEST(PippengerErrors, BadInput) {
  std::mt19937_64 g(306);
  const auto bases = test::random_bases<g1_params>(g, 4);
  const auto s = test::random_scalars(g, 3);
  EXPECT_THROW(msm_pippenger<g1_params>(bases, s), std::invalid_argument);
  msm_config_t cfg;
  cfg.window_bits = msm_config_t::max_window_bits + 1;
  EXPECT_THROW(msm_pippenger<g1_params>(std::span(bases).first(3), s, cfg), std::invalid_argument);
}

TEST(PippengerWindow, GrowsWithSize) {
  unsigned prev = 0;
  for (size_t n = 1; n <= (size_t(1) << 30); n *= 2) {
    const unsigned c = msm_window_bits(n);
    EXPECT_GE(c, prev) << n;
    EXPECT_GE(c, 1u);
    EXPECT_LE(c, msm_config_t::max_window_bits);
    prev = c;
  }
  EXPECT_GE(msm_window_bits(size_t(1) << 20), 12u);
  EXPECT_LE(msm_window_bits(4), 4u);
}

TEST(PippengerPlan, SlicesOnlyWhenThreadsOutnumberWindows) {
  for (size_t n : {size_t(1), size_t(100), size_t(1) << 16}) {
    const msm_plan_t one = msm_plan(n, 1);
    EXPECT_EQ(one.slices, 1u);
    EXPECT_EQ(one.windows, (256 + one.window_bits - 1) / one.window_bits);
    EXPECT_GE(one.windows * one.window_bits, 256u);  // the signed recoding needs Wc ≥ 256
  }
  const msm_plan_t wide = msm_plan(size_t(1) << 20, 128);
  EXPECT_GT(wide.slices * wide.windows, 128u / 2);
  const msm_plan_t forced = msm_plan(1000, 4, 5);
  EXPECT_EQ(forced.window_bits, 5u);
  EXPECT_EQ(forced.windows, 52u);
  EXPECT_THROW(msm_plan(10, 1, msm_config_t::max_window_bits + 1), std::invalid_argument);
}

}  // namespace
}  // namespace starzk
