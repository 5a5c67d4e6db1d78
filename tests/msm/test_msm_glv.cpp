// The GLV form of the CPU MSM (msm_config_t::glv, ec/glv.hpp) against the
// 255-bit form on fresh random bases and scalars (the seed is printed with
// any failure): sizes 0, 1, 2, 255, 256, 2^10 + 3 and 2^14 (G1; G2 up to
// 2^10 + 3), scalars uniform, all zero, all one, boolean-heavy (45% zero,
// 45% one), all r − 1, and the split's edge values (lambda, mu, mu/2,
// mu/2 + 1, their negatives); msm_naive as well up to 256 terms. Then every
// window width (the top digit reads the sign of a negative half), the
// on-the-fly endomorphism against the table, the indexed form, split_msm,
// thread counts with several slices per window, and the plan's windows for
// 127-bit scalars.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ec/glv.hpp"
#include "msm/pippenger.hpp"
#include "msm/prep_msm.hpp"
#include "msm_test_util.hpp"

namespace starzk {
namespace {

template <class P>
class MsmGlv : public ::testing::Test {};
using curves = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(MsmGlv, curves);

uint64_t fresh_seed() { return (uint64_t(std::random_device{}()) << 32) | std::random_device{}(); }

fr_t fr_from_u128(unsigned __int128 v) { return fr_t::from_canonical({uint64_t(v), uint64_t(v >> 64), 0, 0}); }

enum class kind_t { uniform, zero, one, boolean_heavy, minus_one, split_edges };
const char* kind_name(kind_t k) {
  static const char* names[] = {"uniform", "zero", "one", "boolean-heavy", "r-1", "split-edges"};
  return names[int(k)];
}

std::vector<fr_t> scalars_of(kind_t kind, std::mt19937_64& g, size_t n) {
  const fr_t mu = fr_from_u128(glv_mu), half = fr_from_u128(glv_mu / 2), one = fr_t::one();
  const std::vector<fr_t> edges = {-mu, mu, half, half + one, half * mu + half, (half + one) * mu + half + one, -one};
  std::vector<fr_t> s(n);
  for (size_t i = 0; i < n; ++i) {
    switch (kind) {
      case kind_t::uniform:
        s[i] = fr_t::random(g);
        break;
      case kind_t::zero:
        s[i] = fr_t::zero();
        break;
      case kind_t::one:
        s[i] = one;
        break;
      case kind_t::boolean_heavy: {
        const unsigned p = unsigned(g() % 100);
        s[i] = p < 45 ? fr_t::zero() : p < 90 ? one : fr_t::random(g);
        break;
      }
      case kind_t::minus_one:
        s[i] = -one;
        break;
      case kind_t::split_edges: {
        const fr_t e = edges[g() % edges.size()];
        s[i] = (g() & 1) ? -e : e;
        break;
      }
    }
  }
  return s;
}

msm_config_t config(bool glv, unsigned threads) {
  msm_config_t cfg;
  cfg.glv = glv;
  cfg.threads = threads;
  return cfg;
}

TYPED_TEST(MsmGlv, MatchesThe255BitFormOnEverySizeAndKind) {
  using P = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 g(seed);
  std::vector<size_t> sizes = {0, 1, 2, 255, 256, 1027};
  if (std::is_same_v<P, g1_params>) sizes.push_back(size_t(1) << 14);
  const auto bases = test::random_bases<P>(g, sizes.back());
  for (size_t n : sizes) {
    const std::span<const affine_t<P>> b = std::span(bases).first(n);
    for (kind_t kind :
         {kind_t::uniform, kind_t::zero, kind_t::one, kind_t::boolean_heavy, kind_t::minus_one, kind_t::split_edges}) {
      const auto s = scalars_of(kind, g, n);
      const unsigned threads = unsigned(n % 3) + 1;
      const auto glv = msm_pippenger<P>(b, s, config(true, threads));
      EXPECT_EQ(glv, msm_pippenger<P>(b, s, config(false, threads))) << P::name << " n " << n << " " << kind_name(kind);
      if (n <= 256) {
        EXPECT_EQ(glv, msm_naive<P>(b, s)) << P::name << " n " << n << " " << kind_name(kind);
      }
    }
  }
}

TYPED_TEST(MsmGlv, EveryWindowWidth) {
  using P = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 g(seed);
  const size_t n = 150;
  const auto bases = test::random_bases<P>(g, n);
  auto s = scalars_of(kind_t::split_edges, g, n);
  for (size_t i = 0; i < n; i += 2) s[i] = fr_t::random(g);
  const auto expect = msm_naive<P>(bases, s);
  for (unsigned c = 1; c <= 16; ++c) {
    msm_config_t cfg = config(true, 2);
    cfg.window_bits = c;
    EXPECT_EQ(msm_pippenger<P>(bases, s, cfg), expect) << P::name << " c = " << c;
  }
}

TYPED_TEST(MsmGlv, OnTheFlyEndomorphismIndexedAndSplit) {
  using P = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 g(seed);
  const size_t n = 1500;
  auto bases = test::random_bases<P>(g, n);
  for (size_t i = 0; i < n; i += 97) bases[i] = affine_t<P>::infinity();
  for (size_t i = 5; i < n; i += 89) bases[i] = -bases[1];
  const auto s = scalars_of(kind_t::uniform, g, n);
  const auto expect = msm_pippenger<P>(bases, s, config(false, 2));
  for (unsigned threads : {1u, 2u, 64u}) {
    msm_config_t table = config(true, threads), fly = table;
    fly.glv_table_max_bytes = 0;
    EXPECT_EQ(msm_pippenger<P>(bases, s, table), expect) << "threads " << threads;
    EXPECT_EQ(msm_pippenger<P>(bases, s, fly), expect) << "threads " << threads;
  }

  // Indexed: every third base, one repeated.
  std::vector<uint32_t> idx;
  for (uint32_t i = 0; i < n; i += 3) idx.push_back(i);
  idx.push_back(3);
  const auto si = scalars_of(kind_t::split_edges, g, idx.size());
  EXPECT_EQ(msm_pippenger_indexed<P>(bases, idx, si, config(true, 2)),
            msm_pippenger_indexed<P>(bases, idx, si, config(false, 2)));

  // split_msm: the tail in either form.
  const auto sb = scalars_of(kind_t::boolean_heavy, g, n);
  const prep_msm_t prep = prep_msm(sb, 3, 2);
  EXPECT_EQ(split_msm<P>(bases, prep, config(true, 2)), split_msm<P>(bases, prep, config(false, 2)));
  EXPECT_EQ(split_msm<P>(bases, prep, config(true, 2)), msm_pippenger<P>(bases, sb, config(false, 2)));
}

TEST(MsmGlvPlan, WindowsCover128Bits) {
  for (unsigned c = 1; c <= msm_config_t::max_window_bits; ++c) {
    const msm_plan_t p = msm_plan(1000, 2, c, 127);
    EXPECT_EQ(p.windows, (128 + c - 1) / c) << c;
    EXPECT_GE(p.windows * c, 128u) << c;  // the top digit reads the sign bit
    EXPECT_LT((p.windows - 1) * c, 128u) << c;
  }
  // Half the windows of 255-bit scalars where c divides 128.
  EXPECT_EQ(msm_plan(1000, 2, 16, 127).windows * 2, msm_plan(1000, 2, 16).windows);
}

}  // namespace
}  // namespace starzk
