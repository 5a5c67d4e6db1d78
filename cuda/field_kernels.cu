// Element-wise launchers of the device fields (Fp, Fr, Fp2) and the Fp
// multiplication-rate probe. The tests compare these with the host fp_t /
// fr_t / fp2_t on random and edge inputs; the benchmark times the probe
// against the bar of a plain CUDA C CIOS product (1.66e10 mults/s, docs/prover.md, Floors).
#include "cuda/starzk_cuda.hpp"
#include "cuda/point.cuh"

namespace starzk::gpu {
namespace {

template <class F>
SZK_D F apply(field_op_t op, const F& a, const F& b) {
  switch (op) {
    case field_op_t::add:
      return a + b;
    case field_op_t::sub:
      return a - b;
    case field_op_t::mul:
      return a * b;
    case field_op_t::sqr:
      return a.sqr();
    case field_op_t::neg:
      return -a;
    case field_op_t::dbl:
      return a.dbl();
    case field_op_t::inv:
      return a.inverse();
    default:
      return a;
  }
}

template <class F>
__global__ void __launch_bounds__(256) elementwise_kernel(field_op_t op, F* out, const F* a, const F* b, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const F x = a[i];
  const F y = b ? b[i] : x;
  if constexpr (sizeof(F) == sizeof(dev_fp2_t)) {
    out[i] = apply(op, x, y);
  } else {
    if (op == field_op_t::from_mont)
      out[i] = x.from_mont();
    else if (op == field_op_t::to_mont)
      out[i] = x.to_mont();
    else if (op == field_op_t::inv_binary)
      out[i] = x.inverse_binary();
    else
      out[i] = apply(op, x, y);
  }
}

template <class F, class H>
cudaError_t launch_elementwise(field_op_t op, H* d_out, const H* d_a, const H* d_b, size_t n, cudaStream_t s) {
  static_assert(sizeof(F) == sizeof(H), "device and host layouts differ");
  if (n == 0) return cudaSuccess;
  if (!d_out || !d_a) return cudaErrorInvalidValue;
  elementwise_kernel<F><<<grid_for(n, 256), 256, 0, s>>>(
      op, reinterpret_cast<F*>(d_out), reinterpret_cast<const F*>(d_a), reinterpret_cast<const F*>(d_b), n);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

// Four independent chains hide the latency of one dependent product.
__global__ void __launch_bounds__(256) mul_probe_kernel(dev_fp_t* out, const dev_fp_t* seed, size_t n, unsigned iters) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const dev_fp_t y = seed[0];
  dev_fp_t x0 = seed[1], x1 = seed[2], x2 = seed[3], x3 = seed[4];
  x0.l[0] ^= uint32_t(i);  // distinct work per thread (values stay < p: low bits only)
  for (unsigned k = 0; k < iters; ++k) {
    x0 = x0 * y;
    x1 = x1 * y;
    x2 = x2 * y;
    x3 = x3 * y;
  }
  out[i] = (x0 + x1) + (x2 + x3);
}

}  // namespace

cudaError_t fp_elementwise(field_op_t op, fp_t* d_out, const fp_t* d_a, const fp_t* d_b, size_t n, cudaStream_t s) {
  return launch_elementwise<dev_fp_t>(op, d_out, d_a, d_b, n, s);
}
cudaError_t fr_elementwise(field_op_t op, fr_t* d_out, const fr_t* d_a, const fr_t* d_b, size_t n, cudaStream_t s) {
  return launch_elementwise<dev_fr_t>(op, d_out, d_a, d_b, n, s);
}
cudaError_t fp2_elementwise(field_op_t op, fp2_t* d_out, const fp2_t* d_a, const fp2_t* d_b, size_t n, cudaStream_t s) {
  if (op == field_op_t::from_mont || op == field_op_t::to_mont || op == field_op_t::inv_binary)
    return cudaErrorInvalidValue;
  return launch_elementwise<dev_fp2_t>(op, d_out, d_a, d_b, n, s);
}

cudaError_t fp_mul_probe(fp_t* d_out, const fp_t* d_seed, size_t n, unsigned iters, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  mul_probe_kernel<<<grid_for(n, 256), 256, 0, s>>>(reinterpret_cast<dev_fp_t*>(d_out),
                                                    reinterpret_cast<const dev_fp_t*>(d_seed), n, iters);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

}  // namespace starzk::gpu
