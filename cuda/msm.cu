// Multi-scalar multiplication on G1 and G2, sum_i s_i·P_i, by Pippenger's
// bucket method with signed windows, sorted buckets and XYZZ accumulation.
// One implementation: the point kernels and the driver are templates over a
// curve bundle (msm_curve.cuh), instantiated for G1 and G2 at the bottom;
// the digit, sort and bucket-bound kernels do not depend on the curve.
//
//  0. live terms: the indices of the m terms whose scalar is not zero and
//     whose skip bit is clear, in order (cub::DeviceSelect). m comes back to
//     the host (the one wait of the call: the sort sizes depend on it), and
//     steps 1-2 run on m terms, not n. A boolean-heavy witness has few:
//     after the prep_msm split (ones skipped) about a tenth.
//  1. digits: each live scalar leaves Montgomery form (one Fr product) and is
//     cut into W = ceil(256/c) signed c-bit digits d in [-2^(c-1), 2^(c-1)]
//     (d > 2^(c-1) becomes d - 2^c with a carry into the next window; the top
//     window holds at most c-1 bits of a 255-bit scalar, so no carry is left).
//     Key = |d| (bucket), value = point index | sign << 31. Zero digits get
//     key 0, a bucket nobody reads.
//  2. sort: per window, (key, value) pairs by key (cub::DeviceRadixSort, c
//     key bits), so each bucket is one contiguous run; a kernel marks where
//     each run starts and ends.
//  3. accumulate: runs are cut into chunks of `chunk` entries; one thread per
//     chunk sums its points with madd-2008-s (8M + 2S), negating y for
//     negative digits. Chunk offsets come from an exclusive scan of
//     ceil(count/chunk) per bucket. Buckets with more than one chunk (a
//     boolean-heavy witness puts most points in window 0, bucket 1) are
//     folded again, chunk by chunk, with add-2008-s (12M + 2S), until every
//     bucket has one partial: ceil(log_chunk(n)) levels, so the work stays
//     balanced whatever the scalar distribution.
//  4. window sums sum_b b·S_b, b = 1..K (K = 2^(c-1)), split into J segments of
//     M = K/J buckets. Segment j runs the running-sum trick from the top:
//     R += S_b, A += R gives A = sum (b - jM) S_b and R = sum S_b; then
//     T_j = A + [jM] R. A block per window adds the T_j.
//  5. windows: Horner, G = sum_w 2^(c w) G_w: c doublings (dbl-2008-s-1) per
//     window.
// Steps 1-4 run for a group of windows at a time (at most 2^28 entries, so
// the keys, values and partials of one group stay near 6 GiB whatever n is;
// at n = 2^27 and c = 20 that is 2 windows per group, 7 groups). Step 1
// recomputes the signed-digit carries from window 0 for each group (one Fr
// product and a few shifts per scalar: cheap next to a window's additions).
// The level-1 accumulation, the hot loop, lives in msm_accumulate.cu (for G1
// with the Fp product inlined).
// The window c minimises W·(n + w·2^c) madd-equivalents, w = the curve's
// bucket_weight (G1 10, G2 8: msm_curve.cuh). A G2 MSM needs twice the
// bytes per bucket partial (384 B); the key/value arrays do not change.
// The result is an XYZZ point written to device memory.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <vector>

#include "cuda/msm_common.cuh"
#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {
namespace {

constexpr uint32_t sign_bit = msm_sign_bit;
constexpr size_t group_entries = size_t(1) << 28;  // entries (digits) per window group

struct plan_t {
  size_t n;
  unsigned c, W, K, J, M, levels, chunk, block;
  unsigned Wg;                  // windows per group (the last group may hold fewer)
  size_t buckets;               // Wg·(K+1): bucket 0 of each window is the zero digit
  size_t entries;               // Wg·n
  size_t bound[32];             // upper bound of the partial count per level
  size_t sort_temp, scan_temp, select_temp;  // CUB temporary storage

  static unsigned window_count(unsigned c) { return (256 + c - 1) / c; }

  static plan_t make(size_t n, const msm_tuning_t& tune, double bucket_weight) {
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
    p.Wg = unsigned(std::max<size_t>(1, std::min<size_t>(p.W, group_entries / n)));
    p.buckets = size_t(p.Wg) * (p.K + 1);
    p.entries = size_t(p.Wg) * n;
    // Segments of the window sums: about 2^16 threads in all.
    unsigned J = 1;
    while (J < p.K && size_t(J) * 2 * p.Wg <= 65536) J *= 2;
    p.J = J;
    p.M = p.K / J;
    // Folding levels until one partial per bucket (a bucket holds <= n points).
    size_t most = n, b = (p.entries + p.chunk - 1) / p.chunk + p.buckets;
    p.levels = 0;
    do {
      most = (most + p.chunk - 1) / p.chunk;
      p.bound[p.levels++] = b;
      b = (b + p.chunk - 1) / p.chunk + p.buckets;
    } while (most > 1 && p.levels < 32);
    p.sort_temp = 0;
    p.scan_temp = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, p.sort_temp, (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                    (const uint32_t*)nullptr, (uint32_t*)nullptr, int(n), 0, int(c));
    cub::DeviceScan::ExclusiveSum(nullptr, p.scan_temp, (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                  int(p.buckets + 1));
    p.select_temp = 0;
    cub::DeviceSelect::Flagged(nullptr, p.select_temp, thrust::counting_iterator<uint32_t>(0),
                               (const uint8_t*)nullptr, (uint32_t*)nullptr, (uint32_t*)nullptr, int(n));
    return p;
  }
};

template <class X>
struct buffers_t {
  uint32_t *keys_in, *vals_in, *keys_out, *vals_out;
  uint8_t* live;
  uint32_t *live_idx, *live_count;
  void* sort_temp;
  void* scan_temp;
  void* select_temp;
  uint64_t *start, *end;
  uint32_t *counts, *off_a, *off_b;
  X *part_a, *part_b, *segs, *windows;

  static buffers_t carve(carve_t& cv, const plan_t& p) {
    buffers_t b{};
    b.keys_in = cv.take<uint32_t>(p.entries);
    b.vals_in = cv.take<uint32_t>(p.entries);
    b.keys_out = cv.take<uint32_t>(p.entries);
    b.vals_out = cv.take<uint32_t>(p.entries);
    b.live = cv.take<uint8_t>(p.n);
    b.live_idx = cv.take<uint32_t>(p.n);
    b.live_count = cv.take<uint32_t>(1);
    b.sort_temp = cv.take<char>(p.sort_temp);
    b.scan_temp = cv.take<char>(p.scan_temp);
    b.select_temp = cv.take<char>(p.select_temp);
    b.start = cv.take<uint64_t>(p.buckets);
    b.end = cv.take<uint64_t>(p.buckets);
    b.counts = cv.take<uint32_t>(p.buckets + 1);
    b.off_a = cv.take<uint32_t>(p.buckets + 1);
    b.off_b = cv.take<uint32_t>(p.buckets + 1);
    size_t ma = 0, mb = 0;
    for (unsigned l = 0; l < p.levels; ++l) (l % 2 == 0 ? ma : mb) = std::max(l % 2 == 0 ? ma : mb, p.bound[l]);
    b.part_a = cv.take<X>(ma);
    b.part_b = cv.take<X>(mb == 0 ? 1 : mb);
    b.segs = cv.take<X>(size_t(p.Wg) * p.J);
    b.windows = cv.take<X>(p.W);
    return b;
  }
};

// ---- 0. live terms ----
__global__ void __launch_bounds__(256) live_kernel(const dev_fr_t* scalars, const uint32_t* skip, size_t n,
                                                   uint8_t* live) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const bool skipped = skip && ((skip[i >> 5] >> (i & 31)) & 1);
  live[i] = !skipped && !scalars[i].is_zero();
}

// ---- 1. digits ----
// Live term k (point idx[k]); windows [w0, w1) of the group are stored at
// (w - w0)·m + k.
__global__ void __launch_bounds__(256) digits_kernel(const dev_fr_t* scalars, const uint32_t* idx, size_t m,
                                                     unsigned c, unsigned w0, unsigned w1, uint32_t* keys,
                                                     uint32_t* vals) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k >= m) return;
  const uint32_t i = idx[k];
  const dev_fr_t s = scalars[i].from_mont();
  const uint32_t mask = (1u << c) - 1, half = 1u << (c - 1);
  uint32_t carry = 0;
  for (unsigned w = 0; w < w1; ++w) {
    const unsigned pos = w * c, limb = pos / 32, off = pos % 32;
    uint32_t v = 0;
    if (limb < 8) {
      v = s.l[limb] >> off;
      if (off && limb + 1 < 8) v |= s.l[limb + 1] << (32 - off);
    }
    v = (v & mask) + carry;
    uint32_t key = v, sign = 0;
    carry = 0;
    if (v > half) {  // d = v - 2^c < 0
      key = (1u << c) - v;
      sign = sign_bit;
      carry = 1;
    }
    if (w >= w0) {
      keys[(w - w0) * m + k] = key;
      vals[(w - w0) * m + k] = i | sign;
    }
  }
}

// ---- 2. run boundaries of the sorted keys ----
__global__ void __launch_bounds__(256) bounds_kernel(const uint32_t* keys, size_t n, size_t entries, unsigned K,
                                                     uint64_t* start, uint64_t* end) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k >= entries) return;
  const size_t w = k / n, local = k - w * n;
  const uint32_t key = keys[k];
  const size_t g = w * (K + 1) + key;
  if (local == 0 || keys[k - 1] != key) start[g] = k;
  if (local == n - 1 || keys[k + 1] != key) end[g] = k + 1;
}

// Chunks per bucket at level 1 (points) and later levels (partials).
__global__ void __launch_bounds__(256) count_points_kernel(const uint64_t* start, const uint64_t* end, size_t buckets,
                                                           unsigned K, unsigned chunk, uint32_t* counts) {
  const size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (g > buckets) return;
  uint32_t c = 0;
  if (g < buckets && g % (K + 1) != 0) c = uint32_t((end[g] - start[g] + chunk - 1) / chunk);
  counts[g] = c;
}
__global__ void __launch_bounds__(256) count_parts_kernel(const uint32_t* off, size_t buckets, unsigned chunk,
                                                          uint32_t* counts) {
  const size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (g > buckets) return;
  counts[g] = g < buckets ? (off[g + 1] - off[g] + chunk - 1) / chunk : 0;
}

// ---- 3. accumulation ----
// Level 1 (points): launch_accumulate_points, msm_accumulate.cu.
// Later levels fold `chunk` partials of one bucket into one (add-2008-s).
template <class X>
__global__ void __launch_bounds__(128) fold_parts_kernel(const X* in, const uint32_t* off_in, const uint32_t* off_out,
                                                         size_t buckets, unsigned chunk, X* out) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const uint32_t total = off_out[buckets];
  if (t >= total) return;
  const size_t g = find_bucket(off_out, buckets, uint32_t(t));
  const uint32_t b = off_in[g] + (uint32_t(t) - off_out[g]) * chunk;
  const uint32_t e = b + chunk < off_in[g + 1] ? b + chunk : off_in[g + 1];
  X acc = in[b];
  for (uint32_t k = b + 1; k < e; ++k) acc = acc.add(in[k]);
  out[t] = acc;
}

// ---- 4. window sums, segment part ----
template <class X>
__global__ void __launch_bounds__(128) segment_kernel(const X* parts, const uint32_t* off, unsigned K, unsigned J,
                                                      unsigned M, unsigned W, X* segs) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t >= size_t(W) * J) return;
  const unsigned w = unsigned(t / J), j = unsigned(t % J);
  X run = X::infinity(), acc = X::infinity();
  for (unsigned b = j * M + M; b > j * M; --b) {
    const size_t g = size_t(w) * (K + 1) + b;
    if (off[g + 1] > off[g]) run = run.add(parts[off[g]]);
    acc = acc.add(run);
  }
  // T_j = A + [jM] R
  segs[t] = acc.add(run.mul_u32(j * M));
}

// ---- 5. Horner over the windows ----
template <class X>
__global__ void __launch_bounds__(32) horner_kernel(const X* windows, unsigned W, unsigned c, X* result) {
  if (threadIdx.x != 0) return;
  X acc = windows[W - 1];
  for (int w = int(W) - 2; w >= 0; --w) {
    for (unsigned d = 0; d < c; ++d) acc = acc.dbl();
    acc = acc.add(windows[w]);
  }
  *result = acc;
}

// Optional phase timing (msm_tuning_t::profile): an event after each phase
// of each window group; finish() waits for the last one and adds the gaps to
// the profile. Without a profile every call is a no-op.
class phase_timer_t {
 public:
  enum phase_t { digits, sort, accumulate, fold, window_sums, horner };
  phase_timer_t(msm_profile_t* profile, cudaStream_t s) : profile_(profile), s_(s) {}
  phase_timer_t(const phase_timer_t&) = delete;
  phase_timer_t& operator=(const phase_timer_t&) = delete;
  ~phase_timer_t() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  cudaError_t start() { return record(-1); }
  cudaError_t mark(phase_t p) { return record(int(p)); }
  cudaError_t finish() {
    if (!profile_ || events_.empty()) return cudaSuccess;
    SZK_TRY(cudaEventSynchronize(events_.back()));
    double* field[] = {&profile_->digits,      &profile_->sort,  &profile_->accumulate,
                       &profile_->fold,        &profile_->window_sums, &profile_->horner};
    for (size_t k = 1; k < events_.size(); ++k) {
      float ms = 0;
      SZK_TRY(cudaEventElapsedTime(&ms, events_[k - 1], events_[k]));
      *field[phases_[k]] += ms;
    }
    ++profile_->calls;
    return cudaSuccess;
  }

 private:
  cudaError_t record(int phase) {
    if (!profile_) return cudaSuccess;
    cudaEvent_t e;
    SZK_TRY(cudaEventCreate(&e));
    events_.push_back(e);
    phases_.push_back(phase);
    return cudaEventRecord(e, s_);
  }
  msm_profile_t* profile_;
  cudaStream_t s_;
  std::vector<cudaEvent_t> events_;
  std::vector<int> phases_;
};

template <class C>
size_t scratch_for(size_t n, const msm_tuning_t& tune) {
  if (n == 0) return 0;
  const plan_t p = plan_t::make(n, tune, C::bucket_weight);
  carve_t cv{nullptr};
  buffers_t<typename C::xyzz_type>::carve(cv, p);
  return cv.used;
}

// The whole MSM for curve bundle C (steps 1-5 of the file comment).
template <class C>
cudaError_t run(typename C::host_xyzz_type* d_result, const typename C::host_affine_type* d_bases,
                const fr_t* d_scalars, size_t n, void* d_scratch, size_t scratch_bytes, cudaStream_t s,
                const msm_tuning_t& tune, const uint32_t* d_skip) {
  using X = typename C::xyzz_type;
  auto* result = reinterpret_cast<X*>(d_result);
  if (!d_result) return cudaErrorInvalidValue;
  if (n == 0) {
    set_infinity_kernel<X><<<1, 32, 0, s>>>(result);
    SZK_CHECK_LAUNCH();
    return cudaSuccess;
  }
  if (n >= (size_t(1) << 31) || !d_bases || !d_scalars || !d_scratch) return cudaErrorInvalidValue;
  if (tune.window_bits > 20 || (tune.window_bits != 0 && tune.window_bits < 2)) return cudaErrorInvalidValue;
  if (tune.block == 0 || tune.block > 128) return cudaErrorInvalidValue;
  const plan_t p = plan_t::make(n, tune, C::bucket_weight);
  carve_t cv{static_cast<char*>(d_scratch)};
  const buffers_t<X> b = buffers_t<X>::carve(cv, p);
  if (cv.used > scratch_bytes) return cudaErrorInvalidValue;
  const auto* bases = reinterpret_cast<const typename C::affine_type*>(d_bases);
  const auto* scalars = reinterpret_cast<const dev_fr_t*>(d_scalars);
  phase_timer_t timer(tune.profile, s);
  SZK_TRY(timer.start());

  // 0: live terms, m of them (the call's one wait).
  live_kernel<<<grid_for(n, 256), 256, 0, s>>>(scalars, d_skip, n, b.live);
  SZK_CHECK_LAUNCH();
  {
    size_t temp = p.select_temp;
    SZK_TRY(cub::DeviceSelect::Flagged(b.select_temp, temp, thrust::counting_iterator<uint32_t>(0), b.live,
                                       b.live_idx, b.live_count, int(n), s));
  }
  uint32_t live_count = 0;
  SZK_TRY(cudaMemcpyAsync(&live_count, b.live_count, sizeof live_count, cudaMemcpyDeviceToHost, s));
  SZK_TRY(cudaStreamSynchronize(s));
  const size_t m = live_count;
  if (m == 0) {
    set_infinity_kernel<X><<<1, 32, 0, s>>>(result);
    SZK_CHECK_LAUNCH();
    return timer.finish();
  }

  for (unsigned w0 = 0; w0 < p.W; w0 += p.Wg) {
    const unsigned gw = std::min(p.Wg, p.W - w0);  // windows in this group
    const size_t entries = size_t(gw) * m, buckets = size_t(gw) * (p.K + 1);
    // 1-2: digits, sort per window, run boundaries.
    digits_kernel<<<grid_for(m, 256), 256, 0, s>>>(scalars, b.live_idx, m, p.c, w0, w0 + gw, b.keys_in,
                                                   b.vals_in);
    SZK_CHECK_LAUNCH();
    SZK_TRY(timer.mark(phase_timer_t::digits));
    for (unsigned w = 0; w < gw; ++w) {
      size_t temp = p.sort_temp;
      const size_t o = size_t(w) * m;
      SZK_TRY(cub::DeviceRadixSort::SortPairs(b.sort_temp, temp, b.keys_in + o, b.keys_out + o, b.vals_in + o,
                                              b.vals_out + o, int(m), 0, int(p.c), s));
    }
    SZK_TRY(cudaMemsetAsync(b.start, 0, buckets * sizeof(uint64_t), s));
    SZK_TRY(cudaMemsetAsync(b.end, 0, buckets * sizeof(uint64_t), s));
    bounds_kernel<<<grid_for(entries, 256), 256, 0, s>>>(b.keys_out, m, entries, p.K, b.start, b.end);
    SZK_CHECK_LAUNCH();

    // 3: level 1 (points), then folding levels (partials).
    auto scan = [&](uint32_t* off) -> cudaError_t {
      size_t temp = p.scan_temp;
      return cub::DeviceScan::ExclusiveSum(b.scan_temp, temp, b.counts, off, int(buckets + 1), s);
    };
    count_points_kernel<<<grid_for(buckets + 1, 256), 256, 0, s>>>(b.start, b.end, buckets, p.K, p.chunk,
                                                                     b.counts);
    SZK_CHECK_LAUNCH();
    SZK_TRY(scan(b.off_a));
    SZK_TRY(timer.mark(phase_timer_t::sort));
    SZK_TRY(launch_accumulate_points<C>(bases, b.vals_out, b.start, b.end, b.off_a, buckets, p.chunk, b.part_a,
                                        p.bound[0], p.block, s));
    SZK_TRY(timer.mark(phase_timer_t::accumulate));
    X* parts = b.part_a;
    uint32_t* off = b.off_a;
    for (unsigned l = 1; l < p.levels; ++l) {
      X* next = (l % 2 == 0) ? b.part_a : b.part_b;
      uint32_t* next_off = (off == b.off_a) ? b.off_b : b.off_a;
      count_parts_kernel<<<grid_for(buckets + 1, 256), 256, 0, s>>>(off, buckets, p.chunk, b.counts);
      SZK_CHECK_LAUNCH();
      SZK_TRY(scan(next_off));
      fold_parts_kernel<<<grid_for(p.bound[l], p.block), p.block, 0, s>>>(parts, off, next_off, buckets, p.chunk,
                                                                           next);
      SZK_CHECK_LAUNCH();
      parts = next;
      off = next_off;
    }
    SZK_TRY(timer.mark(phase_timer_t::fold));

    // 4: window sums of the group.
    segment_kernel<<<grid_for(size_t(gw) * p.J, 128), 128, 0, s>>>(parts, off, p.K, p.J, p.M, gw, b.segs);
    SZK_CHECK_LAUNCH();
    sum_segments_kernel<X><<<gw, sum_block_v<X>, 0, s>>>(b.segs, p.J, b.windows + w0);
    SZK_CHECK_LAUNCH();
    SZK_TRY(timer.mark(phase_timer_t::window_sums));
  }
  // 5: Horner over all windows: one thread's chain of ~c·W doublings, so
  // latency, not throughput. The curve's in-line Fp products (G1) let the
  // independent ones of a formula overlap: 2.64 -> 2.27 ms at c = 16 on the
  // H200 (the bucket kernels gained nothing from them).
  using XF = typename C::acc_xyzz_type;  // same bytes as X
  horner_kernel<<<1, 32, 0, s>>>(reinterpret_cast<const XF*>(b.windows), p.W, p.c, reinterpret_cast<XF*>(result));
  SZK_CHECK_LAUNCH();
  SZK_TRY(timer.mark(phase_timer_t::horner));
  return timer.finish();
}

}  // namespace

size_t msm_g1_scratch_bytes(size_t n, const msm_tuning_t& tune) { return scratch_for<g1_curve_t>(n, tune); }
cudaError_t msm_g1(g1_xyzz_t* d_result, const g1_affine_t* d_bases, const fr_t* d_scalars, size_t n,
                   void* d_scratch, size_t scratch_bytes, cudaStream_t s, const msm_tuning_t& tune,
                   const uint32_t* d_skip) {
  return run<g1_curve_t>(d_result, d_bases, d_scalars, n, d_scratch, scratch_bytes, s, tune, d_skip);
}

size_t msm_g2_scratch_bytes(size_t n, const msm_tuning_t& tune) { return scratch_for<g2_curve_t>(n, tune); }
cudaError_t msm_g2(g2_xyzz_t* d_result, const g2_affine_t* d_bases, const fr_t* d_scalars, size_t n,
                   void* d_scratch, size_t scratch_bytes, cudaStream_t s, const msm_tuning_t& tune,
                   const uint32_t* d_skip) {
  return run<g2_curve_t>(d_result, d_bases, d_scalars, n, d_scratch, scratch_bytes, s, tune, d_skip);
}

}  // namespace starzk::gpu
