// affine_buckets_t: Pippenger buckets kept in affine coordinates, their
// additions done in batches that share one field inversion.
//
// Adding an affine point p to an affine bucket q costs, with the inverse of
// the denominator given:
//   add (x_p != x_q):  λ = (y_p − y_q) / (x_p − x_q)
//   double (p = q):    λ = 3 x_q² / (2 y_q)
//   x₃ = λ² − x_q − x_p,   y₃ = λ (x_q − x₃) − y_q          (1M + 1S + 1M)
// and Montgomery's trick inverts a batch of B denominators with one
// inversion and 3(B − 1) multiplications. So one bucket addition is about
// 5M + 1S + (one inversion)/B, against 8M + 2S for the mixed XYZZ addition
// (madd-2008-s) of the plain accumulation: ~1.5x fewer field products once
// B is a few hundred. (The idea is the "batch-affine" accumulation of the
// GPU and CPU MSM literature; cf. the GPU levels in cuda/msm_affine.cu.)
//
// One batch holds at most one addition per bucket (each reads the bucket it
// writes). A point whose bucket already has an addition in the batch goes to
// that bucket's XYZZ side sum instead (a mixed addition, as without affine
// buckets), so no point waits and no distribution of digits (a window with
// few buckets, many equal scalars) makes the work grow faster than n: with
// N buckets a batch of B meets ~B²/(2N) taken ones. The bucket's value is
// its affine part plus its side sum (add_bucket_to). A point that lands in
// an empty bucket is just stored there (no arithmetic). P + (−P) empties
// the bucket; a doubling with y = 0 (a point of order 2) does too. Points at
// infinity (x = y = 0) are skipped.
//
// Memory: per bucket one affine point, one XYZZ point and one byte; per
// batch entry the bucket index, the point and two field elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ec/affine.hpp"
#include "ec/xyzz.hpp"

namespace starzk {

template <class P>
class affine_buckets_t {
 public:
  using point_t = affine_t<P>;
  using field_t = typename P::field_t;

  // n buckets, all at infinity; batches of `batch` (at least 1) additions.
  affine_buckets_t(size_t n, size_t batch)
      : bucket_(n, point_t::infinity()), side_(n, xyzz_t<P>::infinity()), busy_(n, 0), batch_(batch ? batch : 1) {
    pend_.reserve(batch_);
    prefix_.reserve(batch_);
    den_.reserve(batch_);
  }

  size_t size() const { return bucket_.size(); }

  // bucket[b] += p (now, or in the batch being filled).
  void add(size_t b, const point_t& p) {
    if (p.is_infinity()) return;
    if (busy_[b]) {
      side_[b] += p;
    } else if (bucket_[b].is_infinity()) {
      bucket_[b] = p;
    } else {
      busy_[b] = 1;
      pend_.push_back({uint32_t(b), p});
      if (pend_.size() >= batch_) run_batch();
    }
  }

  // Runs the batch being filled. Call before reading the buckets.
  void finish() {
    if (!pend_.empty()) run_batch();
  }

  // acc += bucket[b] (its affine part and its side sum); after finish().
  void add_bucket_to(xyzz_t<P>& acc, size_t b) const {
    acc += bucket_[b];
    if (!side_[b].is_infinity()) acc += side_[b];
  }

 private:
  struct pending_t {
    uint32_t b;
    point_t p;
  };

  // Each pending (b, p): bucket[b] = bucket[b] + p, one inversion in all.
  void run_batch() {
    const size_t m = pend_.size();
    prefix_.resize(m);
    den_.resize(m);
    // Forward: the denominators d_j and prefix_j = d_0 ··· d_(j−1).
    field_t acc = field_t::one();
    for (size_t j = 0; j < m; ++j) {
      const point_t& q = bucket_[pend_[j].b];
      const point_t& p = pend_[j].p;
      field_t d;
      if (q.x != p.x)
        d = p.x - q.x;  // add
      else if (q.y == p.y && !q.y.is_zero())
        d = q.y.dbl();  // double: 2 y_q
      else
        d = field_t::one();  // p = −q (or y = 0): O
      prefix_[j] = acc;
      den_[j] = d;
      acc *= d;
    }
    // Backward: inv = (d_0 ··· d_j)^−1, so d_j^−1 = inv · prefix_j and
    // (d_0 ··· d_(j−1))^−1 = inv · d_j.
    field_t inv = acc.inverse();
    for (size_t j = m; j-- > 0;) {
      const field_t dinv = inv * prefix_[j];
      inv *= den_[j];
      point_t& q = bucket_[pend_[j].b];
      const point_t& p = pend_[j].p;
      busy_[pend_[j].b] = 0;
      field_t lambda;
      if (q.x != p.x) {
        lambda = (p.y - q.y) * dinv;
      } else if (q.y == p.y && !q.y.is_zero()) {
        const field_t xx = q.x.sqr();
        lambda = (xx.dbl() + xx) * dinv;
      } else {
        q = point_t::infinity();
        continue;
      }
      const field_t x3 = lambda.sqr() - q.x - p.x;
      q.y = lambda * (q.x - x3) - q.y;
      q.x = x3;
    }
    pend_.clear();
  }

  std::vector<point_t> bucket_;
  std::vector<xyzz_t<P>> side_;  // additions that met a taken bucket
  std::vector<uint8_t> busy_;    // 1 while the bucket has an addition in the batch
  size_t batch_;
  std::vector<pending_t> pend_;
  std::vector<field_t> prefix_, den_;
};

}  // namespace starzk
