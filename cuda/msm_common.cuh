// Small device pieces shared by the G1 MSM (msm.cu, msm_accumulate.cu) and
// the batch addition (batch_add.cu): a block-wide sum of XYZZ points in shared
// memory, a kernel summing consecutive segments of a point array (one block
// per segment), one that writes the point at infinity, the bucket search of
// the chunked accumulation, and the launcher of the accumulation kernel.
#pragma once

#include "cuda/point.cuh"

namespace starzk::gpu {

constexpr unsigned sum_block = 128;  // 128 x 192 B = 24 KiB of shared memory

// Tree reduction of one value per thread; thread 0 returns the block's sum.
// blockDim.x must be sum_block. Cost: log2(128) = 7 rounds of add-2008-s.
SZK_D dev_g1_xyzz_t block_sum(dev_g1_xyzz_t v) {
  __shared__ dev_g1_xyzz_t sm[sum_block];
  sm[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = sum_block / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sm[threadIdx.x] = sm[threadIdx.x].add(sm[threadIdx.x + s]);
    __syncthreads();
  }
  return sm[0];
}

// out[s] = in[s·len] + ... + in[s·len + len - 1]; grid = number of segments.
inline __global__ void __launch_bounds__(sum_block) sum_segments_kernel(const dev_g1_xyzz_t* in, size_t len,
                                                                        dev_g1_xyzz_t* out) {
  dev_g1_xyzz_t acc = dev_g1_xyzz_t::infinity();
  const dev_g1_xyzz_t* seg = in + blockIdx.x * len;
  for (size_t i = threadIdx.x; i < len; i += sum_block) acc = acc.add(seg[i]);
  acc = block_sum(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

constexpr uint32_t msm_sign_bit = 0x80000000u;  // value = point index | sign << 31

// Largest g with off[g] <= x (off is non-decreasing, off[0] = 0 <= x).
SZK_D size_t find_bucket(const uint32_t* off, size_t buckets, uint32_t x) {
  size_t lo = 0, hi = buckets;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    if (off[mid] <= x) lo = mid;
    else hi = mid;
  }
  return lo;
}

// Level 1 of the bucket accumulation (msm_accumulate.cu): thread t sums the
// `chunk` sorted entries starting at start[g] + (t - off[g])·chunk of its
// bucket g into out[t]; `threads` = off[buckets] is an upper bound on t.
cudaError_t launch_accumulate_points(const dev_g1_affine_t* bases, const uint32_t* vals, const uint64_t* start,
                                     const uint64_t* end, const uint32_t* off, size_t buckets, unsigned chunk,
                                     dev_g1_xyzz_t* out, size_t threads, unsigned block, cudaStream_t s);

inline __global__ void __launch_bounds__(32) set_infinity_kernel(dev_g1_xyzz_t* out) {
  if (threadIdx.x == 0) *out = dev_g1_xyzz_t::infinity();
}

}  // namespace starzk::gpu
