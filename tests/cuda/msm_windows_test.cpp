// The device MSM's windows against the host MSM layer (src/msm), typed
// over the curve (G1, G2):
//   - one window per digit group (group_windows), and groups of five;
//   - the window taken from the scalars' bit lengths (a witness's mix
//     narrower than the model's, random scalars and a fixed window not);
//   - the long scalars listed apart for the windows above 0 (at the list's
//     room and past it, none, boundary values, groups, levels).
// Results are compared as group elements (to_affine on the host). Every
// case draws fresh points and scalars from a seeded generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "gpu_test_util.hpp"
#include "msm/pippenger.hpp"
#include "msm_curve_test_util.hpp"

namespace starzk::gpu::test {
namespace {

template <class P>
class CudaMsmWindows : public ::testing::Test {};
using curves_t = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(CudaMsmWindows, curves_t);

// One window per digit group (msm_tuning_t::group_windows = 1, the form a
// body takes when the default groups do not fit its budget): the same sums
// with every window its own group, with and without batch-affine levels,
// and less scratch than the default, whose groups hold every window at
// these sizes.
TYPED_TEST(CudaMsmWindows, OneWindowPerGroup) {
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

// n scalars of a generated witness's mix: 49.3% zero, 49.3% one, 1.4%
// random.
std::vector<fr_t> witness_mix(std::mt19937_64& rng, size_t n) {
  std::vector<fr_t> s(n);
  for (fr_t& x : s) {
    const unsigned u = unsigned(rng() % 1000);
    x = u < 493 ? fr_t::zero() : u < 986 ? fr_t::one() : fr_t::random(rng);
  }
  return s;
}

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

TYPED_TEST(CudaMsmWindows, WindowFromTheScalars) {
  SZK_REQUIRE_GPU();
  using P = TypeParam;
  auto rng = seeded_rng();
  const size_t n = (size_t(1) << 16) + 5;
  const std::vector<fr_t> witness = witness_mix(rng, n);
  std::vector<fr_t> random(n);
  for (fr_t& x : random) x = fr_t::random(rng);
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

TYPED_TEST(CudaMsmWindows, LongScalarsListedApart) {
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
  const std::vector<fr_t> witness = witness_mix(rng, n);
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

}  // namespace
}  // namespace starzk::gpu::test
