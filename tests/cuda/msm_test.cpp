// Device G1 MSM, batch addition and the prep_msm split against two host
// oracles: msm_naive (double-and-add per term, src/ec) for small n, and for
// any n the linear identity of the test bases P_i = Q + i·R:
// sum s_i P_i = (sum s_i) Q + (sum i·s_i) R, computed in Fr (gpu_test_util.hpp).
// Sizes 0, 1, 2, 2^k, 2^k + 1 up to 2^21 + 3; random, all-zero, all-one, r-1 and
// boolean-heavy scalars, and scalars below 2^64 (windows dense, sparse and
// empty in one call); infinities among the bases; small windows and chunks
// to force several folding levels; batch-affine levels forced at small n, and
// bases repeated and negated so that their pairs double or cancel.
#include <vector>

#include "gpu_test_util.hpp"

namespace starzk::gpu::test {
namespace {

enum class dist_t { random, zero, one, minus_one, boolean_heavy, below_2_64 };

std::vector<fr_t> make_scalars(std::mt19937_64& rng, size_t n, dist_t d) {
  std::vector<fr_t> s(n);
  for (auto& x : s) {
    switch (d) {
      case dist_t::random:
        x = fr_t::random(rng);
        break;
      case dist_t::zero:
        x = fr_t::zero();
        break;
      case dist_t::one:
        x = fr_t::one();
        break;
      case dist_t::minus_one:
        x = -fr_t::one();
        break;
      case dist_t::boolean_heavy: {
        const uint64_t u = rng() % 100;
        x = u < 45 ? fr_t::zero() : u < 90 ? fr_t::one() : fr_t::random(rng);
        break;
      }
      case dist_t::below_2_64:
        x = fr_t::from_u64(rng());
        break;
    }
  }
  return s;
}

void check_msm(std::mt19937_64& rng, size_t n, dist_t d, const msm_tuning_t& tune = {}, size_t inf_every = 0) {
  const g1_progression_t pts(n, rng, inf_every);
  const std::vector<fr_t> s = make_scalars(rng, n, d);
  const g1_xyzz_t got = msm_host<g1_params>(pts.points, s, tune);
  EXPECT_TRUE(same_point(got, pts.expected(s)))
      << "n=" << n << " dist=" << int(d) << " c=" << tune.window_bits << " chunk=" << tune.chunk;
  if (n <= 64) {
    const g1_jacobian_t naive = msm_naive<g1_params>(pts.points, s);
    EXPECT_TRUE(same_point(got, naive)) << "vs msm_naive, n=" << n;
  }
}

TEST(CudaMsm, EdgeSizes) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(31), size_t(32), size_t(33), size_t(64),
                   size_t(1024), size_t(1025)})
    check_msm(rng, n, dist_t::random);
}

TEST(CudaMsm, SpecialScalars) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (dist_t d : {dist_t::zero, dist_t::one, dist_t::minus_one, dist_t::boolean_heavy}) {
    check_msm(rng, 50, d);
    check_msm(rng, 4097, d);
  }
}

TEST(CudaMsm, InfinityAmongBases) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  check_msm(rng, 40, dist_t::random, {}, 7);
  check_msm(rng, 5000, dist_t::random, {}, 3);
  check_msm(rng, 5000, dist_t::one, {}, 5);
}

TEST(CudaMsm, TuningVariants) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  // Tiny windows and chunks: many windows, deep folding (chunk 2 -> ~12 levels).
  check_msm(rng, 3000, dist_t::random, msm_tuning_t{4, 2, 64});
  check_msm(rng, 3000, dist_t::one, msm_tuning_t{5, 3, 128});
  check_msm(rng, 3000, dist_t::boolean_heavy, msm_tuning_t{13, 16, 32});
  check_msm(rng, 2000, dist_t::random, msm_tuning_t{20, 64, 128});
}

// Batch-affine levels (msm_affine.cu) forced at small n: few, many, and more
// than the runs are long (later levels only copy single points).
TEST(CudaMsm, BatchAffineLevels) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (int levels : {1, 2, 5, 9, 20}) {
    msm_tuning_t t{4, 32, 128};
    t.affine_levels = levels;
    check_msm(rng, 3000, dist_t::random, t);
    check_msm(rng, 3001, dist_t::boolean_heavy, t);
  }
  msm_tuning_t t{13, 2, 64};
  t.affine_levels = 3;
  check_msm(rng, 4097, dist_t::random, t);
  check_msm(rng, 4097, dist_t::one, t);
  t.affine_levels = 4;
  check_msm(rng, 5000, dist_t::random, t, 3);  // infinities among the bases
  msm_tuning_t off{};
  off.affine_levels = 0;
  check_msm(rng, size_t(1) << 18, dist_t::random, off);
}

// Windows with few non-zero digits are written compacted (msm.cu, step 1):
// scalars below 2^64 give, in one call, dense windows, the window that
// holds bit 64 (non-zero only where a carry reaches it, about half the
// terms, spread over many blocks), and empty ones above; boolean-heavy
// ones a dense window 0 and sparse windows above. Each one window per
// group and several, with and without batch-affine levels.
TEST(CudaMsm, WindowsWithFewNonZeroDigits) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (unsigned group : {0u, 1u, 3u})
    for (int levels : {0, 2}) {
      msm_tuning_t t{16, 32, 128};
      t.group_windows = group;
      t.affine_levels = levels;
      check_msm(rng, 5000, dist_t::below_2_64, t);
      check_msm(rng, 5001, dist_t::boolean_heavy, t);
      t.window_bits = 13;  // bit 64 inside a window
      check_msm(rng, 4099, dist_t::below_2_64, t);
    }
  check_msm(rng, (size_t(1) << 17) + 3, dist_t::below_2_64);
  check_msm(rng, 1, dist_t::below_2_64);
}

// Equal and opposite points in one bucket: bases +-P_(j mod 5) and three
// scalar values, so level pairs meet P + P (doubling) and P + (-P) (zero).
TEST(CudaMsm, BatchAffineEqualAndOppositePoints) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const g1_progression_t pts(5, rng);
  const fr_t values[] = {fr_t::random(rng), fr_t::random(rng), fr_t::from_u64(3)};
  for (int levels : {-1, 3, 8}) {
    const size_t n = 20000;
    std::vector<g1_affine_t> bases(n);
    std::vector<fr_t> s(n), folded(5, fr_t::zero());
    for (size_t j = 0; j < n; ++j) {
      const bool neg = (j / 5) % 2 == 1;
      bases[j] = neg ? -pts.points[j % 5] : pts.points[j % 5];
      s[j] = values[rng() % 3];
      folded[j % 5] += neg ? -s[j] : s[j];
    }
    msm_tuning_t t{6, 32, 128};
    t.affine_levels = levels;
    EXPECT_TRUE(same_point(msm_host<g1_params>(bases, s, t), pts.expected(folded))) << "levels=" << levels;
  }
}

TEST(CudaMsm, Large) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  check_msm(rng, (size_t(1) << 16) + 1, dist_t::random);
  check_msm(rng, size_t(1) << 20, dist_t::random);
  check_msm(rng, size_t(1) << 20, dist_t::boolean_heavy);
  // The default batch-affine levels (msm.cu) run from about 2^19 terms on:
  // 2^20 above, and here a size that is no power of two.
  check_msm(rng, (size_t(1) << 21) + 3, dist_t::random);
}

TEST(CudaMsm, BatchAddAndSplit) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (size_t n : {size_t(0), size_t(1), size_t(33), size_t(100000)}) {
    const g1_progression_t pts(n, rng, n > 10 ? 11 : 0);
    const std::vector<fr_t> s = make_scalars(rng, n, dist_t::boolean_heavy);
    std::vector<uint32_t> bitmap((n + 31) / 32 + 1, 0);
    std::vector<bool> ones(n), others(n);
    for (size_t i = 0; i < n; ++i) {
      ones[i] = s[i].is_one();
      others[i] = !ones[i];
      if (ones[i]) bitmap[i / 32] |= 1u << (i % 32);
    }
    const g1_xyzz_t sum = batch_add_host<g1_params>(pts.points, bitmap);
    EXPECT_TRUE(same_point(sum, pts.expected(std::vector<fr_t>(n, fr_t::one()), &ones))) << "batch add n=" << n;
    const auto [d_ones, d_tail] = msm_split_host<g1_params>(pts.points, s, bitmap);
    EXPECT_TRUE(same_point(d_ones, pts.expected(s, &ones))) << "split ones n=" << n;
    EXPECT_TRUE(same_point(d_tail, pts.expected(s, &others))) << "split tail n=" << n;
    EXPECT_TRUE(same_point(d_ones + d_tail, pts.expected(s))) << "split sum n=" << n;
  }
}

// msm_tuning_t::profile: the same point, and every call's phases booked
// (window groups: 2^12 terms at c = 4 run 64 windows in one group).
TEST(CudaMsm, ProfileTimesThePhasesAndChangesNothing) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = 4096;
  const g1_progression_t pts(n, rng, 0);
  const std::vector<fr_t> s = make_scalars(rng, n, dist_t::boolean_heavy);
  msm_profile_t prof;
  msm_tuning_t tune{4, 8, 128};
  tune.profile = &prof;
  const g1_xyzz_t a = msm_host<g1_params>(pts.points, s, tune);
  const g1_xyzz_t b = msm_host<g1_params>(pts.points, s, tune);
  EXPECT_TRUE(same_point(a, pts.expected(s)));
  EXPECT_TRUE(same_point(b, pts.expected(s)));
  EXPECT_EQ(prof.calls, 2u);
  for (double ms :
       {prof.live, prof.digits, prof.sort, prof.affine, prof.accumulate, prof.fold, prof.window_sums, prof.horner})
    EXPECT_GE(ms, 0.0);
  EXPECT_GT(prof.accumulate, 0.0);
  EXPECT_GT(prof.horner, 0.0);
  EXPECT_GT(prof.live, 0.0);
  EXPECT_GE(prof.window_sums, prof.window_sums_first);  // level 0 is part of the window sums
  EXPECT_GT(prof.window_sums_first, 0.0);
  // All scalars zero: no live term, the call returns O and still counts.
  const g1_xyzz_t o = msm_host<g1_params>(pts.points, std::vector<fr_t>(n, fr_t::zero()), tune);
  EXPECT_TRUE(o.is_infinity());
  EXPECT_EQ(prof.calls, 3u);
  // Batch-affine levels are booked apart (none ran above).
  EXPECT_EQ(prof.affine, 0.0);
  tune.affine_levels = 4;
  EXPECT_TRUE(same_point(msm_host<g1_params>(pts.points, s, tune), pts.expected(s)));
  EXPECT_GT(prof.affine, 0.0);
  EXPECT_EQ(prof.calls, 4u);
  // ... in four parts that add up to it.
  EXPECT_GT(prof.affine_forward, 0.0);
  EXPECT_GT(prof.affine_backward, 0.0);
  EXPECT_GE(prof.affine_sources, 0.0);
  EXPECT_GE(prof.affine_tree, 0.0);
  EXPECT_NEAR(prof.affine, prof.affine_sources + prof.affine_forward + prof.affine_tree + prof.affine_backward,
              1e-9 * (1 + prof.affine));
}

TEST(CudaMsm, JacobianConversion) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const g1_jacobian_t p = random_g1(rng).dbl();
  const g1_xyzz_t x = g1_xyzz_t::from_jacobian(p);
  EXPECT_EQ(xyzz_to_jacobian_host<g1_params>(x), p);
  EXPECT_TRUE(xyzz_to_jacobian_host<g1_params>(g1_xyzz_t::infinity()).is_infinity());
}

TEST(CudaMsm, RejectsBadArguments) {
  SZK_REQUIRE_GPU();
  std::vector<g1_affine_t> b(3);
  std::vector<fr_t> s(2);
  EXPECT_THROW(msm_host<g1_params>(b, s), std::runtime_error);
  EXPECT_EQ(msm<g1_params>(nullptr, nullptr, nullptr, 5, nullptr, 0, nullptr), cudaErrorInvalidValue);
  const std::vector<fr_t> s3(3);
  EXPECT_THROW(msm_host<g1_params>(b, s3, msm_tuning_t{21, 32, 128}), std::runtime_error);
  msm_tuning_t bad_levels{};
  bad_levels.affine_levels = 33;
  EXPECT_THROW(msm_host<g1_params>(b, s3, bad_levels), std::runtime_error);
}

}  // namespace
}  // namespace starzk::gpu::test
