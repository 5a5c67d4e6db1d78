// Batch addition on G1 and G2: the sum of the bases whose bit is set in a
// bitmap. This is the "ones" half of the prep_msm split (docs/prover.md,
// step 3): in a Filecoin witness most aux scalars are 0 or 1, and a scalar-one
// term needs a plain addition, not a window decomposition. Also the split
// itself (batch addition of the ones, then the MSM of the rest).
//
// Pass 1: each thread walks a contiguous run of indices and accumulates the
// selected bases with madd-2008-s (8M + 2S per point); a block tree-sums its
// threads (add-2008-s). Pass 2: one block sums the block partials. Written
// once over the curve bundle (msm_curve.cuh): batch_add<P> and msm_split<P>
// (starzk_cuda.hpp), instantiated for G1 and G2 at the bottom; blocks have
// sum_block_v threads (G1 128, G2 64: 24 KiB of shared memory either way).
#include "cuda/msm_common.cuh"
#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {
namespace {

constexpr unsigned batch_blocks = 1024;

template <class A, class X>
__global__ void __launch_bounds__(sum_block_v<X>)
    batch_add_kernel(const A* bases, const uint32_t* bitmap, size_t n, size_t per_thread, X* partial) {
  const size_t t = blockIdx.x * size_t(sum_block_v<X>) + threadIdx.x;
  const size_t begin = t * per_thread, end = begin + per_thread < n ? begin + per_thread : n;
  X acc = X::infinity();
  for (size_t i = begin; i < end; ++i)
    if ((bitmap[i >> 5] >> (i & 31)) & 1) acc = acc.add_mixed(bases[i]);
  acc = block_sum(acc);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

}  // namespace

template <class P>
size_t batch_add_scratch_bytes(size_t) {
  return align256(batch_blocks * sizeof(typename curve_bundle_t<P>::xyzz_type));
}

template <class P>
cudaError_t batch_add(xyzz_t<P>* d_result, const affine_t<P>* d_bases, const uint32_t* d_bitmap, size_t n,
                      void* d_scratch, size_t scratch_bytes, cudaStream_t s) {
  using C = curve_bundle_t<P>;
  using X = typename C::xyzz_type;
  constexpr unsigned block = sum_block_v<X>;
  auto* out = reinterpret_cast<X*>(d_result);
  if (!d_result) return cudaErrorInvalidValue;
  if (n == 0) {
    set_infinity_kernel<X><<<1, 32, 0, s>>>(out);
    SZK_CHECK_LAUNCH();
    return cudaSuccess;
  }
  if (!d_bases || !d_bitmap || !d_scratch || scratch_bytes < batch_add_scratch_bytes<P>(n))
    return cudaErrorInvalidValue;
  auto* partial = static_cast<X*>(d_scratch);
  const size_t threads = size_t(batch_blocks) * block;
  const size_t per_thread = (n + threads - 1) / threads;
  batch_add_kernel<<<batch_blocks, block, 0, s>>>(reinterpret_cast<const typename C::affine_type*>(d_bases), d_bitmap,
                                                  n, per_thread, partial);
  SZK_CHECK_LAUNCH();
  sum_segments_kernel<X><<<1, block, 0, s>>>(partial, batch_blocks, out);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

template <class P>
size_t msm_split_scratch_bytes(size_t n, const msm_tuning_t& tune) {
  return std::max(batch_add_scratch_bytes<P>(n), msm_scratch_bytes<P>(n, tune));
}

template <class P>
cudaError_t msm_split(xyzz_t<P>* d_ones, xyzz_t<P>* d_tail, const affine_t<P>* d_bases, const fr_t* d_scalars,
                      const uint32_t* d_ones_bitmap, size_t n, void* d_scratch, size_t scratch_bytes, cudaStream_t s,
                      const msm_tuning_t& tune) {
  if (scratch_bytes < msm_split_scratch_bytes<P>(n, tune)) return cudaErrorInvalidValue;
  // Stream order makes the scratch reuse safe: the MSM starts after the batch add.
  SZK_TRY(batch_add<P>(d_ones, d_bases, d_ones_bitmap, n, d_scratch, scratch_bytes, s));
  return msm<P>(d_tail, d_bases, d_scalars, n, d_scratch, scratch_bytes, s, tune, d_ones_bitmap);
}

template size_t batch_add_scratch_bytes<g1_params>(size_t);
template size_t batch_add_scratch_bytes<g2_params>(size_t);
template cudaError_t batch_add<g1_params>(g1_xyzz_t*, const g1_affine_t*, const uint32_t*, size_t, void*, size_t,
                                          cudaStream_t);
template cudaError_t batch_add<g2_params>(g2_xyzz_t*, const g2_affine_t*, const uint32_t*, size_t, void*, size_t,
                                          cudaStream_t);
template size_t msm_split_scratch_bytes<g1_params>(size_t, const msm_tuning_t&);
template size_t msm_split_scratch_bytes<g2_params>(size_t, const msm_tuning_t&);
template cudaError_t msm_split<g1_params>(g1_xyzz_t*, g1_xyzz_t*, const g1_affine_t*, const fr_t*, const uint32_t*,
                                          size_t, void*, size_t, cudaStream_t, const msm_tuning_t&);
template cudaError_t msm_split<g2_params>(g2_xyzz_t*, g2_xyzz_t*, const g2_affine_t*, const fr_t*, const uint32_t*,
                                          size_t, void*, size_t, cudaStream_t, const msm_tuning_t&);

}  // namespace starzk::gpu
