// The MSM's plan and scratch layout (msm.cu): the window width c, window
// groups, folding steps and batch-affine arrays chosen from n and the
// tuning, and the carving of the caller's scratch into the arrays of one
// window group. Included by msm.cu only; kept apart so that the kernels and
// the driver read alone.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda/msm_common.cuh"
#include "cuda/msm_timer.cuh"
#include "cuda/msm_window_sums.cuh"

namespace starzk::gpu::msm_detail {

constexpr uint32_t sign_bit = msm_sign_bit;
constexpr unsigned max_windows = 128;              // W = ceil(256/c), c >= 2
constexpr size_t group_entries = size_t(1) << 28;  // entries (digits) per window group
// Batch-affine levels take 72 B per non-zero digit (two point arrays; the
// running products of the levels after the first share the sort's bytes,
// buffers_t::carve): a group's non-zero digits are held to this many (or n,
// if larger), so a random-scalar group holds half the windows it would
// without them.
constexpr size_t group_entries_affine = size_t(1) << 27;
// A batch-affine level has a fixed cost on top of its additions (a dozen
// launches, the part of its inversion trees not hidden), so by default a
// level runs only when it has at least affine_min_outputs sums to make
// (3·2^20: a level of ~2^21 sums was measured no faster than the XYZZ
// additions it saves, docs/benchmarks.md), counted from the non-zero digits
// of the group (step 0 counts them per window); no scratch for them below
// affine_min_entries digits per group.
constexpr size_t affine_min_outputs = size_t(3) << 20;
constexpr size_t affine_min_entries = size_t(1) << 23;
// Bit lengths a canonical scalar can have (0..255: r < 2^255).
constexpr unsigned scalar_bits = 256;
// The window taken from the scalars (plan_t::data_window) replaces the
// planned one only where its cost is below this share of the planned one's:
// the switch costs a second counting pass over the live scalars, and the
// batch-affine levels, which the estimate leaves out, gain less from a
// narrower window than the XYZZ additions do (docs/benchmarks.md, "The
// MSM window from the scalars").
constexpr double data_window_gain = 0.9;
// Step 0's flag per term: dead (zero scalar or skipped), short (fewer than
// c bits, so every digit above window 0 is zero, with no carry into
// window 1) or long (c bits or more). Host and device both classify a
// scalar of len bits by live_flag, so the host counts the long ones from
// the bit-length census.
constexpr uint8_t live_short = 1, live_long = 2;
SZK_HD uint8_t live_flag(unsigned len, unsigned c) { return len >= c ? live_long : live_short; }
// The long live scalars are listed apart (step 0c) when at most
// n / long_list_share of them: a witness has about n / 70, random scalars
// are all long and keep one pass.
constexpr size_t long_list_share = 16;
// The select predicate of step 0c: the point indices of the live list whose
// flag is long.
struct is_long_t {
  const uint8_t* live;
  SZK_D bool operator()(uint32_t i) const { return live[i] == live_long; }
};

struct plan_t {
  size_t n;
  unsigned c, W, K, chunk, block;
  unsigned ways, fold_steps;                 // folding: partials added per step, steps (msm_fold.cu)
  unsigned Wg;                               // windows per group (the last group may hold fewer)
  size_t buckets;                            // Wg·(K+1): bucket 0 of each window is the zero digit
  size_t entries;                            // Wg·n
  size_t parts;                              // upper bound of the level-1 partials of a group
  size_t sort_temp, scan_temp, select_temp;  // CUB temporary storage
  size_t long_cap;                           // the long list's room (step 0c)
  bool affine;                               // scratch for batch-affine levels
  size_t aff_entries;                        // non-zero digits per group they can take
  size_t aff_a, aff_b, aff_tot, aff_work;    // their sizes (points, field elements)
  size_t sum_cap;                            // window sums: items of a level buffer (msm_window_sums.cuh)

  static unsigned window_count(unsigned c) { return (256 + c - 1) / c; }
  // Buckets of all W windows of c bits, bucket 0 (the zero digit) included.
  static size_t window_buckets(unsigned c) { return size_t(window_count(c)) * ((size_t(1) << (c - 1)) + 1); }
  // Windows per digit group: as many as group_entries digits of n terms
  // take, at most the tuning's group_windows.
  static unsigned windows_per_group(size_t n, unsigned W, const msm_tuning_t& tune) {
    unsigned wg = unsigned(std::max<size_t>(1, std::min<size_t>(W, group_entries / n)));
    if (tune.group_windows > 0) wg = std::min(wg, tune.group_windows);
    return wg;
  }

  static plan_t make(size_t n, const msm_tuning_t& tune, double bucket_weight, bool batch_affine) {
    plan_t p{};
    p.n = n;
    p.chunk = tune.chunk < 2 ? 2 : tune.chunk;
    p.block = tune.block;
    unsigned c = tune.window_bits;
    if (c == 0) {
      // Cost model in madd-equivalents: W·n bucket additions plus about
      // w·2^c per window for the sort, the bounds, the running sums and the
      // partial folding. For G1, w = 10 fits the H200 timings of c = 16..20
      // at n = 2^24 and 2^26 within 3% (2^24: c = 16 128 ms, c = 20 162 ms;
      // 2^26: c = 20 473 ms, c = 16 506 ms; docs/benchmarks.md).
      double best = 1e300;
      for (unsigned t = 2; t <= 20; ++t) {
        const double cost = double(window_count(t)) * (double(n) + bucket_weight * double(1u << t));
        if (cost < best) best = cost, c = t;
      }
    }
    p.c = c;
    p.W = window_count(c);
    p.K = 1u << (c - 1);
    const bool may_affine = batch_affine && tune.affine_levels != 0;
    p.Wg = windows_per_group(n, p.W, tune);
    p.buckets = size_t(p.Wg) * (p.K + 1);
    p.entries = size_t(p.Wg) * n;
    p.affine = may_affine && (tune.affine_levels > 0 || p.entries >= affine_min_entries);
    if (p.affine) {
      p.aff_entries = std::min(p.entries, std::max(group_entries_affine, n));
      p.aff_a = affine_level_bound(p.aff_entries, p.buckets);
      p.aff_b = affine_level_bound(p.aff_a, p.buckets);
      p.aff_tot = affine_pair_threads(p.aff_a);
      p.aff_work = affine_work_elems(p.aff_tot);
    }
    p.sum_cap = window_sum_capacity(p.K, p.Wg);
    // Level 1 leaves at most ceil(count/chunk) partials per bucket, so
    // entries/chunk + buckets in all; the folding steps add them in place,
    // `ways` at a time, until one sum per bucket (a bucket holds <= n
    // points): ceil(log_ways(ceil(n/chunk))) steps.
    p.ways = std::max(2u, tune.fold_ways);
    p.parts = (p.entries + p.chunk - 1) / p.chunk + p.buckets;
    p.fold_steps = 0;
    for (size_t most = (n + p.chunk - 1) / p.chunk; most > 1; most = (most + p.ways - 1) / p.ways) ++p.fold_steps;
    p.sort_temp = 0;
    p.scan_temp = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, p.sort_temp, (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                    (const uint32_t*)nullptr, (uint32_t*)nullptr, int(n), 0, int(c));
    cub::DeviceScan::ExclusiveSum(nullptr, p.scan_temp, (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                  int(p.buckets + 1));
    p.select_temp = 0;
    cub::DeviceSelect::Flagged(nullptr, p.select_temp, thrust::counting_iterator<uint32_t>(0), (const uint8_t*)nullptr,
                               (uint32_t*)nullptr, (uint32_t*)nullptr, int(n));
    size_t long_temp = 0;
    cub::DeviceSelect::If(nullptr, long_temp, (const uint32_t*)nullptr, (uint32_t*)nullptr, (uint32_t*)nullptr, int(n),
                          is_long_t{nullptr});
    p.select_temp = std::max(p.select_temp, long_temp);
    p.long_cap = n / long_list_share;
    return p;
  }

  // The window for the scalars at hand, from the bit lengths of the m live
  // ones (step 0: lengths[b] live scalars of b bits). The cost model above
  // counts n additions in every window; a boolean-heavy witness has them in
  // window 0 only (a digit of window w >= 1 is non-zero only where the
  // scalar is longer than w·c bits, signed carries aside), so with few long
  // scalars the bucket term dominates and a narrower window wins:
  //   cost(c) = m + sum_{w=1}^{W-1} longer(w·c) + W·weight·2^c
  //             + groups·m·group_weight,
  // the last term each group's pass over the live scalars (digits, and the
  // sort of window 0's m digits). Random scalars are longer than every
  // w·c: their cost falls with c as in the model above (a lighter bucket
  // only favours wider windows), so they keep the planned c. Among
  // c < the planned one and not in `tried` (bit c set: its plan did not
  // fit), the cheapest if below data_window_gain of the planned one's cost;
  // else the planned c.
  // weight: the curve's sparse_bucket_weight (msm_curve.cuh).
  unsigned data_window(const uint32_t* lengths, size_t m, const msm_tuning_t& tune, double weight, double group_weight,
                       uint32_t tried) const {
    size_t longer[scalar_bits] = {};  // longer[t]: live scalars of more than t bits
    for (int t = int(scalar_bits) - 2; t >= 0; --t) longer[t] = longer[t + 1] + lengths[t + 1];
    auto cost = [&](unsigned t) {
      const unsigned w_count = window_count(t), wg = windows_per_group(n, w_count, tune);
      double sum = double(m);
      for (unsigned w = 1; w < w_count && w * t < scalar_bits; ++w) sum += double(longer[w * t]);
      sum += double(w_count) * weight * double(1u << t);
      sum += double((w_count + wg - 1) / wg) * double(m) * group_weight;
      return sum;
    };
    const double planned = cost(c);
    unsigned best = c;
    double best_cost = planned;
    for (unsigned t = 2; t < c; ++t) {
      if ((tried >> t) & 1) continue;
      const double x = cost(t);
      if (x < best_cost) best = t, best_cost = x;
    }
    return best_cost < data_window_gain * planned ? best : c;
  }

  // Batch-affine levels for a group of gw windows holding `nonzero` non-zero
  // digits: the tuning's number, or by default while the level has at least
  // affine_min_outputs sums to make (level l about nonzero / 2^(l+1)) and
  // the mean run (nonzero / (gw·K), halved l times) still has two points.
  unsigned affine_levels(const msm_tuning_t& tune, size_t nonzero, unsigned gw) const {
    if (!affine) return 0;
    if (tune.affine_levels > 0) return unsigned(tune.affine_levels);
    unsigned l = 0;
    for (size_t q = nonzero / (size_t(gw) * K), out = nonzero / 2; q >= 2 && out >= affine_min_outputs;
         q /= 2, out /= 2)
      ++l;
    return l;
  }
};

template <class X>
struct buffers_t {
  uint32_t *keys_in, *vals_in, *keys_out, *vals_out;
  uint8_t* live;
  uint32_t *live_idx, *live_count, *lengths, *cursor;
  uint32_t *long_idx, *long_count;  // step 0c: the long live scalars' point indices
  void* sort_temp;
  void* scan_temp;
  void* select_temp;
  uint64_t *start, *end;
  uint32_t *counts, *off_a, *off_b;
  X *parts, *sums, *windows;
  void *pts_a, *pts_b, *pre, *tot, *work;  // batch-affine levels (plan_t::affine)

  // The arrays live in three phases that never overlap in time on the
  // call's stream (the affine trees' side stream is joined before the
  // levels return): S, step 0 and each group's digits, sort and run
  // bounds; A, the batch-affine levels; X, the XYZZ accumulation, its
  // folding and the window sums' level 0. What only one phase reads or
  // writes shares one region (S: the live flags, the select and sort
  // temporaries, the sorted keys; A: the running products and inversion
  // trees; X: the partials), so the scratch holds the largest of the three
  // instead of their sum. The rest crosses phases: the unsorted keys (A's
  // sources) and values (A's and X's identity), the sorted values (A's
  // level 0, or X without levels), the live and long indices (every group),
  // the digit counts and cursors, the bucket bounds and counts, the affine
  // point arrays (A, then X), and the window-sum levels (their levels above
  // 0 run on a second stream beside the next group's S, A and X phases,
  // msm_window_sums.cuh). Step 0's results come first, at places that
  // depend on n only, so that a plan made again for another window
  // (data_window) finds them where the first plan's step 0 left them.
  static buffers_t carve(carve_t& cv, const plan_t& p) {
    using A = decltype(X::x);  // a field element; an affine point is two
    buffers_t b{};
    b.live_idx = cv.take<uint32_t>(p.n);
    b.live_count = cv.take<uint32_t>(1 + max_windows);  // m, then non-zero digits per window
    b.lengths = cv.take<uint32_t>(scalar_bits);         // live scalars per bit length
    b.long_idx = cv.take<uint32_t>(p.long_cap);
    b.long_count = cv.take<uint32_t>(1);
    b.keys_in = cv.take<uint32_t>(p.entries);
    b.vals_in = cv.take<uint32_t>(p.entries);
    b.vals_out = cv.take<uint32_t>(p.entries);
    b.cursor = cv.take<uint32_t>(max_windows);  // places taken in compacted windows
    b.scan_temp = cv.take<char>(p.scan_temp);
    b.start = cv.take<uint64_t>(p.buckets);
    b.end = cv.take<uint64_t>(p.buckets);
    b.counts = cv.take<uint32_t>(p.buckets + 1);
    b.off_a = cv.take<uint32_t>(p.buckets + 1);
    b.off_b = cv.take<uint32_t>(p.buckets + 1);
    b.windows = cv.take<X>(p.W);
    b.sums = cv.take<X>(window_sum_points(p.sum_cap));  // read by a group's levels above 0 beside the next group
    if (p.affine) {
      b.pts_a = cv.take<A>(2 * p.aff_a);
      b.pts_b = cv.take<A>(2 * p.aff_b);
    }
    const size_t shared = cv.used;
    size_t top = shared;
    // S
    b.live = cv.take<uint8_t>(p.n);
    b.select_temp = cv.take<char>(p.select_temp);
    b.keys_out = cv.take<uint32_t>(p.entries);
    b.sort_temp = cv.take<char>(p.sort_temp);
    top = std::max(top, cv.used);
    // X
    cv.used = shared;
    b.parts = cv.take<X>(p.parts);
    top = std::max(top, cv.used);
    // A
    if (p.affine) {
      cv.used = shared;
      b.pre = cv.take<A>(p.aff_b);
      b.tot = cv.take<A>(p.aff_tot);
      b.work = cv.take<A>(p.aff_work);
      top = std::max(top, cv.used);
    }
    cv.used = top;
    return b;
  }
};

}  // namespace starzk::gpu::msm_detail
