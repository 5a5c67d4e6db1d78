// Device MSMs against the host MSM layer (src/msm), typed over the curve:
//   - the G2 MSM, batch addition and split vs msm_pippenger / batch_add
//     (sizes 0, 1, 2, 31, 1000, 2^12 + 1, 2^16; zero, one, r-1 and
//     boolean-heavy scalars; O among the bases; repeated equal bases, which
//     send equal points into one bucket and so reach the doubling branches
//     of madd-2008-s and add-2008-s; small windows and chunks);
//   - the one-call Jacobian MSMs of G1 and G2, split or not, vs split_msm of
//     the host prep_msm (split_from = 0, a few public inputs, n, past n);
//   - one window per digit group (group_windows), and groups of five;
//   - the window taken from the scalars' bit lengths (a witness's mix
//     narrower than the model's, random scalars and a fixed window not);
//   - the long scalars listed apart for the windows above 0 (at the list's
//     room and past it, none, boundary values, groups, levels);
//   - the batch-affine levels forced on both curves (few, many, more than
//     the runs are long; repeated and opposite bases, so the level pairs
//     meet doublings and P + (-P); O among the bases);
//   - the device ones bitmap vs prep_msm's bitmap and a host loop.
// Results are compared as group elements (to_affine on the host). Every
// case draws fresh points and scalars from a seeded generator.
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

template <class P>
void check_msm(std::mt19937_64& rng, size_t n, mix_t m, const msm_tuning_t& tune = {}, size_t distinct = 0,
               size_t inf_every = 0) {
  const auto bases = make_bases<P>(rng, n, distinct, inf_every);
  const auto s = make_scalars(rng, n, m);
  const xyzz_t<P> got = msm_host<P>(bases, s, tune);
  const jacobian_t<P> want = msm_pippenger<P>(std::span<const affine_t<P>>(bases), s);
  EXPECT_TRUE(same<P>(got, want)) << P::name << " n=" << n << " mix=" << m.zero_pct << "/" << m.one_pct << "/"
                                  << m.minus_one_pct << " c=" << tune.window_bits << " chunk=" << tune.chunk
                                  << " distinct=" << distinct << " inf_every=" << inf_every;
}

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

// One window per digit group (msm_tuning_t::group_windows = 1, the form a
// body takes when the default groups do not fit its budget): the same sums
// with every window its own group, with and without batch-affine levels,
// and less scratch than the default, whose groups hold every window at
// these sizes.
TYPED_TEST(CudaMsmCurve, OneWindowPerGroup) {
  SZK_REQUIRE_GPU();
  using P = TypeParam;
  auto rng = seeded_rng();
  msm_tuning_t narrow;
  narrow.group_windows = 1;
  for (size_t n : {1, 2, 1000, 4097}) check_msm<P>(rng, n, random_mix, narrow);
  check_msm<P>(rng, 3001, boolean_heavy, narrow, 0, 13);
  check_msm<P>(rng, size_t(1) << 16, random_mix, narrow, 4096);
  msm_tuning_t t{6, 32, 128};
  t.group_windows = 1;
  t.affine_levels = 3;
  check_msm<P>(rng, 3000, random_mix, t);
  t.group_windows = 5;  // groups of five windows, the last one shorter
  check_msm<P>(rng, 3000, boolean_heavy, t, 700);
  const size_t n = size_t(1) << 20;
  EXPECT_LT(msm_scratch_bytes<P>(n, narrow), msm_scratch_bytes<P>(n));
}

// The window from the scalars (msm.cu, step 0b). Scalars of a generated
// witness's mix (49.3% zero, 49.3% one, 1.4% random) take a narrower window
// than the model's when the scratch holds its plan, and at most the
// model's when the scratch holds only the model's plan; random scalars and
// a fixed window keep theirs. Every call's point against the host
// Pippenger.
enum class window_is_t { model, narrower, at_most_model };

template <class P>
void check_window_choice(std::mt19937_64& rng, const std::vector<fr_t>& s, size_t scratch, const msm_tuning_t& tune,
                         unsigned model, window_is_t want) {
  const size_t n = s.size();
  const auto bases = make_bases<P>(rng, n, 4096);
  stream_t st;
  device_buffer_t db(n * sizeof(affine_t<P>)), ds(n * sizeof(fr_t)), dr(sizeof(xyzz_t<P>)), dscr(scratch);
  db.upload(bases.data(), db.size());
  ds.upload(s.data(), ds.size());
  msm_profile_t prof;
  msm_tuning_t t = tune;
  t.profile = &prof;
  ASSERT_EQ(msm<P>(dr.as<xyzz_t<P>>(), db.as<affine_t<P>>(), ds.as<fr_t>(), n, dscr.get(), scratch, st.get(), t),
            cudaSuccess);
  st.sync();
  xyzz_t<P> got;
  dr.download(&got, sizeof got);
  EXPECT_TRUE(same<P>(got, msm_pippenger<P>(std::span<const affine_t<P>>(bases), s))) << P::name << " n=" << n;
  const unsigned c = prof.window_bits;
  switch (want) {
    case window_is_t::model:
      EXPECT_EQ(c, model) << P::name;
      break;
    case window_is_t::narrower:
      EXPECT_LT(c, model) << P::name;
      EXPECT_GE(c, 2u) << P::name;
      break;
    case window_is_t::at_most_model:
      EXPECT_LE(c, model) << P::name;
      EXPECT_GE(c, 2u) << P::name;
      break;
  }
}

TYPED_TEST(CudaMsmCurve, WindowFromTheScalars) {
  SZK_REQUIRE_GPU();
  using P = TypeParam;
  auto rng = seeded_rng();
  const size_t n = (size_t(1) << 16) + 5;
  std::vector<fr_t> witness(n), random(n);
  for (size_t i = 0; i < n; ++i) {
    const unsigned u = unsigned(rng() % 1000);
    witness[i] = u < 493 ? fr_t::zero() : u < 986 ? fr_t::one() : fr_t::random(rng);
    random[i] = fr_t::random(rng);
  }
  // The model's window at n: the one a random call takes.
  msm_profile_t prof;
  msm_tuning_t probe;
  probe.profile = &prof;
  (void)msm_host<P>(make_bases<P>(rng, n, 4096), random, probe);
  const unsigned model = prof.window_bits;
  ASSERT_GT(model, 2u);
  const size_t exact = msm_scratch_bytes<P>(n);
  msm_tuning_t most_windows;
  most_windows.window_bits = 2;  // the largest plan
  const size_t roomy = std::max(exact, msm_scratch_bytes<P>(n, most_windows));
  check_window_choice<P>(rng, random, roomy, {}, model, window_is_t::model);
  check_window_choice<P>(rng, witness, roomy, {}, model, window_is_t::narrower);
  check_window_choice<P>(rng, witness, exact, {}, model, window_is_t::at_most_model);
  msm_tuning_t fixed;
  fixed.window_bits = model;
  check_window_choice<P>(rng, witness, roomy, fixed, model, window_is_t::model);
}

// The long scalars listed apart (msm.cu step 0c): a live scalar of c bits
// or more is long, and where at most n/16 are and a window above 0 is
// sparse, those windows' digits are cut from the long ones only. Exactly
// n/16 long scalars are listed and n/16 + 1 are not (the profile's
// long_terms says which), none at all leaves the upper windows empty; the
// long values include 2^(c-1) (long, yet no digit above window 0),
// 2^(c-1) + 1 (a carry into window 1), 2^c - 1, 2^c and r - 1, the short
// ones 0, 1 and values up to 2^(c-1) - 1. One window per group, groups of
// three, batch-affine levels, and the model's window on a witness's mix
// (its flags rewritten for a narrower window, 0b). Every call's point
// against the host Pippenger.
template <class P>
void check_long_apart(std::mt19937_64& rng, const std::vector<fr_t>& s, const msm_tuning_t& tune,
                      unsigned want_listed) {
  const size_t n = s.size();
  const auto bases = make_bases<P>(rng, n, 4096);
  msm_profile_t prof;
  msm_tuning_t t = tune;
  t.profile = &prof;
  const xyzz_t<P> got = msm_host<P>(bases, s, t);
  EXPECT_TRUE(same<P>(got, msm_pippenger<P>(std::span<const affine_t<P>>(bases), s)))
      << P::name << " n=" << n << " c=" << prof.window_bits << " group_windows=" << tune.group_windows;
  EXPECT_EQ(prof.long_terms, want_listed) << P::name << " c=" << prof.window_bits;
}

// n scalars of c-bit windows: n_long long ones at distinct places, the
// rest short (45% 0, 45% 1, 10% other values in [2, 2^(c-1))).
inline std::vector<fr_t> long_and_short(std::mt19937_64& rng, size_t n, size_t n_long, unsigned c) {
  std::vector<fr_t> s(n);
  const uint64_t half = uint64_t(1) << (c - 1);
  for (auto& x : s) {
    const unsigned u = unsigned(rng() % 20);
    x = u < 9 ? fr_t::zero() : u < 18 ? fr_t::one() : fr_t::from_u64(2 + rng() % (half - 2));
  }
  std::vector<size_t> at(n);
  for (size_t i = 0; i < n; ++i) at[i] = i;
  std::shuffle(at.begin(), at.end(), rng);
  const fr_t longs[] = {fr_t::from_u64(half), fr_t::from_u64(half + 1), fr_t::from_u64(2 * half - 1),
                        fr_t::from_u64(2 * half), -fr_t::one()};
  for (size_t k = 0; k < n_long; ++k) s[at[k]] = k % 6 < 5 ? longs[k % 6] : fr_t::random(rng);
  return s;
}

TYPED_TEST(CudaMsmCurve, LongScalarsListedApart) {
  SZK_REQUIRE_GPU();
  using P = TypeParam;
  auto rng = seeded_rng();
  const size_t n = (size_t(1) << 14) + 3, cap = n / 16;
  const unsigned c = 10;
  msm_tuning_t t{c, 32, 128};
  check_long_apart<P>(rng, long_and_short(rng, n, cap, c), t, unsigned(cap));
  check_long_apart<P>(rng, long_and_short(rng, n, cap + 1, c), t, 0);
  check_long_apart<P>(rng, long_and_short(rng, n, 0, c), t, 0);
  for (unsigned group : {1u, 3u}) {
    msm_tuning_t g = t;
    g.group_windows = group;
    check_long_apart<P>(rng, long_and_short(rng, n, 700, c), g, 700);
  }
  msm_tuning_t levels = t;
  levels.affine_levels = 2;
  check_long_apart<P>(rng, long_and_short(rng, n, 700, c), levels, 700);
  // The model's window on a witness's mix: the long ones are those of at
  // least the window the call took.
  std::vector<fr_t> witness(n);
  for (auto& x : witness) {
    const unsigned u = unsigned(rng() % 1000);
    x = u < 493 ? fr_t::zero() : u < 986 ? fr_t::one() : fr_t::random(rng);
  }
  const auto bases = make_bases<P>(rng, n, 4096);
  msm_profile_t prof;
  msm_tuning_t model;
  model.profile = &prof;
  EXPECT_TRUE(
      same<P>(msm_host<P>(bases, witness, model), msm_pippenger<P>(std::span<const affine_t<P>>(bases), witness)))
      << P::name;
  unsigned longer = 0;
  for (const fr_t& x : witness) longer += limbs::bit_length(x.to_canonical()) >= prof.window_bits;
  EXPECT_GT(longer, 0u);
  EXPECT_EQ(prof.long_terms, longer) << P::name << " c=" << prof.window_bits;
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
