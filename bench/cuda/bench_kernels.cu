// Device helpers of the GPU benchmarks: scalar generation (splitmix64, so the
// host does not have to produce gigabytes of scalars), tiling of base points,
// and the ones-bitmap of the prep_msm split.
#include "bench_util.hpp"
#include "cuda/common.cuh"

namespace starzk::gpu::bench {
namespace {

__device__ __forceinline__ uint64_t splitmix(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// R mod r (Montgomery one), as the host fr_t::one().
__constant__ uint64_t one_limbs[4] = {0x00000001fffffffeull, 0x5884b7fa00034802ull, 0x998c4fefecbc4ff5ull,
                                      0x1824b159acc5056full};

__global__ void __launch_bounds__(256) fill_kernel(uint64_t* out, size_t n, int kind, uint64_t seed) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  uint64_t st = seed ^ (i * 0xd1b54a32d192ed03ull);
  uint64_t v[4] = {splitmix(st), splitmix(st), splitmix(st), splitmix(st) & 0x3fffffffffffffffull};
  if (kind == 1 || kind == 2) {
    // Per mille: zero below z, one below o, random above.
    const uint64_t u = splitmix(st) % 1000, z = kind == 1 ? 450 : 493, o = kind == 1 ? 900 : 986;
    if (u < z)
      v[0] = v[1] = v[2] = v[3] = 0;
    else if (u < o)
      for (int k = 0; k < 4; ++k) v[k] = one_limbs[k];
  }
  for (int k = 0; k < 4; ++k) out[4 * i + k] = v[k];
}

__global__ void __launch_bounds__(256) tile_kernel(uint4* dst, size_t n_words, const uint4* src, size_t m_words) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n_words) dst[i] = src[i % m_words];
}

__global__ void __launch_bounds__(256) bitmap_kernel(uint32_t* bitmap, const uint64_t* s, size_t n) {
  const size_t w = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (w * 32 >= n) return;
  uint32_t bits = 0;
  for (unsigned b = 0; b < 32 && w * 32 + b < n; ++b) {
    const uint64_t* x = s + 4 * (w * 32 + b);
    bool one = true;
    for (int k = 0; k < 4; ++k) one &= x[k] == one_limbs[k];
    bits |= uint32_t(one) << b;
  }
  bitmap[w] = bits;
}

}  // namespace

void fill_scalars(fr_t* d, size_t n, int kind, uint64_t seed, cudaStream_t s) {
  fill_kernel<<<grid_for(n, 256), 256, 0, s>>>(reinterpret_cast<uint64_t*>(d), n, kind, seed);
  check_cuda(cudaGetLastError(), "fill_scalars");
}
void tile_points(g1_affine_t* d_dst, size_t n, const g1_affine_t* d_src, size_t m, cudaStream_t s) {
  const size_t nw = n * sizeof(g1_affine_t) / 16, mw = m * sizeof(g1_affine_t) / 16;
  tile_kernel<<<grid_for(nw, 256), 256, 0, s>>>(reinterpret_cast<uint4*>(d_dst), nw,
                                                reinterpret_cast<const uint4*>(d_src), mw);
  check_cuda(cudaGetLastError(), "tile_points");
}
void ones_bitmap(uint32_t* d_bitmap, const fr_t* d_scalars, size_t n, cudaStream_t s) {
  const size_t words = (n + 31) / 32;
  bitmap_kernel<<<grid_for(words, 256), 256, 0, s>>>(d_bitmap, reinterpret_cast<const uint64_t*>(d_scalars), n);
  check_cuda(cudaGetLastError(), "ones_bitmap");
}

}  // namespace starzk::gpu::bench
