// Step 4 of the MSM (msm.cu): the window sums G_w = sum_{b=1..K} b·S_b of a
// group of windows, from the bucket partials S_b, as a tree of short
// running sums instead of a few long ones.
//
// Each level turns a list of items j = 0..m-1 per window, item j standing
// for the points A_j + j·R_j, into a list L times shorter with the same
// total. Thread k of the next level takes items kL..kL+L-1 (i = 0..L-1):
//   A'_k = sum_i A_{kL+i} + sum_i i·R_{kL+i}
//   R'_k = L · sum_i R_{kL+i}
// and then A'_k + k·R'_k = sum_i (A_{kL+i} + (kL + i)·R_{kL+i}). The weighted
// sum sum_{i>=1} i·R_i is the running-sum trick from the top (run += R_i,
// acc += run, for i = L-1 down to 1); L is a power of two, so the factor L is
// log2(L) doublings. When one item per window is left, its A is G_w.
//   Level 0 reads the buckets themselves: item b-1 is bucket b, and the run
// over buckets kL+1..kL+L gives A = sum_i (i+1)·S_{kL+i+1} and R = L·sum_i S,
// which is the same rule with the bucket's own weight b = kL + i + 1.
// Cost: about 2 additions per bucket at level 0 (L0 buckets per thread,
// chosen so that a level-0 launch has ~2^17 threads, enough to hide the
// latency of a dependent chain of point additions) and 3 per item above,
// where L = 4; no scalar multiplication, and no level has fewer threads than
// it has windows times its items, so no chain is longer than 2·L0 + log2(L0)
// point operations. The levels above 0 have few items (a window's 2^15 to
// 2^19 buckets leave 2^13 to 2^16 after level 0, and each level a quarter),
// so their chains' latency, not the multiplier, sets their time: each item
// runs in four lanes that make a step's independent products at once
// (point.cuh, add_lanes4 / dbl_lanes4), and where another window group
// follows they run on a second stream beside its steps 1-3
// (window_sums_side_t below).
//   msm.cu runs these kernels over the curve's accumulation types (G1 with
// its Fp products in line, dev_fp_fast_t). Over dev_fp_t, whose product is
// an out-of-line call that writes its result through a reference, the G1
// sums came out wrong on the H200 from 2^10 terms up while G2 (Fp2 products
// out of line by value, fp2.cuh) and the same kernels with products in line
// were right: the pattern fp2.cuh records for the G2 comb table.
#pragma once

#include <algorithm>
#include <bit>
#include <utility>

#include "cuda/msm_common.cuh"
#include "cuda/msm_timer.cuh"

namespace starzk::gpu::msm_detail {

constexpr unsigned window_sum_threads = 1u << 17;  // level-0 threads aimed at
constexpr unsigned window_sum_span = 4;            // L of the levels above 0

// L0: buckets per level-0 thread, a power of two in [2, 64] and at most K.
inline unsigned window_sum_first_span(unsigned K, unsigned windows) {
  unsigned l = 2;
  while (l < 64 && l < K && size_t(windows) * K / l > window_sum_threads) l *= 2;
  return l < K ? l : K;
}

// Items per window after level 0, and the points one buffer of a level's
// (A, R) pairs needs for `windows` windows (the levels ping-pong between two
// such buffers, the second a quarter of the first).
inline size_t window_sum_items(unsigned K, unsigned windows) {
  return size_t(windows) * (K / window_sum_first_span(K, windows));
}

template <class X>
SZK_D X times_pow2(X p, unsigned log2l) {
  for (unsigned d = 0; d < log2l; ++d)
    if (!p.is_infinity()) p = p.dbl();
  return p;
}
template <class X>
SZK_D X times_pow2_lanes4(X p, unsigned log2l, unsigned lane) {
  for (unsigned d = 0; d < log2l; ++d)
    if (!p.is_infinity()) p = dbl_lanes4(p, lane);
  return p;
}

// Level 0: thread (w, k) runs over buckets kL+1..kL+L of window w (bucket b
// of window w is group bucket w·(K+1) + b; its sum is parts[off[g]], or
// it is empty where off[g + 1] = off[g] (step 3 folds each bucket's
// partials into its first, msm_fold.cu), or with off = nullptr it is
// parts[g] itself, O where nothing went in: the buckets pieces share,
// msm_sink.cuh). With one item left per window, A
// is the window sum.
template <class X>
__global__ void __launch_bounds__(128)
    window_sum_level0_kernel(const X* parts, const uint32_t* off, unsigned K, unsigned L, unsigned log2l,
                             unsigned windows, X* a_out, X* r_out, X* sums) {
  const unsigned items = K / L;
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t >= size_t(windows) * items) return;
  const unsigned w = unsigned(t / items), k = unsigned(t % items);
  const size_t g0 = size_t(w) * (K + 1) + size_t(k) * L + 1;
  X run = X::infinity(), acc = X::infinity();
  for (unsigned i = L; i-- > 0;) {
    const size_t g = g0 + i;
    if (!off)
      run = run.add(parts[g]);
    else if (off[g + 1] > off[g])
      run = run.add(parts[off[g]]);
    acc = acc.add(run);
  }
  if (items == 1) {
    sums[w] = acc;
    return;
  }
  a_out[t] = acc;
  r_out[t] = times_pow2(run, log2l);
}

// A level above 0: m items per window in, m / L out (L divides m). Output
// item t runs in the four lanes 4t..4t+3 (a group never straddles the
// bound: blocks are whole groups); lane 0 writes it.
template <class X>
__global__ void __launch_bounds__(128)
    window_sum_level_kernel(const X* a_in, const X* r_in, unsigned m, unsigned L, unsigned log2l, unsigned windows,
                            X* a_out, X* r_out, X* sums) {
  const unsigned items = m / L;
  const size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x, t = g / 4;
  const unsigned lane = unsigned(g % 4);
  if (t >= size_t(windows) * items) return;  // the whole group of four
  const unsigned w = unsigned(t / items), k = unsigned(t % items);
  const size_t base = size_t(w) * m + size_t(k) * L;
  X run = X::infinity(), acc = X::infinity();
  for (unsigned i = L - 1; i >= 1; --i) {
    run = add_lanes4(run, r_in[base + i], lane);
    acc = add_lanes4(add_lanes4(acc, run, lane), a_in[base + i], lane);
  }
  acc = add_lanes4(acc, a_in[base], lane);
  if (items == 1) {  // the same for every lane
    if (lane == 0) sums[w] = acc;
    return;
  }
  const X r = times_pow2_lanes4(add_lanes4(run, r_in[base], lane), log2l, lane);
  if (lane == 0) {
    a_out[t] = acc;
    r_out[t] = r;
  }
}

// Step 5 of the MSM: Horner over the windows, G = sum_w 2^(c w) G_w: c
// doublings (dbl-2008-s-1) per window, a chain of ~c·W doublings, so
// latency, not throughput. Lanes 0-3 of one warp share each step's
// independent products (point.cuh, *_lanes4: 3 product latencies per
// doubling instead of 9).
template <class X>
__global__ void __launch_bounds__(32) horner_kernel(const X* windows, unsigned W, unsigned c, X* result) {
  const unsigned lane = threadIdx.x;
  if (lane >= 4) return;
  X acc = windows[W - 1];
  for (int w = int(W) - 2; w >= 0; --w) {
    for (unsigned d = 0; d < c; ++d) acc = dbl_lanes4(acc, lane);
    acc = add_lanes4(acc, windows[w], lane);
  }
  if (lane == 0) *result = acc;
}

// Points of one level buffer for any group of at most `windows` windows
// (a smaller last group may take a smaller L0, so more items).
inline size_t window_sum_capacity(unsigned K, unsigned windows) {
  size_t cap = 1;
  for (unsigned g = 1; g <= windows; ++g) cap = std::max(cap, window_sum_items(K, g));
  return cap;
}

// Scratch points of launch_window_sums for a capacity cap (A and R halves of
// the level-0 buffer, and of the buffer a quarter of its size the levels
// ping-pong with).
inline size_t window_sum_points(size_t cap) { return 2 * cap + 2 * std::max<size_t>(1, cap / window_sum_span); }

// The second stream of the levels above 0. Those levels are chains of point
// operations over few items, so their time is latency, a few ms per MSM
// paid once per window group; on this stream (created with the highest
// priority, so that its few blocks take SM slots as soon as any free up)
// they run beside the next group's digits, sort and accumulation. The level
// buffers are the group's (the caller keeps them apart from every other
// phase's arrays), so the next group's level 0, which writes them, waits
// for them first (join).
class window_sums_side_t {
 public:
  window_sums_side_t() = default;
  window_sums_side_t(const window_sums_side_t&) = delete;
  window_sums_side_t& operator=(const window_sums_side_t&) = delete;
  ~window_sums_side_t() {
    for (cudaEvent_t e : {first_, done_})
      if (e) cudaEventDestroy(e);
    if (stream_) cudaStreamDestroy(stream_);
  }
  // Hands the levels above the level 0 just launched on s to the side
  // stream (created on first use); returns the stream they go on.
  cudaError_t fork(cudaStream_t s, cudaStream_t& upper) {
    if (!stream_) {
      int least = 0, greatest = 0;
      SZK_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      SZK_TRY(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest));
      SZK_TRY(cudaEventCreateWithFlags(&first_, cudaEventDisableTiming));
      SZK_TRY(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
    }
    SZK_TRY(cudaEventRecord(first_, s));
    SZK_TRY(cudaStreamWaitEvent(stream_, first_, 0));
    upper = stream_;
    return cudaSuccess;
  }
  cudaError_t forked_done() {
    pending_ = true;
    return cudaEventRecord(done_, stream_);
  }
  // Stream s waits for the side's last levels (if any are pending).
  cudaError_t join(cudaStream_t s) {
    if (!pending_) return cudaSuccess;
    pending_ = false;
    return cudaStreamWaitEvent(s, done_, 0);
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t first_ = nullptr, done_ = nullptr;
  bool pending_ = false;
};

// The window sums of `windows` windows of K buckets each into sums[0..windows)
// (off = nullptr: one point per bucket in parts, level 0's comment),
// with scratch of window_sum_points(cap) points, cap >= window_sum_items(K, windows);
// the timer marks the end of level 0. With a side, level 0 first waits for
// the side's pending levels (they read the same scratch), and with `fork`
// (another group follows) the levels above 0 go on the side stream; the
// caller joins it before it reads sums.
template <class X>
cudaError_t launch_window_sums(const X* parts, const uint32_t* off, unsigned K, unsigned windows, X* scratch,
                               size_t cap, X* sums, phase_timer_t& timer, cudaStream_t s,
                               window_sums_side_t* side = nullptr, bool fork = false) {
  if (window_sum_items(K, windows) > cap) return cudaErrorInvalidValue;
  const unsigned L0 = window_sum_first_span(K, windows);
  const size_t cap1 = std::max<size_t>(1, cap / window_sum_span);
  unsigned m = K / L0;  // items per window after the level
  if (side) SZK_TRY(side->join(s));
  window_sum_level0_kernel<X><<<grid_for(size_t(windows) * m, 128), 128, 0, s>>>(
      parts, off, K, L0, unsigned(std::countr_zero(L0)), windows, scratch, scratch + cap, sums);
  SZK_CHECK_LAUNCH();
  SZK_TRY(timer.mark(phase_timer_t::window_sums_first));
  cudaStream_t u = s;
  if (side && fork && m > 1) SZK_TRY(side->fork(s, u));
  // Each level above leaves at most a quarter of the level-0 items, so the
  // smaller buffer takes every odd level and the larger every even one.
  X* in = scratch;
  size_t in_cap = cap;
  X* out = scratch + 2 * cap;
  size_t out_cap = cap1;
  while (m > 1) {
    const unsigned L = m < window_sum_span ? m : window_sum_span;
    window_sum_level_kernel<X><<<grid_for(4 * size_t(windows) * (m / L), 128), 128, 0, u>>>(
        in, in + in_cap, m, L, unsigned(std::countr_zero(L)), windows, out, out + out_cap, sums);
    SZK_CHECK_LAUNCH();
    m /= L;
    std::swap(in, out);
    std::swap(in_cap, out_cap);
  }
  if (u != s) SZK_TRY(side->forked_done());
  return cudaSuccess;
}

}  // namespace starzk::gpu::msm_detail
