// The NTT's stages in IFMA lanes (ntt/ntt_lanes.cpp) against the scalar
// stages (ff_path::set_wide(false)), entry by entry: every size from the
// lanes' smallest to past the 4096-element chunk (the cross-chunk stages),
// thread counts that cut the runs unevenly, both root conventions, fresh
// random vectors and the edge vectors (all 0, all 1, all r − 1, a lone
// r − 1), through ntt, intt and the coset forms; the scalings alone. Skipped where the CPU
// lacks AVX-512 IFMA.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ff/fp_x8_ifma.hpp"
#include "ntt/ntt.hpp"
#include "ntt/ntt_lanes.hpp"
#include "ntt_test_util.hpp"

namespace starzk {
namespace {

// The transform with the lanes on and off; restores the switch.
template <class F>
std::pair<std::vector<fr_t>, std::vector<fr_t>> both_ways(const std::vector<fr_t>& a, F transform) {
  const bool was = ff_path::wide();
  std::vector<fr_t> lanes = a, scalar = a;
  ff_path::set_wide(true);
  transform(lanes);
  ff_path::set_wide(false);
  transform(scalar);
  ff_path::set_wide(was);
  return {lanes, scalar};
}

class NttLanes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ff_path::cpu_has_ifma()) GTEST_SKIP() << "CPU without AVX-512 IFMA: the lane NTT is never used";
  }
  std::mt19937_64 g{std::random_device{}()};
};

TEST_F(NttLanes, MatchesScalarStagesEverySize) {
  for (unsigned k = ntt_lanes_min_log; k <= 15; ++k) {
    const auto conv = k % 2 ? root_convention_t::bellman : root_convention_t::snarkjs;
    const domain_t d(k, conv, 2);
    const auto a = test::random_vector(g, d.size());
    for (unsigned threads : {1u, 2u, 3u}) {
      const auto [f, f_ref] = both_ways(a, [&](std::vector<fr_t>& v) { ntt(v, d, threads); });
      EXPECT_EQ(f, f_ref) << "ntt k = " << k << " threads " << threads;
      const auto [i, i_ref] = both_ways(a, [&](std::vector<fr_t>& v) { intt(v, d, threads); });
      EXPECT_EQ(i, i_ref) << "intt k = " << k << " threads " << threads;
    }
    const fr_t shift = fr_t::random(g);
    const auto [c, c_ref] = both_ways(a, [&](std::vector<fr_t>& v) { coset_ntt(v, d, shift, 2); });
    EXPECT_EQ(c, c_ref) << "coset_ntt k = " << k;
    const auto [ci, ci_ref] = both_ways(a, [&](std::vector<fr_t>& v) { coset_intt(v, d, shift, 2); });
    EXPECT_EQ(ci, ci_ref) << "coset_intt k = " << k;
  }
}

// The scalings on their own, at lengths that are and are not the lanes'
// (a multiple of 8, at least 64), split over threads unevenly.
TEST_F(NttLanes, ScalingsMatchScalar) {
  for (size_t n : {size_t(64), size_t(72), size_t(1000), size_t(4104), size_t(4101)}) {
    const auto a = test::random_vector(g, n);
    const fr_t s = fr_t::random(g);
    for (unsigned threads : {1u, 3u}) {
      const auto [p, p_ref] = both_ways(a, [&](std::vector<fr_t>& v) { scale_by_powers(v, s, threads); });
      EXPECT_EQ(p, p_ref) << "scale_by_powers n = " << n << " threads " << threads;
      const auto [c, c_ref] = both_ways(a, [&](std::vector<fr_t>& v) { scale(v, s, threads); });
      EXPECT_EQ(c, c_ref) << "scale n = " << n << " threads " << threads;
    }
  }
}

TEST_F(NttLanes, EdgeVectors) {
  for (unsigned k : {ntt_lanes_min_log, 9u, 13u}) {
    const domain_t d(k, root_convention_t::snarkjs, 2);
    const size_t n = d.size();
    std::vector<fr_t> lone(n, fr_t::zero());
    lone[n / 3] = -fr_t::one();
    for (const auto& a : {std::vector<fr_t>(n, fr_t::zero()), std::vector<fr_t>(n, fr_t::one()),
                          std::vector<fr_t>(n, -fr_t::one()), lone}) {
      const auto [f, f_ref] = both_ways(a, [&](std::vector<fr_t>& v) { ntt(v, d, 2); });
      EXPECT_EQ(f, f_ref) << "k = " << k;
    }
  }
}

}  // namespace
}  // namespace starzk
