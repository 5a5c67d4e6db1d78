// lane_buckets_t<P>: the affine buckets of msm/bucket_affine.hpp with the
// batch's field arithmetic done eight additions at a time in the 52-bit
// AVX-512 IFMA lanes of ff/fp_x8_ifma.hpp, on G1 (F_p) and on G2 (F_p2 over
// the same lanes, ec/points_x8.hpp).
//
// Why: the batch-affine addition is ~6 F_p products per point (1 for the
// running product of the denominators, 2 to take each inverse out of it,
// then λ = Δy·(Δx)^−1, λ², λ·(x_q − x_3)), and every point of a window goes
// through one; the 8-lane product costs about a quarter of the mulx product
// on a core that issues two 512-bit IFMA per cycle (docs/benchmarks.md,
// "Key validation on AVX-512 IFMA"). The formulas are those of
// bucket_affine.hpp; only where the arithmetic runs differs.
//
// Layout: every term of the MSM is converted once, before the windows, into
// a lane point: each F_p coordinate (x, y on G1; x0, x1, y0, y1 on G2) as
// eight radix-2^52 limbs, canonical (< p), in Montgomery form with
// R = 2^416 (fp_x8_t's); O is all zeros. The
// buckets are kept in the same form, so a window converts nothing: a batch
// gathers eight (bucket, term) pairs into registers, lane i holding pair i,
// and scatters the eight new buckets back. Canonical values make equal
// x-coordinates equal limbs, which is how a doubling (P + P) or a
// cancellation (P + (−P)) is recognised before it reaches the batch.
//
// Per batch: the denominators d = x_p − x_q of lane i's pairs are chained
// into a running product (8 chains side by side), the 8 chain products are
// inverted together on the scalar side (Montgomery's trick over the lanes,
// one fp_t inversion), and the backward pass takes each d^−1 out of its
// chain as bucket_affine.hpp does. A pair whose bucket already has an
// addition in the batch waits for the next batch (once; a second collision
// goes to the bucket's XYZZ side sum, as do P + P and P + (−P)), so side
// sums stay rare even when the batch is a quarter of the buckets.
//
// On G1 the window's sum Σ (b+1)·bucket[b] runs in the lanes too
// (window_sum): eight runs of buckets side by side, in place of two scalar
// additions per bucket on one core; G2's buckets are summed one at a time
// (add_bucket_to).
//
// Use only where ff_path::wide() is true (CPUID/XGETBV said AVX-512F/VL/BW
// and IFMA, and STARZK_FF_IFMA / STARZK_FF_PORTABLE did not turn it off);
// the vector code lives in bucket_lanes.cpp, compiled for that target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "ec/curve.hpp"
#include "ec/xyzz.hpp"

namespace starzk {

// A G1 point in the lane form (see the file comment), and a G2 one: the
// coordinate c0 + c1·u as parts [0] and [1].
struct alignas(64) lane_point_t {
  uint64_t x[8], y[8];
};
struct alignas(64) lane_point2_t {
  uint64_t x[2][8], y[2][8];
};
template <class P>
struct lane_form;
template <>
struct lane_form<g1_params> {
  using point = lane_point_t;
};
template <>
struct lane_form<g2_params> {
  using point = lane_point2_t;
};
template <class P>
using lane_point_of = typename lane_form<P>::point;

// Whether the lane buckets may run here (ff_path::wide()).
bool lane_buckets_available();

// out[i] = in[i] in the lane form, i < in.size() (eight at a time, any
// count).
void to_lane_points(std::span<const g1_affine_t> in, lane_point_t* out);
void to_lane_points(std::span<const g2_affine_t> in, lane_point2_t* out);

// A lane point back as an affine fp_t / fp2_t point (one product per F_p
// coordinate).
g1_affine_t from_lane_point(const lane_point_t& p);
g2_affine_t from_lane_point(const lane_point2_t& p);

template <class P>
class lane_buckets_t {
 public:
  using point_t = lane_point_of<P>;
  using xyzz = xyzz_t<P>;

  // n buckets, all O; batches of `batch` additions (at least 8); term j of
  // the MSM is terms[j], which must outlive the buckets.
  lane_buckets_t(size_t n, size_t batch, const point_t* terms);

  size_t size() const { return state_.size(); }

  // bucket[b] += terms[j], or −terms[j] when neg.
  void add(size_t b, size_t j, bool neg) { place(uint32_t(b), uint32_t(j), neg, true); }

  // Runs what is pending and converts the buckets back to fp_t. Call before
  // add_bucket_to.
  void finish();

  // acc += bucket[b] (its affine part and its side sum), after finish().
  void add_bucket_to(xyzz& acc, size_t b) const {
    if (state_[b] != empty) acc += out_[b];
    if (!side_[b].is_infinity()) acc += side_[b];
  }

  // G1: the window's sum Σ_b (b + 1)·bucket[b], in lanes: the n buckets cut
  // into eight runs of L = n/8, lane j walks run j from the top with the
  // running-sum trick (run += bucket, tot += run; ec/jacobian.hpp's
  // unchecked formulas over the 8-lane field), then
  //   Σ = Σ_j tot_j + L·Σ_j j·run_j     (run j starts at bucket j·L)
  // and the last n mod 8 buckets one at a time. Each lane starts its run
  // at r and its tot at r2 (fixed points, taken out at the end), so no
  // operand is O; a lane that meets an exceptional step (an operand equal
  // or opposite to the other, which these formulas turn into Z = 0, kept
  // to the end) is summed again one bucket at a time. Runs what is
  // pending first and folds the side sums into their buckets; after it
  // the buckets are spent (call nothing else). The offsets are for tests;
  // window_sum() takes two fixed ones.
  xyzz window_sum(const g1_affine_t& r, const g1_affine_t& r2) requires std::is_same_v<P, g1_params>;
  xyzz window_sum() requires std::is_same_v<P, g1_params>;

 private:
  enum : uint8_t { empty = 0, full = 1, busy = 2 };
  struct pending_t {
    uint32_t b, j;
    bool neg;
  };

  void place(uint32_t b, uint32_t j, bool neg, bool may_wait);
  void to_side(uint32_t b, uint32_t j, bool neg);
  void fold_sides()  // bucket[b] += side[b] for every side sum, as lane points
      requires std::is_same_v<P, g1_params>;
  // Σ_{b in [begin, end)} (b − begin + 1)·bucket[b] and Σ bucket[b], one
  // bucket at a time (after fold_sides).
  std::pair<xyzz, xyzz> run_sum(size_t begin, size_t end) const requires std::is_same_v<P, g1_params>;
  void flush();      // run_batch, then the pairs that waited
  void run_batch();  // bucket_lanes.cpp, IFMA target

  std::vector<point_t> bucket_;
  std::vector<uint8_t> state_;
  std::vector<xyzz> side_;
  std::vector<affine_t<P>> out_;  // the buckets as fp_t points, after finish()
  const point_t* terms_;
  size_t batch_;
  std::vector<pending_t> pend_, wait_;
  struct scratch_t;  // the batch's per-group vectors (bucket_lanes.cpp), kept between batches
  std::shared_ptr<scratch_t> scratch_;
};

extern template class lane_buckets_t<g1_params>;
extern template class lane_buckets_t<g2_params>;

}  // namespace starzk
