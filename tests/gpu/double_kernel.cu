// A kernel that doubles a vector of 64-bit words modulo 2^64, for the test
// that StarPU really dispatches a codelet's CUDA body to a CUDA worker. It is
// launched on the worker's own stream, as every starzk codelet does; it
// knows nothing of StarPU (the test passes it a stream and device pointers).
#include <cstdint>
#include <cuda_runtime.h>

namespace {
__global__ void __launch_bounds__(256) double_words(uint64_t* d_v, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) d_v[i] *= 2;
}
}  // namespace

cudaError_t launch_double_words(uint64_t* d_v, size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  unsigned blocks = unsigned((n + 255) / 256);
  double_words<<<blocks, 256, 0, stream>>>(d_v, n);
  return cudaGetLastError();
}
