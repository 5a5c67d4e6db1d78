// Shared helpers of the CUDA kernels: the function-space macros, the
// launch-error check every launcher runs after each kernel, and grid sizing.
//
// Launchers return cudaError_t and never throw (they are called from StarPU
// CUDA codelet bodies, where no exception may cross): SZK_TRY returns the
// first error to the caller. Nothing here allocates or synchronises (the
// MSM driver waits once for its stream; msm.cu says why).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

#define SZK_HD __host__ __device__ __forceinline__
#define SZK_D __device__ __forceinline__

// Evaluate a CUDA call; on failure return its error from the enclosing launcher.
#define SZK_TRY(expr)                             \
  do {                                            \
    const cudaError_t szk_err_ = (expr);          \
    if (szk_err_ != cudaSuccess) return szk_err_; \
  } while (0)

// After a <<<...>>> launch: a bad configuration shows up in cudaGetLastError.
#define SZK_CHECK_LAUNCH() SZK_TRY(cudaGetLastError())

namespace starzk::gpu {

// Blocks needed for `work` items at `per_block` items per block (at least 1).
inline unsigned grid_for(size_t work, size_t per_block) {
  size_t g = (work + per_block - 1) / per_block;
  return unsigned(g == 0 ? 1 : g);
}

// Round a byte count up to 256 (every scratch sub-buffer starts aligned).
inline size_t align256(size_t b) { return (b + 255) & ~size_t(255); }

// Carves sub-buffers out of one caller-provided scratch allocation. With a
// null base it only sums the sizes (the *_scratch_bytes queries use it so
// the query and the launcher can never disagree).
struct carve_t {
  char* base;
  size_t used = 0;
  template <class T>
  T* take(size_t count) {
    T* p = base ? reinterpret_cast<T*>(base + used) : nullptr;
    used += align256(count * sizeof(T));
    return p;
  }
};

}  // namespace starzk::gpu
