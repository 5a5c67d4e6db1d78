// The batched G1 membership test (msm/batch_membership.hpp) on fresh random
// points, with the OS's randomness as its source: sets of G1 points pass
// at edge sizes, thread counts and both bucket forms, with O, repeated
// points and P, −P pairs mixed in; a set with one bad point at a random
// place fails, for a bad component of each prime of the cofactor (3: T,
// −T, P + T; 11, 10177, 859267, 52437899: P + S and S, S of that order).
// The torsion points are made from random curve points R as
// S = [h/ℓ²]([r] R) (ℓ ≠ 3) or [h/3]([r] R) (ec_test_util.hpp, which
// checks the division exact and [ℓ] S = O; S outside G1 checked here), so
// a wrong prime or constant cannot pass unseen. Part A alone must pass sets whose
// points are bad only for ℓ ≠ 3 (their 3-components are O) and agree with
// the definition ([h r / 3] R = O) on single curve points; all_in_g1 must
// run it (a source that blinds part B to 3-components); a failing source
// is an error, not an answer. The same for G2 (part B alone): fresh sets
// pass, and one point with a component of each small prime of the twist's
// cofactor (13, 23, 2713, 11953, 262069), or a random twist point (its
// 448-bit prime part), fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../ec/ec_test_util.hpp"
#include "msm/bucket_lanes.hpp"
#include "msm/batch_membership.hpp"
#include "msm_test_util.hpp"
#include "util/os_random.hpp"

namespace starzk {
namespace {

using u128 = unsigned __int128;

std::mt19937_64& rng() {
  static std::mt19937_64 g = [] {
    const uint64_t seed = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
    std::fprintf(stderr, "[batch_membership] point seed %llu\n", static_cast<unsigned long long>(seed));
    return std::mt19937_64(seed);
  }();
  return g;
}

// The OS's randomness, as key validation draws it.
const random_fill_t os_fill = fill_random;

g1_affine_t random_curve_point() { return test::random_curve_point<g1_params>(rng()); }

g1_affine_t plus(const g1_affine_t& a, const g1_affine_t& b) {
  return g1_jacobian_t::from_affine(a).add_mixed(b).to_affine();
}

// h / d for the G1 cofactor h (two limbs), checked exact.
std::array<uint64_t, 2> cofactor_over(uint64_t d) {
  const u128 h = (u128(g1_params::cofactor[1]) << 64) | g1_params::cofactor[0];
  EXPECT_EQ(uint64_t(h % d), 0u) << d << " does not divide h";
  const u128 q = h / d;
  return {uint64_t(q), uint64_t(q >> 64)};
}

// A point of order ℓ, checked outside G1 (ec_test_util.hpp checks [ℓ] S = O).
g1_affine_t torsion_point(uint64_t ell) {
  const g1_affine_t s = test::torsion_point<g1_params>(ell, rng());
  EXPECT_TRUE(s.is_on_curve());
  EXPECT_FALSE(s.is_in_subgroup());
  return s;
}

std::vector<g1_affine_t> g1_points(size_t n) { return test::random_bases<g1_params>(rng(), n); }

membership_config_t config(unsigned threads, bool lanes) { return {.threads = threads, .lanes = lanes}; }

// Thread counts × bucket forms (the lanes only where the CPU has them).
std::vector<membership_config_t> configs() {
  std::vector<membership_config_t> v;
  for (unsigned t : {1u, 2u}) {
    v.push_back(config(t, false));
    if (lane_buckets_available()) v.push_back(config(t, true));
  }
  return v;
}

std::string name(const membership_config_t& c) {
  return std::to_string(c.threads) + (c.lanes ? " thread(s), lanes" : " thread(s), portable");
}

TEST(G1Membership, FreshG1PointsPass) {
  for (size_t n : {0, 1, 7, 8, 9, 1000, 5000}) {
    const auto pts = g1_points(n);
    for (const auto& c : configs()) {
      EXPECT_TRUE(all_in_g1(pts, os_fill, c)) << n << " points, " << name(c);
      EXPECT_TRUE(random_sums_in_g1(pts, os_fill, c)) << n << " points, " << name(c);
    }
    EXPECT_TRUE(three_components_zero(pts, os_fill, 2)) << n;
    EXPECT_TRUE(all_in_g1(pts, os_fill)) << n;
  }
}

TEST(G1Membership, InfinityRepeatsAndOppositesPass) {
  auto pts = g1_points(4500);
  for (size_t i = 0; i < pts.size(); i += 7) pts[i] = g1_affine_t::infinity();
  for (size_t i = 3; i + 1 < pts.size(); i += 11) pts[i + 1] = -pts[i];  // P, −P
  for (size_t i = 5; i < pts.size(); i += 13) pts[i] = pts[i / 2];       // repeats
  for (size_t i = 2000; i < 2100; ++i) pts[i] = pts[1999];               // a run of one point
  const std::vector<g1_affine_t> all_o(3000, g1_affine_t::infinity());
  for (const auto& c : configs()) {
    EXPECT_TRUE(all_in_g1(pts, os_fill, c)) << name(c);
    EXPECT_TRUE(all_in_g1(all_o, os_fill, c)) << name(c);
  }
}

struct bad_t {
  std::string what;
  g1_affine_t p;
  bool three_part;  // its 3-component is nonzero
};

std::vector<bad_t> bad_points() {
  const g1_affine_t t{fp_t::zero(), fp_t::from_u64(2)};
  EXPECT_TRUE(t.is_on_curve());
  EXPECT_TRUE(mul_u64(t, 3).is_infinity());
  const g1_affine_t t3 = torsion_point(3);
  EXPECT_EQ(t3.x, fp_t::zero()) << "the points of order 3 are (0, ±2)";
  std::vector<bad_t> v = {{"T", t, true},
                          {"-T", -t, true},
                          {"P + T", plus(g1_points(1)[0], t), true},
                          {"P - T", plus(g1_points(1)[0], -t), true},
                          {"P + [h/3][r]R", plus(g1_points(1)[0], t3), true}};
  for (uint64_t ell : {11ull, 10177ull, 859267ull, 52437899ull}) {
    const g1_affine_t s = torsion_point(ell);
    v.push_back({"P + S_" + std::to_string(ell), plus(g1_points(1)[0], s), false});
    v.push_back({"S_" + std::to_string(ell), s, false});
  }
  for (const bad_t& b : v) {
    EXPECT_TRUE(b.p.is_on_curve()) << b.what;
    EXPECT_FALSE(b.p.is_in_subgroup()) << b.what;
    EXPECT_FALSE(b.p.is_in_subgroup_slow()) << b.what;
  }
  return v;
}

// n fresh G1 points with p in place of one, at a random index (returned).
std::vector<g1_affine_t> g1_points_with(size_t n, const g1_affine_t& p, size_t& at) {
  auto pts = g1_points(n);
  at = rng()() % n;
  pts[at] = p;
  return pts;
}

TEST(G1Membership, OneBadPointFails) {
  const auto bad = bad_points();
  for (const bad_t& b : bad) {
    size_t at = 0;
    const auto pts = g1_points_with(5000, b.p, at);
    for (const auto& c : configs())
      EXPECT_FALSE(all_in_g1(pts, os_fill, c)) << b.what << " at " << at << ", " << name(c);
    EXPECT_FALSE(all_in_g1(std::span<const g1_affine_t>(&pts[at], 1), os_fill)) << b.what << " alone";
  }
}

// Past the lane form's chunk of points (2^15 a slice; one thread, so one
// slice): a set of G1 points over three chunks passes, and one bad point is
// caught wherever it lies, the last point of a full chunk included (its
// additions still pending when the chunk ends).
TEST(G1Membership, SlicesLongerThanOneChunk) {
  const size_t chunk = size_t(1) << 15;
  auto pts = g1_points(2 * chunk + 1000);
  for (const auto& c : {config(1, true), config(1, false)}) EXPECT_TRUE(all_in_g1(pts, os_fill, c)) << name(c);
  const g1_affine_t s = torsion_point(11);
  for (const size_t at : {chunk - 1, chunk, pts.size() - 1, size_t(17)}) {
    const g1_affine_t keep = pts[at];
    pts[at] = plus(keep, s);
    for (const auto& c : {config(1, true), config(1, false)})
      EXPECT_FALSE(all_in_g1(pts, os_fill, c)) << "at " << at << ", " << name(c);
    pts[at] = keep;
  }
}

// Each part answers for its primes: part A passes (always) a set whose only
// bad point is bad for ℓ ≠ 3 and fails one with a bad 3-component; part B
// fails the former.
TEST(G1Membership, EachPartCatchesItsPrimes) {
  const auto bad = bad_points();
  for (const bad_t& b : bad) {
    size_t at = 0;
    const auto pts = g1_points_with(3000, b.p, at);
    EXPECT_EQ(three_components_zero(pts, os_fill, 2), !b.three_part) << b.what;
    if (b.three_part) continue;
    for (const auto& c : configs()) EXPECT_FALSE(random_sums_in_g1(pts, os_fill, c)) << b.what << ", " << name(c);
  }
}

// all_in_g1 runs part A: with a source that gives only the byte 3, every
// ρ of part B is 3 and its combinations 3·ΣP_i cannot see a 3-component,
// while part A's rounds 5g + 1 take every exponent 1 (3 = 010 in base 3),
// the product of all the y_i − 2, a non-cube when one point is P + T.
TEST(G1Membership, AllInG1RunsPartA) {
  auto pts = g1_points(3000);
  pts[1234] = plus(pts[1234], g1_affine_t{fp_t::zero(), fp_t::from_u64(2)});
  const random_fill_t threes = [](std::span<uint8_t> out) { std::fill(out.begin(), out.end(), uint8_t(3)); };
  for (const auto& c : configs()) {
    EXPECT_TRUE(random_sums_in_g1(pts, threes, c)) << name(c);
    EXPECT_FALSE(all_in_g1(pts, threes, c)) << name(c);
  }
}

// Part A on single random curve points (nearly all outside G1) and their
// multiples by 3 and shifts by T, against the definition: the 3-component
// of R is O iff [#E / 3] R = [r]([h / 3] R) = O.
TEST(G1Membership, PartAMatchesTheThreeComponent) {
  const std::array<uint64_t, 2> h3 = cofactor_over(3);
  const g1_affine_t t{fp_t::zero(), fp_t::from_u64(2)};
  int zero = 0, nonzero = 0;
  for (int i = 0; i < 40; ++i) {
    g1_affine_t r = random_curve_point();
    if (i % 4 == 1) r = mul_u64(r, 3).to_affine();
    if (i % 4 == 2) r = plus(r, t);
    if (i % 4 == 3) r = plus(mul_u64(r, 3).to_affine(), -t);
    const g1_jacobian_t h3r = mul_limbs(r, std::span<const uint64_t>(h3));
    const bool expect = mul_limbs(h3r, std::span<const uint64_t>(group_order_limbs)).is_infinity();
    (expect ? zero : nonzero)++;
    EXPECT_EQ(three_components_zero(std::span<const g1_affine_t>(&r, 1), os_fill, 1), expect) << i;
  }
  EXPECT_GE(zero, 10);  // every [3] R
  EXPECT_GE(nonzero, 10);
}

TEST(G1Membership, TheRandomSourceFailingIsAnError) {
  const auto pts = g1_points(100);
  const random_fill_t refuse = [](std::span<uint8_t>) { throw std::runtime_error("no randomness"); };
  EXPECT_THROW(all_in_g1(pts, refuse, 1), std::runtime_error);
  EXPECT_TRUE(all_in_g1({}, refuse, 1)) << "nothing to check draws nothing";
}

// ---- G2 ----

std::vector<g2_affine_t> g2_points(size_t n) { return test::random_bases<g2_params>(rng(), n); }

TEST(G2Membership, FreshG2PointsPass) {
  for (size_t n : {0, 1, 7, 8, 9, 1000, 3000}) {
    auto pts = g2_points(n);
    for (size_t i = 0; i + 1 < pts.size(); i += 97) pts[i + 1] = -pts[i];
    for (size_t i = 5; i < pts.size(); i += 50) pts[i] = g2_affine_t::infinity();
    for (const auto& c : configs()) EXPECT_TRUE(all_in_g2(pts, os_fill, c)) << n << " points, " << name(c);
  }
}

TEST(G2Membership, OneBadPointFails) {
  std::vector<std::pair<std::string, g2_affine_t>> bad = {
      {"a random twist point", test::random_curve_point<g2_params>(rng())}};
  for (uint64_t ell : {13ull, 23ull, 2713ull, 11953ull, 262069ull}) {
    const g2_affine_t s = test::torsion_point<g2_params>(ell, rng());
    const g2_affine_t p = g2_points(1)[0];
    bad.push_back({"S_" + std::to_string(ell), s});
    bad.push_back({"P + S_" + std::to_string(ell), g2_jacobian_t::from_affine(p).add_mixed(s).to_affine()});
  }
  for (const auto& [what, b] : bad) {
    ASSERT_TRUE(b.is_on_curve()) << what;
    ASSERT_FALSE(b.is_in_subgroup()) << what;
    auto pts = g2_points(3000);
    const size_t at = rng()() % pts.size();
    pts[at] = b;
    for (const auto& c : configs()) EXPECT_FALSE(all_in_g2(pts, os_fill, c)) << what << " at " << at << ", " << name(c);
  }
}

}  // namespace
}  // namespace starzk
