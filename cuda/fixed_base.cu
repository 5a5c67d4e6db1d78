// Fixed-base scalar multiplication on the device, out[i] = k[i]·G for one
// base G of G1 or G2: the bulk of a Groth16 development setup (5n products by
// the G1 generator, n by the G2 one; see src/groth16/setup.hpp).
//
// Comb table with 8-bit digits (the method of the host fixed_base_t in
// src/groth16/setup.cpp; Lim and Lee, "More flexible exponentiation with
// precomputation", CRYPTO '94, in its simplest one-row form): write the
// canonical scalar as k = sum_{w<32} d_w·2^(8w), d_w a byte, and store
//     T[w][d] = d·2^(8w)·G   (w < 32, d < 256; T[w][0] = O, never read),
// affine, 8192 points (768 KiB for G1, 1.5 MiB for G2: the hot rows stay in
// L2). Then k·G = sum_w T[w][d_w]: at most 32 mixed additions and no
// doubling. XYZZ accumulator, madd-2008-s (8M + 2S; EFD
// g1p/auto-shortw-xyzz.html), the first non-zero digit a free from_affine:
// at most 31·(8M + 2S) = 310 Fp products per G1 point, 31·(8·3 + 2·2) = 868
// per G2 point (Fp2 Karatsuba: M = 3 Fp products, S = 2).
// For a canonical k (< r < 2^255) the partial sums are distinct multiples of
// G below r, so the equal and opposite cases of madd never occur; the
// formula still dispatches them (point.cuh), so any input stays correct.
//
// Table: 32 blocks (one per window w) of 256 threads (one per digit d).
// Thread 0 doubles G 8w times (dbl-2008-s-1, 6M + 3S) into shared memory;
// thread d takes d·2^(8w)·G by double-and-add on its 8 bits and makes it
// affine with its own inversion (8192 inversions once per base: noise).
//
// Products: one point per thread (grid-stride), the XYZZ sum of its
// digits' table entries, written as is (ZZ = 0 for O): the caller makes
// them affine (src/keys/gpu_setup.cpp does it on the host with one batched
// inversion per chunk of points, on all cores), which keeps the device side
// to the accumulation alone.
//
// The launchers (starzk_cuda.hpp) are templates over the host curve P,
// instantiated for G1 and G2 at the bottom; the kernels are templates over
// the curve's device field (curve_bundle_t<P>::field_type, msm_curve.cuh).
#include <algorithm>
#include <cstring>

#include "cuda/msm_curve.cuh"

namespace starzk::gpu {
namespace {

constexpr unsigned fb_windows = 32;  // bytes of a 256-bit scalar
constexpr unsigned fb_digits = 256;  // table entries per window (entry 0 = O)
constexpr size_t fb_entries = size_t(fb_windows) * fb_digits;

// XYZZ -> affine with one inversion: t = (ZZ·ZZZ)^-1, x = X·(t·ZZZ), y = Y·(t·ZZ).
// 5M + 1I. O -> (0, 0).
template <class F>
SZK_D dev_affine_t<F> to_affine_single(const dev_xyzz_t<F>& p) {
  if (p.is_infinity()) return {F::zero(), F::zero()};
  const F t = (p.zz * p.zzz).inverse();
  return {p.x * (t * p.zzz), p.y * (t * p.zz)};
}

template <class F>
__global__ void __launch_bounds__(fb_digits) table_kernel(dev_affine_t<F> g, dev_affine_t<F>* table) {
  __shared__ dev_xyzz_t<F> base;  // 2^(8w)·G, w = blockIdx.x
  if (threadIdx.x == 0) {
    dev_xyzz_t<F> b = dev_xyzz_t<F>::from_affine(g);
    for (unsigned i = 0; i < 8 * blockIdx.x; ++i) b = b.dbl();
    base = b;
  }
  __syncthreads();
  const dev_xyzz_t<F> p = base.mul_u32(threadIdx.x);
  table[size_t(blockIdx.x) * fb_digits + threadIdx.x] = to_affine_single(p);
}

// Thread t owns the points i = t + j·T (T threads: coalesced). Each is the
// XYZZ sum of its non-zero digits' table entries, written as is.
template <class F>
__global__ void __launch_bounds__(256)
    fixed_base_kernel(dev_xyzz_t<F>* out, const dev_fr_t* k, size_t n, const dev_affine_t<F>* __restrict__ table) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const dev_fr_t c = k[i].from_mont();  // canonical digits
    dev_xyzz_t<F> acc = dev_xyzz_t<F>::infinity();
#pragma unroll 1
    for (unsigned w = 0; w < fb_windows; ++w) {
      const uint32_t d = (c.l[w >> 2] >> (8 * (w & 3))) & 0xffu;
      if (d) acc = acc.add_mixed(table[w * fb_digits + d]);
    }
    out[i] = acc;
  }
}

}  // namespace

template <class P>
size_t fixed_base_table_bytes() {
  return fb_entries * sizeof(typename curve_bundle_t<P>::affine_type);
}

template <class P>
cudaError_t fixed_base_table_init(void* d_table, const affine_t<P>& g, cudaStream_t s) {
  using F = typename curve_bundle_t<P>::field_type;
  static_assert(sizeof(affine_t<P>) == sizeof(dev_affine_t<F>), "host and device affine layouts differ");
  if (!d_table) return cudaErrorInvalidValue;
  dev_affine_t<F> dg;
  std::memcpy(static_cast<void*>(&dg), &g, sizeof dg);
  table_kernel<F><<<fb_windows, fb_digits, 0, s>>>(dg, static_cast<dev_affine_t<F>*>(d_table));
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

template <class P>
cudaError_t fixed_base(xyzz_t<P>* d_out, const fr_t* d_k, size_t n, const void* d_table, cudaStream_t s,
                       const fixed_base_tuning_t& tune) {
  using F = typename curve_bundle_t<P>::field_type;
  static_assert(sizeof(xyzz_t<P>) == sizeof(dev_xyzz_t<F>), "host and device XYZZ layouts differ");
  if (n == 0) return cudaSuccess;
  if (!d_out || !d_k || !d_table) return cudaErrorInvalidValue;
  if (tune.block == 0 || tune.block > 256 || tune.block % 32) return cudaErrorInvalidValue;
  const size_t blocks = std::min<size_t>((n + tune.block - 1) / tune.block, size_t(1) << 20);
  fixed_base_kernel<F><<<unsigned(blocks), tune.block, 0, s>>>(reinterpret_cast<dev_xyzz_t<F>*>(d_out),
                                                               reinterpret_cast<const dev_fr_t*>(d_k), n,
                                                               static_cast<const dev_affine_t<F>*>(d_table));
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

template size_t fixed_base_table_bytes<g1_params>();
template size_t fixed_base_table_bytes<g2_params>();
template cudaError_t fixed_base_table_init<g1_params>(void*, const g1_affine_t&, cudaStream_t);
template cudaError_t fixed_base_table_init<g2_params>(void*, const g2_affine_t&, cudaStream_t);
template cudaError_t fixed_base<g1_params>(g1_xyzz_t*, const fr_t*, size_t, const void*, cudaStream_t,
                                           const fixed_base_tuning_t&);
template cudaError_t fixed_base<g2_params>(g2_xyzz_t*, const fr_t*, size_t, const void*, cudaStream_t,
                                           const fixed_base_tuning_t&);

}  // namespace starzk::gpu
