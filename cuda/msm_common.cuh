// Small device pieces shared by the MSM (msm.cu, msm_accumulate.cu) and the
// batch addition (batch_add.cu), templated over the XYZZ point type so G1 and
// G2 use the same code: a block-wide sum of points in shared memory, a kernel
// summing consecutive segments of a point array (one block per segment), one
// that writes the point at infinity, the bucket search of the chunked
// accumulation, and the launcher of the accumulation kernel.
#pragma once

#include "cuda/msm_curve.cuh"

namespace starzk::gpu {
namespace msm_detail {
class phase_timer_t;  // msm_timer.cuh
}

// Threads of a block-wide sum: one point each in 24 KiB of shared memory,
// 128 threads for G1 (192-byte XYZZ points), 64 for G2 (384 bytes).
template <class X>
inline constexpr unsigned sum_block_v = unsigned(24576 / sizeof(X));

// Tree reduction of one value per thread; thread 0 returns the block's sum.
// blockDim.x must be sum_block_v<X>. Cost: log2(blockDim) rounds of add-2008-s.
template <class X>
SZK_D X block_sum(X v) {
  constexpr unsigned threads = sum_block_v<X>;
  __shared__ X sm[threads];
  sm[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = threads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sm[threadIdx.x] = sm[threadIdx.x].add(sm[threadIdx.x + s]);
    __syncthreads();
  }
  return sm[0];
}

// out[s] = in[s·len] + ... + in[s·len + len - 1]; grid = number of segments,
// block = sum_block_v<X>.
template <class X>
__global__ void __launch_bounds__(sum_block_v<X>) sum_segments_kernel(const X* in, size_t len, X* out) {
  X acc = X::infinity();
  const X* seg = in + blockIdx.x * len;
  for (size_t i = threadIdx.x; i < len; i += sum_block_v<X>) acc = acc.add(seg[i]);
  acc = block_sum(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <class X>
__global__ void __launch_bounds__(32) set_infinity_kernel(X* out) {
  if (threadIdx.x == 0) *out = X::infinity();
}

constexpr uint32_t msm_sign_bit = 0x80000000u;  // value = point index | sign << 31

// Largest g with off[g] <= x (off is non-decreasing, off[0] = 0 <= x).
SZK_D size_t find_bucket(const uint32_t* off, size_t buckets, uint32_t x) {
  size_t lo = 0, hi = buckets;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    if (off[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// Level 1 of the bucket accumulation (msm_accumulate.cu, instantiated there
// for g1_curve_t and g2_curve_t): thread t sums the `chunk` sorted entries
// starting at start[g] + (t - off[g])·chunk of its bucket g into out[t];
// `threads` = off[buckets] is an upper bound on t.
template <class C>
cudaError_t launch_accumulate_points(const typename C::affine_type* bases, const uint32_t* vals, const uint64_t* start,
                                     const uint64_t* end, const uint32_t* off, size_t buckets, unsigned chunk,
                                     typename C::xyzz_type* out, size_t threads, unsigned block, cudaStream_t s);

// Batch-affine levels of the G1 accumulation (msm_affine.cu; msm.cu step
// 3a). In: the sorted entries (vals), `entries` of them with a non-zero
// digit (the levels are sized from it), and the run bounds
// start/end of `buckets` buckets (window w's bucket 0 at w·(K + 1) is the zero
// digit and is left out). Each level halves every bucket's run with affine
// additions; after `levels` levels start/end bound the runs of the last
// level's points (in pts_a when `levels` is odd, else pts_b) and ident[k] = k,
// so the XYZZ level-1 kernel finishes them as if they were sorted entries.
// Points move as 16-byte vectors, so bases must be 16-byte aligned.
// Sizes: pts_a affine_level_bound(entries, buckets) points, pts_b the bound
// of that, pre as many field elements as pts_b points (the running products
// of the levels after the first; the first keeps them in pts_b), tot
// affine_pair_threads(|pts_a|) field elements, work affine_work_elems(that
// many) (the trees of a level's two halves); counts/off buckets + 1 words,
// scan_temp the ExclusiveSum temporary of buckets + 1 words.
struct affine_levels_t {
  const void* bases;
  const uint32_t* vals;
  uint64_t *start, *end;
  size_t buckets, entries;
  unsigned K, levels;
  void *pts_a, *pts_b, *pre, *tot, *work;
  uint32_t *counts, *off;
  void* scan_temp;
  size_t scan_bytes;
  uint32_t* ident;
  uint32_t* src;                     // pts_a's size: where each output of a level reads (dead keys_in)
  msm_detail::phase_timer_t* timer;  // marks the end of each pass (msm_timer.cuh)
};
// counts[g] = ceil((end[g] - start[g]) / chunk) for the buckets g < buckets
// whose digit is not zero (g % (K + 1) != 0), else 0; counts[buckets] = 0;
// then off = their exclusive sum, so bucket g's chunks are off[g]..off[g+1]
// (msm.cu: chunks of level 1; msm_affine.cu: a level's sums, chunk 2).
// scan_temp: the ExclusiveSum temporary of buckets + 1 words, scan_bytes big.
cudaError_t launch_chunk_offsets(const uint64_t* start, const uint64_t* end, size_t buckets, unsigned K, unsigned chunk,
                                 uint32_t* counts, uint32_t* off, void* scan_temp, size_t scan_bytes, cudaStream_t s);
// Step 3's folding, in place (msm_fold.cu): the q1 = off[g+1] - off[g]
// level-1 partials of each bucket g at parts[off[g]..] are added `ways` at
// a time in `steps` steps (ceil(log_ways(max q1)) suffice) until each
// bucket's sum sits at parts[off[g]]. counts and fo: buckets + 1 words;
// scan_temp: the ExclusiveSum temporary of buckets + 1 words; parts_bound:
// an upper bound on off[buckets] (sizes the grids).
template <class X>
cudaError_t launch_fold(X* parts, const uint32_t* off, uint32_t* counts, uint32_t* fo, void* scan_temp,
                        size_t scan_bytes, size_t buckets, size_t parts_bound, unsigned steps, unsigned ways,
                        unsigned block, cudaStream_t s);
size_t affine_level_bound(size_t in, size_t buckets);  // points out of a level of `in` points
size_t affine_pair_threads(size_t bound);              // threads of a level of `bound` outputs
size_t affine_work_elems(size_t threads);              // tree scratch of a level of that many
template <class C>
cudaError_t run_affine_levels(const affine_levels_t& a, cudaStream_t s);

}  // namespace starzk::gpu
