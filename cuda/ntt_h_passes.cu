// The Groth16 H phase in passes, for a device that cannot hold a, b and c
// at once (a 2^27 partition's three vectors are 12 GiB; a 16 GB card has
// 15.6 GiB in all). The vectors stay in host memory (page-locked, so the
// copies are DMA) and cross the device through device scratch, in one of
// two forms, by the vectors of scratch the caller could give:
//
// One vector V and two small staging buffers (n·32 bytes + 2 chunks):
//   1. for x in a, b: V <- x; V <- NTT_coset(iNTT(V)); x <- V
//      (host a, b now hold the values on the coset);
//   2. V <- c; V <- NTT_coset(iNTT(V));
//   3. chunk by chunk k: Sa <- a[k], Sb <- b[k]; V[k] <- Sa·Sb - V[k], times
//      z = (g^n - 1)^-1 for bellman (the same pointwise step as ntt_h's);
//   4. bellman: V <- coset iNTT(V), natural order; snarkjs: nothing;
//   5. a <- V.
//   PCIe traffic 32·n·(3 + 2 + 2 + 1) bytes (c in; a, b in, out and in
//   again; h out): 32 GiB at 2^27, every copy on the one stream, so the
//   copies and the transforms take turns.
//
// Two vectors V0, V1 (2·n·32 bytes), the copies in on a stream of their
// own so that they run under the transforms:
//   1. V0 <- a, V1 <- b (copy stream); V0 <- NTT_coset(iNTT(V0)) once a is
//      in, then V1 the same once b is in (b's copy runs under a's
//      transforms);
//   2. V0 <- V0·V1: the product on the coset, and V1 is free;
//   3. V1 <- c (copy stream, after the product); V1 <- NTT_coset(iNTT(V1));
//   4. V0 <- (V0 - V1)·z (bellman; snarkjs without z); bellman: V0 <-
//      coset iNTT(V0);
//   5. a <- V0.
//   PCIe traffic 32·n·4 bytes (a, b, c in; h out): 16 GiB at 2^27, of which
//   a's copy, c's and h's are not hidden (c's waits for V1 to be free).
//
// With a already on the device (ntt_h_passes_a_on_device: StarPU copied it
// there for the task, and h stays there for msm_h), V0 is a's own buffer:
// the two-vector form takes V1 from the scratch and skips a's copy in and
// h's copy out (PCIe 32·n·3 bytes: b, c in); the one-vector form runs the
// steps above on V = a's buffer with two staging chunks of scratch, keeping
// a's values on the coset in a spare host array instead of host a (32·n·5:
// a out, b in and out, c in, a and b in again by chunks).
//
// The transforms are gpu::ntt's (the same passes as ntt_h: iNTT natural ->
// bit-reversed, then the coset NTT bit-reversed -> natural with g^k on the
// loads), and the pointwise steps compute what ntt_h's does, so h is the
// element-for-element result of ntt_h in both forms. Everything is
// enqueued on `stream` (the two-vector form's copies on a second stream
// that `stream` waits for): host a, b, c must stay untouched until it has
// run.
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

// v0 <- v0·v1 (the two-vector form's step 2).
__global__ void __launch_bounds__(256) mul_into_kernel(dev_fr_t* v0, const dev_fr_t* v1, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  v0[i] = v0[i] * v1[i];
}

// v0 <- (v0 - v1)·z (z optional): the two-vector form's step 4.
__global__ void __launch_bounds__(256) sub_into_kernel(dev_fr_t* v0, const dev_fr_t* v1, size_t n, const dev_fr_t* z) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  dev_fr_t h = v0[i] - v1[i];
  if (z) h = h * *z;
  v0[i] = h;
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

// bellman's z = (g^n - 1)^-1 in the domain's scalars; snarkjs: none.
const dev_fr_t* z_of(root_convention_t conv, unsigned log_n, const void* d_domain) {
  if (conv != root_convention_t::bellman) return nullptr;
  return static_cast<const dev_fr_t*>(d_domain) + ntt_layout_t::make(log_n).scalars + 1;
}

// 4-5 of both forms: bellman's coset iNTT to coefficients, natural order,
// then h to host a (where a came from the host: h_a not null).
cudaError_t finish(fr_t* h_a, fr_t* v, unsigned log_n, root_convention_t conv, const void* d_domain, cudaStream_t s,
                   const ntt_tuning_t& tune) {
  if (conv == root_convention_t::bellman)
    SZK_TRY(ntt(v, log_n, ntt_dir_t::inverse, ntt_order_t::natural_to_natural, ntt_coset_t::coset, d_domain, s, tune));
  if (!h_a) return cudaSuccess;
  return cudaMemcpyAsync(h_a, v, (size_t(1) << log_n) * sizeof(fr_t), cudaMemcpyDeviceToHost, s);
}

// The one-vector form on V (n elements) and the staging chunks sa, sb.
// h_a: a in host memory (copied into V first, h copied back at the end),
// or null where V already holds a (h stays there); a's values on the coset
// are kept in `store` (h_a itself, or the caller's spare host array).
cudaError_t passes_one(fr_t* h_a, fr_t* store, fr_t* h_b, const fr_t* h_c, unsigned log_n, root_convention_t conv,
                       const void* d_domain, fr_t* v, fr_t* sa, fr_t* sb, size_t chunk, cudaStream_t s,
                       const ntt_tuning_t& tune) {
  const size_t n = size_t(1) << log_n, bytes = n * sizeof(fr_t);
  // 1-2: a and b to the coset and out to the host, then c kept in V.
  if (h_a) SZK_TRY(cudaMemcpyAsync(v, h_a, bytes, cudaMemcpyHostToDevice, s));
  SZK_TRY(to_coset(v, log_n, d_domain, s, tune));
  SZK_TRY(cudaMemcpyAsync(store, v, bytes, cudaMemcpyDeviceToHost, s));
  SZK_TRY(cudaMemcpyAsync(v, h_b, bytes, cudaMemcpyHostToDevice, s));
  SZK_TRY(to_coset(v, log_n, d_domain, s, tune));
  SZK_TRY(cudaMemcpyAsync(h_b, v, bytes, cudaMemcpyDeviceToHost, s));
  SZK_TRY(cudaMemcpyAsync(v, h_c, bytes, cudaMemcpyHostToDevice, s));
  SZK_TRY(to_coset(v, log_n, d_domain, s, tune));
  // 3: the pointwise step, a and b streamed in chunks.
  const dev_fr_t* z = z_of(conv, log_n, d_domain);
  for (size_t at = 0; at < n; at += chunk) {
    const size_t len = std::min(chunk, n - at);
    SZK_TRY(cudaMemcpyAsync(sa, store + at, len * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    SZK_TRY(cudaMemcpyAsync(sb, h_b + at, len * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    abc_into_kernel<<<grid_for(len, 256), 256, 0, s>>>(reinterpret_cast<dev_fr_t*>(v + at),
                                                       reinterpret_cast<const dev_fr_t*>(sa),
                                                       reinterpret_cast<const dev_fr_t*>(sb), len, z);
    SZK_CHECK_LAUNCH();
  }
  return finish(h_a, v, log_n, conv, d_domain, s, tune);
}

// The two-vector form's copy stream and its events. The stream starts after
// the work already on the main stream (the scratch's earlier users). On an
// error return the destructor drains it, so that no copy still writes into
// the caller's scratch; on success the main stream has waited for its last
// copy, so nothing waits here.
struct copy_stream_t {
  cudaStream_t t = nullptr;
  cudaEvent_t ev[4] = {};  // marks of the main stream (its start, later the product done), a in, b in, c in
  bool ok = false;
  ~copy_stream_t() {
    if (t && !ok) cudaStreamSynchronize(t);
    for (cudaEvent_t e : ev)
      if (e) cudaEventDestroy(e);
    if (t) cudaStreamDestroy(t);
  }
  cudaError_t init(cudaStream_t s) {
    SZK_TRY(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    for (cudaEvent_t& e : ev) SZK_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    SZK_TRY(cudaEventRecord(ev[0], s));
    return cudaStreamWaitEvent(t, ev[0], 0);
  }
  // dst <- src on the copy stream, recorded in ev[k].
  cudaError_t in(fr_t* dst, const fr_t* src, size_t bytes, int k) {
    SZK_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, t));
    return cudaEventRecord(ev[k], t);
  }
};

// The two-vector form on V0 and V1 (n elements each). h_a: a in host
// memory (copied into V0 first, h copied back at the end), or null where
// V0 already holds a (h stays there).
cudaError_t passes_two(fr_t* h_a, const fr_t* h_b, const fr_t* h_c, unsigned log_n, root_convention_t conv,
                       const void* d_domain, fr_t* v0, fr_t* v1, cudaStream_t s, const ntt_tuning_t& tune) {
  const size_t n = size_t(1) << log_n, bytes = n * sizeof(fr_t);
  auto* d0 = reinterpret_cast<dev_fr_t*>(v0);
  auto* d1 = reinterpret_cast<dev_fr_t*>(v1);
  copy_stream_t cp;
  SZK_TRY(cp.init(s));
  // 1: a (unless there) and b in, each to the coset once it has landed.
  if (h_a) SZK_TRY(cp.in(v0, h_a, bytes, 1));
  SZK_TRY(cp.in(v1, h_b, bytes, 2));
  if (h_a) SZK_TRY(cudaStreamWaitEvent(s, cp.ev[1], 0));
  SZK_TRY(to_coset(v0, log_n, d_domain, s, tune));
  SZK_TRY(cudaStreamWaitEvent(s, cp.ev[2], 0));
  SZK_TRY(to_coset(v1, log_n, d_domain, s, tune));
  // 2: the product on the coset; V1 is free once it has run.
  mul_into_kernel<<<grid_for(n, 256), 256, 0, s>>>(d0, d1, n);
  SZK_CHECK_LAUNCH();
  SZK_TRY(cudaEventRecord(cp.ev[0], s));
  SZK_TRY(cudaStreamWaitEvent(cp.t, cp.ev[0], 0));
  // 3: c in and to the coset.
  SZK_TRY(cp.in(v1, h_c, bytes, 3));
  SZK_TRY(cudaStreamWaitEvent(s, cp.ev[3], 0));
  SZK_TRY(to_coset(v1, log_n, d_domain, s, tune));
  // 4: (a·b - c)·z into V0.
  sub_into_kernel<<<grid_for(n, 256), 256, 0, s>>>(d0, d1, n, z_of(conv, log_n, d_domain));
  SZK_CHECK_LAUNCH();
  cp.ok = true;  // the main stream has waited for every copy
  return finish(h_a, v0, log_n, conv, d_domain, s, tune);
}

}  // namespace

size_t ntt_h_passes_scratch_bytes(unsigned log_n, size_t chunk, unsigned vectors) {
  if (log_n < 1 || log_n > ntt_max_log) return 0;
  const size_t n = size_t(1) << log_n;
  if (vectors == 2) return sizeof(fr_t) * 2 * n;
  return vectors == 1 ? sizeof(fr_t) * (n + 2 * chunk_for(log_n, chunk)) : 0;
}

size_t ntt_h_passes_a_on_device_scratch_bytes(unsigned log_n, size_t chunk, unsigned vectors) {
  if (log_n < 1 || log_n > ntt_max_log) return 0;
  const size_t n = size_t(1) << log_n;
  if (vectors == 2) return sizeof(fr_t) * n;
  return vectors == 1 ? sizeof(fr_t) * 2 * chunk_for(log_n, chunk) : 0;
}

cudaError_t ntt_h_passes(fr_t* h_a, fr_t* h_b, const fr_t* h_c, unsigned log_n, root_convention_t conv,
                         const void* d_domain, void* d_scratch, size_t scratch_bytes, size_t chunk, cudaStream_t s,
                         const ntt_tuning_t& tune, unsigned vectors) {
  if (log_n < 1 || log_n > ntt_max_log || !h_a || !h_b || !h_c || !d_domain || !d_scratch) return cudaErrorInvalidValue;
  const size_t need = ntt_h_passes_scratch_bytes(log_n, chunk, vectors);
  if (need == 0 || scratch_bytes < need) return cudaErrorInvalidValue;
  const size_t n = size_t(1) << log_n, ch = chunk_for(log_n, chunk);
  fr_t* v = static_cast<fr_t*>(d_scratch);
  if (vectors == 2) return passes_two(h_a, h_b, h_c, log_n, conv, d_domain, v, v + n, s, tune);
  return passes_one(h_a, h_a, h_b, h_c, log_n, conv, d_domain, v, v + n, v + n + ch, ch, s, tune);
}

cudaError_t ntt_h_passes_a_on_device(fr_t* d_a, fr_t* h_spare, fr_t* h_b, const fr_t* h_c, unsigned log_n,
                                     root_convention_t conv, const void* d_domain, void* d_scratch,
                                     size_t scratch_bytes, size_t chunk, cudaStream_t s, const ntt_tuning_t& tune,
                                     unsigned vectors) {
  if (log_n < 1 || log_n > ntt_max_log || !d_a || !h_b || !h_c || !d_domain || !d_scratch || (vectors == 1 && !h_spare))
    return cudaErrorInvalidValue;
  const size_t need = ntt_h_passes_a_on_device_scratch_bytes(log_n, chunk, vectors);
  if (need == 0 || scratch_bytes < need) return cudaErrorInvalidValue;
  const size_t ch = chunk_for(log_n, chunk);
  fr_t* v = static_cast<fr_t*>(d_scratch);
  if (vectors == 2) return passes_two(nullptr, h_b, h_c, log_n, conv, d_domain, d_a, v, s, tune);
  return passes_one(nullptr, h_spare, h_b, h_c, log_n, conv, d_domain, d_a, v, v + ch, ch, s, tune);
}

}  // namespace starzk::gpu
