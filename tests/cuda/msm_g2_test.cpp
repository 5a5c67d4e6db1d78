// Device MSMs against the host MSM layer (src/msm), typed over the curve:
//   - the G2 MSM, batch addition and split vs msm_pippenger / batch_add
//     (sizes 0, 1, 2, 31, 1000, 2^12 + 1, 2^16; zero, one, r-1 and
//     boolean-heavy scalars; O among the bases; repeated equal bases, which
//     send equal points into one bucket and so reach the doubling branches
//     of madd-2008-s and add-2008-s; small windows and chunks; the folding
//     of chunk partials 2, 3, 5, 32 and 1024 at a time);
//   - the one-call Jacobian MSMs of G1 and G2, split or not, vs split_msm of
//     the host prep_msm (split_from = 0, a few public inputs, n, past n);
//   - the batch-affine levels forced on both curves (few, many, more than
//     the runs are long; repeated and opposite bases, so the level pairs
//     meet doublings and P + (-P); O among the bases);
//   - the device ones bitmap vs prep_msm's bitmap and a host loop.
// Results are compared as group elements (to_affine on the host). Every
// case draws fresh points and scalars from a seeded generator. The MSM's
// window choices are tested in msm_windows_test.cpp.
#include <algorithm>
#include <cstring>
#include <vector>

#include "gpu_test_util.hpp"
#include "msm/batch_add.hpp"
#include "msm_curve_test_util.hpp"
#include "msm/pippenger.hpp"
#include "msm/prep_msm.hpp"

namespace starzk::gpu::test {
namespace {

template <class P>
class CudaMsmCurve : public ::testing::Test {};
using curves_t = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(CudaMsmCurve, curves_t);

TYPED_TEST(CudaMsmCurve, EdgeSizes) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (size_t n : {0, 1, 2, 31, 1000, 4097}) check_msm<TypeParam>(rng, n, random_mix);
}

TYPED_TEST(CudaMsmCurve, Large) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  check_msm<TypeParam>(rng, size_t(1) << 16, random_mix, {}, 4096);
  check_msm<TypeParam>(rng, size_t(1) << 16, boolean_heavy, {}, 4096);
}

TYPED_TEST(CudaMsmCurve, SpecialScalars) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (mix_t m : {all_zero, all_one, all_minus_one, boolean_heavy, mix_t{30, 30, 30}}) {
    check_msm<TypeParam>(rng, 50, m);
    check_msm<TypeParam>(rng, 4097, m, {}, 512);
  }
}

TYPED_TEST(CudaMsmCurve, InfinityAndRepeatedBases) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  check_msm<TypeParam>(rng, 40, random_mix, {}, 0, 7);
  check_msm<TypeParam>(rng, 3000, random_mix, {}, 0, 3);
  check_msm<TypeParam>(rng, 3000, all_one, {}, 0, 5);
  // One base everywhere: with all-one scalars every bucket sums equal points
  // (doubling inside madd), and equal chunk partials meet when folded.
  check_msm<TypeParam>(rng, 64, all_one, {}, 1);
  check_msm<TypeParam>(rng, 3000, all_one, msm_tuning_t{0, 4, 128}, 1);
  check_msm<TypeParam>(rng, 3000, random_mix, {}, 1);
  check_msm<TypeParam>(rng, 2000, boolean_heavy, msm_tuning_t{6, 2, 64}, 2);
  check_msm<TypeParam>(rng, 2000, all_minus_one, {}, 2, 9);
}

TYPED_TEST(CudaMsmCurve, TuningVariants) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  check_msm<TypeParam>(rng, 3000, random_mix, msm_tuning_t{4, 2, 64}, 700);
  check_msm<TypeParam>(rng, 3000, all_one, msm_tuning_t{5, 3, 128}, 700);
  check_msm<TypeParam>(rng, 3000, boolean_heavy, msm_tuning_t{13, 16, 32}, 700);
}

// The folding of chunk partials (msm_fold.cu) with every kind of step: all
// ones put every term in one bucket (chunk 2: ~n/2 partials there, folded
// in up to ~11 steps at a stride that is no power of two for 3 and 5);
// boolean-heavy and random scalars leave one huge bucket beside many of a
// few partials, or many buckets of a few; O among the bases and repeated
// bases make O partials and equal partials meet; a bucket of one chunk
// (n = 2) or two (n = 33 in chunks of 32), and ways above most buckets'
// partials (1024: one step, two for the all-one bucket of 1501).
TYPED_TEST(CudaMsmCurve, FoldingWays) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (unsigned ways : {2u, 3u, 5u, 32u, 1024u}) {
    msm_tuning_t t{0, 2, 64};
    t.fold_ways = ways;
    check_msm<TypeParam>(rng, 3001, all_one, t, 0, 97);
    check_msm<TypeParam>(rng, 3000, boolean_heavy, t);
    t.chunk = 3;
    check_msm<TypeParam>(rng, 2000, random_mix, t, 5);
    check_msm<TypeParam>(rng, 2, all_one, t);
    t.window_bits = 6;
    t.chunk = 32;
    check_msm<TypeParam>(rng, 33, all_one, t);
    check_msm<TypeParam>(rng, 4097, all_minus_one, t, 0, 13);
  }
  msm_tuning_t bad{};
  bad.fold_ways = 1;
  const auto bases = make_bases<TypeParam>(rng, 3, 0, 0);
  EXPECT_THROW(msm_host<TypeParam>(bases, make_scalars(rng, 3, random_mix), bad), std::runtime_error);
}

TYPED_TEST(CudaMsmCurve, BatchAffineLevels) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (int levels : {1, 2, 5, 9, 20}) {
    msm_tuning_t t{4, 32, 128};
    t.affine_levels = levels;
    check_msm<TypeParam>(rng, 3000, random_mix, t);
    check_msm<TypeParam>(rng, 3001, boolean_heavy, t, 0, 13);
  }
  msm_tuning_t t{13, 2, 64};
  t.affine_levels = 3;
  check_msm<TypeParam>(rng, 4097, random_mix, t, 3);     // equal points: doublings
  check_msm<TypeParam>(rng, 4097, all_minus_one, t, 2);  // runs of one point
  t.affine_levels = -1;                                  // the planner's choice
  check_msm<TypeParam>(rng, size_t(1) << 15, random_mix, t, 4096);

  // +P and -P with equal scalars meet in one bucket (their sum is O), and
  // equal points with equal scalars double: bases +-P_(j mod 5), three
  // scalar values.
  using P = TypeParam;
  const auto five = make_bases<P>(rng, 5);
  const fr_t values[] = {fr_t::random(rng), fr_t::random(rng), fr_t::from_u64(3)};
  const size_t n = 20000;
  std::vector<affine_t<P>> bases(n);
  std::vector<fr_t> sc(n);
  for (size_t j = 0; j < n; ++j) {
    bases[j] = (j / 5) % 2 == 1 ? -five[j % 5] : five[j % 5];
    sc[j] = values[rng() % 3];
  }
  const jacobian_t<P> want = msm_pippenger<P>(std::span<const affine_t<P>>(bases), sc);
  for (int levels : {3, 8}) {
    msm_tuning_t u{6, 32, 128};
    u.affine_levels = levels;
    EXPECT_TRUE(same<P>(msm_host<P>(bases, sc, u), want)) << P::name << " levels=" << levels;
  }
}

TYPED_TEST(CudaMsmCurve, BatchAddAndSplit) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (size_t n : {0, 1, 33, 20000}) {
    const auto bases = make_bases<P>(rng, n, 1000, n > 10 ? 11 : 0);
    const auto s = make_scalars(rng, n, boolean_heavy);
    const prep_msm_t prep = prep_msm(s);
    std::vector<uint32_t> bitmap((n + 31) / 32 + 1, 0);
    if (n) std::memcpy(bitmap.data(), prep.ones.data(), (n + 7) / 8);  // little-endian: same bits in 32-bit words
    std::vector<fr_t> tail_s = s;
    for (size_t i = 0; i < n; ++i)
      if ((bitmap[i / 32] >> (i % 32)) & 1) tail_s[i] = fr_t::zero();
    const std::span<const affine_t<P>> b(bases);
    const jacobian_t<P> ones = starzk::batch_add<P>(b, prep.ones), tail = msm_pippenger<P>(b, tail_s);
    EXPECT_TRUE(same<P>(batch_add_host<P>(bases, bitmap), ones)) << "batch add n=" << n;
    const auto [d_ones, d_tail] = msm_split_host<P>(bases, s, bitmap, {});
    EXPECT_TRUE(same<P>(d_ones, ones)) << "split ones n=" << n;
    EXPECT_TRUE(same<P>(d_tail, tail)) << "split tail n=" << n;
  }
}

TYPED_TEST(CudaMsmCurve, JacobianOneCall) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (size_t n : {0, 1, 2, 33, 1000, 4097}) {
    const auto bases = make_bases<P>(rng, n, 500, n > 100 ? 97 : 0);
    const std::span<const affine_t<P>> b(bases);
    for (mix_t m : {random_mix, boolean_heavy, all_one, all_zero}) {
      const auto s = make_scalars(rng, n, m);
      const jacobian_t<P> want = msm_pippenger<P>(b, s);
      EXPECT_TRUE(same<P>(msm_jacobian_host<P>(bases, s, msm_no_split, {}), want)) << "no split n=" << n;
      for (size_t from : {size_t(0), std::min<size_t>(n, 5), n, n + 3}) {
        const jacobian_t<P> got = msm_jacobian_host<P>(bases, s, from, {});
        if (from <= n) {
          const jacobian_t<P> host = split_msm<P>(b, prep_msm(s, from));
          EXPECT_TRUE(host == want) << "host split_msm disagrees with msm_pippenger";
        }
        EXPECT_TRUE(same<P>(got, want)) << P::name << " split n=" << n << " split_from=" << from
                                        << " mix=" << m.zero_pct << "/" << m.one_pct;
      }
    }
  }
}

TYPED_TEST(CudaMsmCurve, JacobianInfinityEncoding) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const auto bases = make_bases<P>(rng, 7);
  // n = 0 and all-zero scalars give O as the host encodes it, (1 : 1 : 0).
  const jacobian_t<P> inf = jacobian_t<P>::infinity();
  for (size_t from : {msm_no_split, size_t(0)}) {
    const jacobian_t<P> empty = msm_jacobian_host<P>({}, {}, from, {});
    EXPECT_TRUE(empty.x == inf.x && empty.y == inf.y && empty.z == inf.z);
    const jacobian_t<P> zero = msm_jacobian_host<P>(bases, std::vector<fr_t>(7, fr_t::zero()), from, {});
    EXPECT_TRUE(zero.x == inf.x && zero.y == inf.y && zero.z == inf.z);
  }
  // P + (-P) through the split with split_from = 1: the tail holds P (index 0
  // is forced there), the ones -P; their sum, added on the device, is O.
  const std::vector<affine_t<P>> opposite = {bases[1], -bases[1]};
  const jacobian_t<P> cancel = msm_jacobian_host<P>(opposite, std::vector<fr_t>{fr_t::one(), fr_t::one()}, 1, {});
  EXPECT_TRUE(cancel.is_infinity());
}

TEST(CudaOnesBitmap, MatchesPrepMsm) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (size_t n : {1, 2, 31, 32, 33, 1000, 100001}) {
    const auto s = make_scalars(rng, n, mix_t{30, 50, 0});
    for (size_t from : {size_t(0), size_t(7), n / 2, n, n + 40, msm_no_split}) {
      // Device buffer with one guard word past the (n+31)/32 written ones.
      const size_t words = (n + 31) / 32;
      device_buffer_t ds(n * sizeof(fr_t)), dm((words + 1) * sizeof(uint32_t));
      ds.upload(s.data(), n * sizeof(fr_t));
      std::vector<uint32_t> got(words + 1, 0xa5a5a5a5u);
      dm.upload(got.data(), got.size() * sizeof(uint32_t));
      stream_t st;
      check_cuda(ones_bitmap(dm.as<uint32_t>(), ds.as<fr_t>(), n, from, st.get()), "ones_bitmap");
      st.sync();
      dm.download(got.data(), got.size() * sizeof(uint32_t));
      EXPECT_EQ(got[words], 0xa5a5a5a5u) << "wrote past (n+31)/32 words, n=" << n;
      for (size_t i = 0; i < n; ++i) {
        const bool want = i >= from && s[i].is_one();
        ASSERT_EQ(((got[i / 32] >> (i % 32)) & 1) != 0, want) << "n=" << n << " from=" << from << " i=" << i;
      }
      for (size_t i = n; i < words * 32; ++i) ASSERT_EQ((got[i / 32] >> (i % 32)) & 1, 0u) << "bit past n";
      if (from <= n) {
        const prep_msm_t prep = prep_msm(s, from);
        EXPECT_EQ(std::memcmp(got.data(), prep.ones.data(), (n + 7) / 8), 0) << "vs prep_msm, n=" << n;
      }
    }
  }
  EXPECT_TRUE(ones_bitmap_host({}, 0).empty());
}

TEST(CudaMsmG2, RejectsBadArguments) {
  SZK_REQUIRE_GPU();
  std::vector<g2_affine_t> b(3);
  std::vector<fr_t> s(2), s3(3);
  EXPECT_THROW(msm_host<g2_params>(b, s), std::runtime_error);
  EXPECT_THROW(msm_jacobian_host<g2_params>(b, s), std::runtime_error);
  EXPECT_THROW(msm_host<g2_params>(b, s3, msm_tuning_t{21, 32, 128}), std::runtime_error);
  EXPECT_EQ(msm<g2_params>(nullptr, nullptr, nullptr, 5, nullptr, 0, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(msm_jacobian<g2_params>(nullptr, nullptr, nullptr, 0, 0, nullptr, 0, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(ones_bitmap(nullptr, nullptr, 5, 0, nullptr), cudaErrorInvalidValue);
  // Scratch one byte short of the query.
  const size_t need = msm_jacobian_scratch_bytes<g1_params>(3, true);
  device_buffer_t out(sizeof(g1_jacobian_t)), db(3 * sizeof(g1_affine_t)), ds(3 * sizeof(fr_t)), scr(need);
  EXPECT_EQ(msm_jacobian<g1_params>(out.as<g1_jacobian_t>(), db.as<g1_affine_t>(), ds.as<fr_t>(), 3, 0, scr.get(),
                                    need - 1, nullptr),
            cudaErrorInvalidValue);
}

}  // namespace
}  // namespace starzk::gpu::test
