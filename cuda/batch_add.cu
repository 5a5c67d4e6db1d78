// Batch addition on G1: the sum of the bases whose bit is set in a bitmap.
// This is the "ones" half of the prep_msm split (DESIGN.md section 2, step 3):
// in a Filecoin witness most aux scalars are 0 or 1, and a scalar-one term
// needs a plain addition, not a window decomposition.
//
// Pass 1: each thread walks a contiguous run of indices and accumulates the
// selected bases with madd-2008-s (8M + 2S per point); a block tree-sums its
// threads (add-2008-s). Pass 2: one block sums the block partials.
#include "cuda/msm_common.cuh"
#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {
namespace {

constexpr unsigned batch_blocks = 1024;

__global__ void __launch_bounds__(sum_block) batch_add_kernel(const dev_g1_affine_t* bases, const uint32_t* bitmap,
                                                              size_t n, size_t per_thread, dev_g1_xyzz_t* partial) {
  const size_t t = blockIdx.x * size_t(sum_block) + threadIdx.x;
  const size_t begin = t * per_thread, end = begin + per_thread < n ? begin + per_thread : n;
  dev_g1_xyzz_t acc = dev_g1_xyzz_t::infinity();
  for (size_t i = begin; i < end; ++i)
    if ((bitmap[i >> 5] >> (i & 31)) & 1) acc = acc.add_affine(bases[i]);
  acc = block_sum(acc);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

}  // namespace

size_t batch_add_g1_scratch_bytes(size_t) { return align256(batch_blocks * sizeof(dev_g1_xyzz_t)); }

cudaError_t batch_add_g1(g1_xyzz_t* d_result, const g1_affine_t* d_bases, const uint32_t* d_bitmap, size_t n,
                         void* d_scratch, size_t scratch_bytes, cudaStream_t s) {
  auto* out = reinterpret_cast<dev_g1_xyzz_t*>(d_result);
  if (!d_result) return cudaErrorInvalidValue;
  if (n == 0) {
    set_infinity_kernel<<<1, 32, 0, s>>>(out);
    SZK_CHECK_LAUNCH();
    return cudaSuccess;
  }
  if (!d_bases || !d_bitmap || !d_scratch || scratch_bytes < batch_add_g1_scratch_bytes(n))
    return cudaErrorInvalidValue;
  auto* partial = static_cast<dev_g1_xyzz_t*>(d_scratch);
  const size_t threads = size_t(batch_blocks) * sum_block;
  const size_t per_thread = (n + threads - 1) / threads;
  batch_add_kernel<<<batch_blocks, sum_block, 0, s>>>(reinterpret_cast<const dev_g1_affine_t*>(d_bases), d_bitmap,
                                                       n, per_thread, partial);
  SZK_CHECK_LAUNCH();
  sum_segments_kernel<<<1, sum_block, 0, s>>>(partial, batch_blocks, out);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

size_t msm_g1_split_scratch_bytes(size_t n, const msm_tuning_t& tune) {
  return std::max(batch_add_g1_scratch_bytes(n), msm_g1_scratch_bytes(n, tune));
}

cudaError_t msm_g1_split(g1_xyzz_t* d_ones, g1_xyzz_t* d_tail, const g1_affine_t* d_bases, const fr_t* d_scalars,
                         const uint32_t* d_ones_bitmap, size_t n, void* d_scratch, size_t scratch_bytes,
                         cudaStream_t s, const msm_tuning_t& tune) {
  if (scratch_bytes < msm_g1_split_scratch_bytes(n, tune)) return cudaErrorInvalidValue;
  // Stream order makes the scratch reuse safe: the MSM starts after the batch add.
  SZK_TRY(batch_add_g1(d_ones, d_bases, d_ones_bitmap, n, d_scratch, scratch_bytes, s));
  return msm_g1(d_tail, d_bases, d_scalars, n, d_scratch, scratch_bytes, s, tune, d_ones_bitmap);
}

}  // namespace starzk::gpu
