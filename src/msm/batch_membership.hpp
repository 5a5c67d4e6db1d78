// all_in_g1, all_in_g2: one randomized test that a whole set of curve
// points lies in G1 (or G2), for key validation, where checking each point
// alone (ec/subgroup.hpp: two 64-bit chains of |z| per G1 point, one over
// F_p2 per G2 point) is most of the CPU time of loading a key. Here a G1
// point costs about nine F_p products (part A) and nineteen batch-affine
// bucket additions (part B), a G2 point eighteen bucket additions over
// F_p2 (part B alone), and the answer is wrong with probability at most
// 2^-64, in one direction only: a set of subgroup points always passes.
//
// The group. z = −0xd201000000010000 is the BLS parameter; #E(Fp) = h·r
// with h = (z − 1)²/3 (ec/curve.hpp) and |z − 1| = 3·11·10177·859267·52437899,
// so h = 3 · 11² · 10177² · 859267² · 52437899². E(Fp) is the direct sum of
// its primary parts: G1 = Z_r; the 3-part {O, T, −T}, T = (0, 2) (x = 0
// gives y² = 4); and for each other prime ℓ of h a part of order ℓ²
// (Z_ℓ × Z_ℓ). A point of the curve is in G1 iff its component in each
// part of order dividing h is O. Part A tests the 3-components, part B the
// others.
//
// Part A: the 3-component, by the Tate pairing of order 3.
//   1. T = (0, 2) is an inflection point: its tangent, y = 2, meets E only
//      at T (x³ = 0), so div(y − 2) = 3(T) − 3(O). f = y − 2 is the Miller
//      function f_{3,T}, normalized at O (monic in y).
//   2. 3 | p − 1, so the reduced Tate pairing
//        t_3(T, P) = f(P)^((p−1)/3) ∈ μ_3 ⊂ Fp,    P ∉ {O, T},
//      pairs E(Fp)[3] = ⟨T⟩ with E(Fp)/3E(Fp) ≅ Z_3 non-degenerately
//      (Frey and Rück, Math. Comp. 62, 1994), and
//      P ∈ 3E(Fp) iff P's 3-component is O (multiplication by 3 is a
//      bijection on every other part). So for P ≠ O, T: the 3-component of
//      P is O iff u = y_P − 2 is a cube in Fp, i.e. χ(u) = u^((p−1)/3) = 1.
//      P = T (u = 0) fails outright; −T has u = −4, a non-cube.
//   3. The cubic character χ is multiplicative. Round k takes
//      c_k = Π_i u_i^(e_ik), e_ik uniform in {0, 1, 2} and independent, and
//      passes iff χ(c_k) = 1. If every u_i is a cube, every round passes.
//      If u_j is not, χ(u_j) = ω ≠ 1 and χ(c_k) = ω^(e_jk) · χ(rest): one
//      value of e_jk in three makes the round pass, so R rounds all pass
//      with probability 3^−R.
//   4. Cost. A random byte v < 243 = 3^5 (bytes ≥ 243 are drawn again) is
//      five independent uniform trits, its base-3 digits. Rounds 5g .. 5g + 4
//      take point i's exponents from one byte v_ig: the point multiplies
//      bucket B_g[v_ig] by u_i (v = 0 is all exponents 0: nothing), one
//      product per point for five rounds. Then round 5g + d is
//        c = Π_v B_g[v]^(digit_d(v)) = (Π_{digit_d(v) = 1} B_g[v]) · (Π_{digit_d(v) = 2} B_g[v])²,
//      a cost per group that does not grow with the points. Nine bytes a
//      point give 45 rounds: 3^−45 < 2^−71 (41 rounds would reach 2^−64).
//
// Part B: the other primes, by random combinations (the small-exponents
// batch test of Bellare, Garay and Rabin, EUROCRYPT 1998). Written for G1;
// G2 below.
//   1. Round k forms Q_k = Σ_i ρ_ik P_i, ρ_ik uniform in [0, 128) (seven
//      random bits), and checks Q_k with the exact test
//      (affine_t::is_in_subgroup through first_outside_subgroup; O passes).
//   2. If every P_i is in G1, so is every Q_k.
//   3. If P_j has a nonzero component C for a prime ℓ ≠ 3 of h, C has order
//      ℓ^a, a ≥ 1, and Q_k's ℓ-component is ρ_jk·C + S, S fixed by the
//      other ρ's. ρ·C = −S holds for ρ in at most one class modulo ℓ^a,
//      hence modulo ℓ: for at most ⌈128/ℓ⌉ of the 128 values. The worst
//      prime, ℓ = 11, leaves 12/128 per round; 19 rounds, (12/128)^19 < 2^−64.
//   4. Cost. Round k has 127 buckets, B_k[ρ − 1] += P_i (ρ = 0 adds
//      nothing), and Q_k = Σ_ρ ρ·B_k[ρ − 1] by the running sum. A point
//      makes 19 additions, each into a different round's buckets, so
//      batches of the affine buckets (msm/bucket_affine.hpp, or eight at a
//      time in AVX-512 IFMA lanes, msm/bucket_lanes.hpp) share one inversion
//      among hundreds of them.
//
// Together: a point outside G1 has a nonzero component for some prime of h;
// part A misses a 3-component with probability ≤ 3^−45, part B any other
// with probability ≤ (12/128)^19 < 2^−64.
//
// G2. #E'(Fp2) = h2·r with h2 = 13² · 23² · 2713 · 11953 · 262069 · q, q a
// 448-bit prime (the twist's cofactor, ec/curve.hpp): no 2 and no 3, so
// part B alone does it. Its argument holds word for word for E'(Fp2) (a
// nonzero ℓ-component has order ℓ^a, whatever the shape of the ℓ-part),
// with the exact test of a G2 point (ψ(P) = [z] P) on each Q_k; the worst
// prime is 13, ⌈128/13⌉ = 10 values of 128 per round, and 18 rounds give
// (10/128)^18 < 2^−66.
//
// The exponents must be drawn after the points are fixed, from a source
// the points' author cannot predict (the OS, util/os_random.hpp's
// fill_random): whoever knows them can build a bad set that passes.
//
// Preconditions: the points are on the curve (the structure above is that
// of E(Fp) or E'(Fp2); a point off it is in no group) with canonical
// coordinates. The caller checks both (key validation's cheap pass). O is
// skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "ec/affine.hpp"
#include "ec/curve.hpp"

namespace starzk {

// The caller's random source: fills the span with uniform random bytes.
// Called from several threads at once, a few kilobytes at a time.
using random_fill_t = std::function<void(std::span<uint8_t>)>;

struct membership_config_t {
  unsigned threads = 0;  // 0: every hardware thread (util/parallel.hpp)
  // Part B's additions in AVX-512 IFMA lanes (lane_buckets_t) where the CPU
  // has them (lane_buckets_available()); false: affine_buckets_t, one
  // addition at a time (the reference, and the "before" of the benchmark).
  bool lanes = true;
};

// True when every point is in G1; false (except with probability ≤ 2^−64)
// when one is not. Parts A and B below, each over every thread.
bool all_in_g1(std::span<const g1_affine_t> points, const random_fill_t& fill, unsigned threads = 0);
bool all_in_g1(std::span<const g1_affine_t> points, const random_fill_t& fill, const membership_config_t& cfg);

// The same for G2 (part B, 18 rounds).
bool all_in_g2(std::span<const g2_affine_t> points, const random_fill_t& fill, unsigned threads = 0);
bool all_in_g2(std::span<const g2_affine_t> points, const random_fill_t& fill, const membership_config_t& cfg);

// What key checks call: the lowest index of a point outside the subgroup,
// or none. A set of batched_min points or more is first tested whole
// (all_in_g1 / all_in_g2, the exponents from util/os_random.hpp); only
// when that fails, or for a shorter set (where the batch's fixed cost per
// call outweighs what it saves), are the points checked one by one
// (ec/subgroup.hpp's first_outside_subgroup), to name the first bad one.
// The points must be canonical and on the curve (the callers' cheap pass).
inline constexpr size_t batched_min = 2048;
std::optional<uint64_t> first_outside_subgroup_batched(std::span<const g1_affine_t> points, unsigned threads = 0);
std::optional<uint64_t> first_outside_subgroup_batched(std::span<const g2_affine_t> points, unsigned threads = 0);

// Part A alone: true when every point's 3-component is O (never false
// then); false, except with probability ≤ 3^−45, when one's is not.
bool three_components_zero(std::span<const g1_affine_t> points, const random_fill_t& fill, unsigned threads = 0);

// Part B alone: true when every point is in G1; false, except with
// probability ≤ (12/128)^19, when one has a nonzero component for a prime
// ℓ ≠ 3 of h. (A nonzero 3-component fails it too, except with
// probability ≤ (43/128)^19; part A is what takes that case below 2^−64.)
bool random_sums_in_g1(std::span<const g1_affine_t> points, const random_fill_t& fill,
                       const membership_config_t& cfg = {});

}  // namespace starzk
