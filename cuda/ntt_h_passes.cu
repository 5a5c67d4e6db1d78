// The Groth16 H phase in passes, for a device that cannot hold a, b and c
// at once (a 2^27 partition's three vectors are 12 GiB; a 16 GB card has
// 15.6 GiB in all). The vectors stay in host memory (page-locked, so the
// copies are DMA) and cross the device one at a time through one vector of
// device scratch V and two small staging buffers:
//   1. for x in a, b: V <- x; V <- NTT_coset(iNTT(V)); x <- V
//      (host a, b now hold the values on the coset);
//   2. V <- c; V <- NTT_coset(iNTT(V));
//   3. chunk by chunk k: Sa <- a[k], Sb <- b[k]; V[k] <- Sa·Sb - V[k], times
//      z = (g^n - 1)^-1 for bellman (the same pointwise step as ntt_h's);
//   4. bellman: V <- coset iNTT(V), natural order; snarkjs: nothing;
//   5. a <- V.
// The transforms are gpu::ntt's (the same passes as ntt_h: iNTT natural ->
// bit-reversed, then the coset NTT bit-reversed -> natural with g^k on the
// loads), so h is the element-for-element result of ntt_h. Device
// memory: n·32 bytes + 2 staging chunks; PCIe traffic 32·n·(3 + 2 + 2 + 1)
// bytes (c in; a, b in, out and in again; h out): 32 GiB at 2^27.
// Everything is enqueued on `stream`; host a, b, c must stay untouched until
// it has run.
#include <algorithm>

#include "cuda/field.cuh"
#include "cuda/ntt_domain.hpp"
#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {
namespace {

// v <- (a·b - v)·z (z optional): step 3 on one chunk.
__global__ void __launch_bounds__(256)
    abc_into_kernel(dev_fr_t* v, const dev_fr_t* a, const dev_fr_t* b, size_t n, const dev_fr_t* z) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  dev_fr_t h = a[i] * b[i] - v[i];
  if (z) h = h * *z;
  v[i] = h;
}

// iNTT (natural -> bit-reversed, 1/n), then the coset NTT (bit-reversed ->
// natural, g^k on the loads): the values of x's polynomial on the coset.
cudaError_t to_coset(fr_t* v, unsigned log_n, const void* d_domain, cudaStream_t s, const ntt_tuning_t& tune) {
  SZK_TRY(ntt(v, log_n, ntt_dir_t::inverse, ntt_order_t::natural_to_reversed, ntt_coset_t::none, d_domain, s, tune));
  return ntt(v, log_n, ntt_dir_t::forward, ntt_order_t::reversed_to_natural, ntt_coset_t::coset, d_domain, s, tune);
}

size_t chunk_for(unsigned log_n, size_t chunk) {
  const size_t n = size_t(1) << log_n;
  return std::max<size_t>(1, std::min(n, chunk));
}

}  // namespace

size_t ntt_h_passes_scratch_bytes(unsigned log_n, size_t chunk) {
  if (log_n < 1 || log_n > ntt_max_log) return 0;
  return sizeof(fr_t) * ((size_t(1) << log_n) + 2 * chunk_for(log_n, chunk));
}

cudaError_t ntt_h_passes(fr_t* h_a, fr_t* h_b, const fr_t* h_c, unsigned log_n, root_convention_t conv,
                         const void* d_domain, void* d_scratch, size_t scratch_bytes, size_t chunk, cudaStream_t s,
                         const ntt_tuning_t& tune) {
  if (log_n < 1 || log_n > ntt_max_log || !h_a || !h_b || !h_c || !d_domain || !d_scratch) return cudaErrorInvalidValue;
  if (scratch_bytes < ntt_h_passes_scratch_bytes(log_n, chunk)) return cudaErrorInvalidValue;
  const size_t n = size_t(1) << log_n, bytes = n * sizeof(fr_t);
  chunk = chunk_for(log_n, chunk);
  fr_t* v = static_cast<fr_t*>(d_scratch);
  fr_t* sa = v + n;
  fr_t* sb = sa + chunk;
  // 1-2: a and b to the coset and back to the host, then c kept in V.
  for (fr_t* x : {h_a, h_b}) {
    SZK_TRY(cudaMemcpyAsync(v, x, bytes, cudaMemcpyHostToDevice, s));
    SZK_TRY(to_coset(v, log_n, d_domain, s, tune));
    SZK_TRY(cudaMemcpyAsync(x, v, bytes, cudaMemcpyDeviceToHost, s));
  }
  SZK_TRY(cudaMemcpyAsync(v, h_c, bytes, cudaMemcpyHostToDevice, s));
  SZK_TRY(to_coset(v, log_n, d_domain, s, tune));
  // 3: the pointwise step, a and b streamed in chunks.
  const bool bellman = conv == root_convention_t::bellman;
  const dev_fr_t* z =
      bellman ? static_cast<const dev_fr_t*>(d_domain) + ntt_layout_t::make(log_n).scalars + 1 : nullptr;
  for (size_t at = 0; at < n; at += chunk) {
    const size_t len = std::min(chunk, n - at);
    SZK_TRY(cudaMemcpyAsync(sa, h_a + at, len * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    SZK_TRY(cudaMemcpyAsync(sb, h_b + at, len * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    abc_into_kernel<<<grid_for(len, 256), 256, 0, s>>>(reinterpret_cast<dev_fr_t*>(v + at),
                                                       reinterpret_cast<const dev_fr_t*>(sa),
                                                       reinterpret_cast<const dev_fr_t*>(sb), len, z);
    SZK_CHECK_LAUNCH();
  }
  // 4-5: bellman's coset iNTT to coefficients, natural order; h to a.
  if (bellman)
    SZK_TRY(ntt(v, log_n, ntt_dir_t::inverse, ntt_order_t::natural_to_natural, ntt_coset_t::coset, d_domain, s, tune));
  return cudaMemcpyAsync(h_a, v, bytes, cudaMemcpyDeviceToHost, s);
}

}  // namespace starzk::gpu
