// Batch inversion of an array of field elements on the device, in place:
// Montgomery's trick as a tree, so that n inversions cost one binary-Euclid
// inversion per leaf plus about 3 products per element.
//
// One step over a[0..n): thread u takes the `inv_chunk` elements
// a[u·c .. u·c + c), writes their running products pre[k] and their total
// tot[u] (up); tot is inverted by the same step, recursively, until at most
// `leaf_max` elements remain, each inverted by one thread; then, walking
// each chunk from its end with acc = (its total)^-1 (down):
//   a[k]^-1 = acc · pre[k-1],   acc <- acc · a[k]   (k > first),
//   a[first]^-1 = acc.
// Every element must be non-zero. The caller's stream orders the launches;
// nothing allocates (work: inv_work_elems(n) elements). Used by the
// batch-affine levels of the MSM (msm_affine.cu), on their second stream.
#pragma once

#include "cuda/common.cuh"

namespace starzk::gpu::batch_inverse {

constexpr unsigned inv_chunk = 8;  // elements per thread of one step
constexpr size_t leaf_max = 32;    // tree leaves: one thread each

template <class F>
__global__ void __launch_bounds__(128) inv_up_kernel(const F* a, size_t n, size_t m, F* pre, F* tot) {
  const size_t u = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (u >= m) return;
  const size_t b = u * inv_chunk, e = b + inv_chunk < n ? b + inv_chunk : n;
  F acc = a[b];
  pre[b] = acc;
  for (size_t k = b + 1; k < e; ++k) {
    acc = acc * a[k];
    pre[k] = acc;
  }
  tot[u] = acc;
}
template <class F>
__global__ void __launch_bounds__(128) inv_down_kernel(F* a, size_t n, size_t m, const F* pre, const F* tot) {
  const size_t u = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (u >= m) return;
  const size_t b = u * inv_chunk, e = b + inv_chunk < n ? b + inv_chunk : n;
  F acc = tot[u];
  for (size_t k = e; k-- > b;) {
    F inv = acc;
    if (k > b) {
      inv = acc * pre[k - 1];
      acc = acc * a[k];
    }
    a[k] = inv;
  }
}
template <class F>
__global__ void __launch_bounds__(32) inv_leaf_kernel(F* a, size_t n) {
  if (threadIdx.x < n) a[threadIdx.x] = a[threadIdx.x].inverse_binary();
}

// Scratch of invert_array over n elements.
inline size_t inv_work_elems(size_t n) {
  if (n <= leaf_max) return 0;
  const size_t m = (n + inv_chunk - 1) / inv_chunk;
  return n + m + inv_work_elems(m);
}

// a[k] <- a[k]^-1 for k < n, on stream s; work: inv_work_elems(n) elements.
template <class F>
cudaError_t invert_array(F* a, size_t n, F* work, cudaStream_t s) {
  if (n <= leaf_max) {
    inv_leaf_kernel<<<1, 32, 0, s>>>(a, n);
    SZK_CHECK_LAUNCH();
    return cudaSuccess;
  }
  const size_t m = (n + inv_chunk - 1) / inv_chunk;
  F* pre = work;
  F* tot = work + n;
  inv_up_kernel<<<grid_for(m, 128), 128, 0, s>>>(a, n, m, pre, tot);
  SZK_CHECK_LAUNCH();
  SZK_TRY(invert_array(tot, m, work + n + m, s));
  inv_down_kernel<<<grid_for(m, 128), 128, 0, s>>>(a, n, m, pre, tot);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

}  // namespace starzk::gpu::batch_inverse
