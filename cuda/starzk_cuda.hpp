// starzk_cuda: the public device API of the CUDA kernels (H200, sm_90).
//
// Every launcher takes device pointers, a cudaStream_t and, where it needs
// working memory, caller-provided scratch whose size is asked for first with
// the matching *_scratch_bytes / *_bytes query (CUB habit). Launchers only
// enqueue work on the given stream: no allocation, no device-wide call
// (cudaDeviceSynchronize, cudaMemPoolTrimTo), no host synchronisation. They
// return cudaError_t and never throw, so a StarPU CUDA codelet can call them
// directly with starpu_cuda_get_local_stream(). Data use the host layouts of
// src/ff and src/ec byte for byte (fr_t 32 B, fp_t 48 B, g1_affine_t 96 B
// with O = (0,0), g1_xyzz_t 192 B), so host arrays go to the device with a
// plain cudaMemcpy. Launch shapes are data: the *_tuning_t structs.
//
// Host-pointer conveniences for tests and benchmarks: cuda/starzk_cuda_host.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

#include "ec/xyzz.hpp"
#include "ff/fp2.hpp"
#include "ff/fr.hpp"

namespace starzk::gpu {

// ---------------------------------------------------------------- fields --
// Element-wise field operations on device arrays (tests, benchmarks, and a
// reference of what the device field computes). Unary ops ignore d_b.
// inv maps 0 to 0; from_mont/to_mont convert Montgomery <-> canonical.
enum class field_op_t { add, sub, mul, sqr, neg, dbl, inv, from_mont, to_mont };
cudaError_t fp_elementwise(field_op_t op, fp_t* d_out, const fp_t* d_a, const fp_t* d_b, size_t n,
                           cudaStream_t stream);
cudaError_t fr_elementwise(field_op_t op, fr_t* d_out, const fr_t* d_a, const fr_t* d_b, size_t n,
                           cudaStream_t stream);
// Fp2 supports add, sub, mul, sqr, neg, dbl, inv.
cudaError_t fp2_elementwise(field_op_t op, fp2_t* d_out, const fp2_t* d_a, const fp2_t* d_b, size_t n,
                            cudaStream_t stream);
// Throughput probe: each of n threads runs `iters` dependent Fp products
// x <- x·y + x (4 interleaved chains) and stores one element to d_out[i].
// Multiplications done: 4·n·iters.
cudaError_t fp_mul_probe(fp_t* d_out, const fp_t* d_seed, size_t n, unsigned iters, cudaStream_t stream);

// ------------------------------------------------------------------- NTT --
// Which 2^k-th roots of unity: snarkjs w = 5^((r-1)/2^k) (coset shift of the
// H phase: w_{2n}); bellman w = 7^((r-1)/2^k) (coset shift: g = 7).
enum class root_convention_t { snarkjs, bellman };
enum class ntt_dir_t { forward, inverse };
// natural_to_reversed: decimation in frequency (Gentleman-Sande);
// reversed_to_natural: decimation in time (Cooley-Tukey);
// natural_to_natural: DIF then a bit-reversal pass.
enum class ntt_order_t { natural_to_reversed, reversed_to_natural, natural_to_natural };
// none: plain transform. forward + coset: evaluate on g·H, i.e. multiply
// coefficient k by g^k first; inverse + coset: interpolate from g·H, i.e.
// multiply output coefficient k by g^-k last (g = the domain's coset shift).
enum class ntt_coset_t { none, coset };

inline constexpr unsigned ntt_max_log = 27;

// Device tables of one domain (n = 2^log_n): twiddles for both directions
// (a full table of n/2 roots per direction above 2^17: about n·32 bytes in
// all, 512 MiB at 2^24), powers of the coset shift and its inverse, 1/n. Built on the host and
// copied to d_domain (the copy is enqueued on `stream`; the host staging
// buffer is released before return).
size_t ntt_domain_bytes(unsigned log_n);
cudaError_t ntt_domain_init(void* d_domain, unsigned log_n, root_convention_t conv, cudaStream_t stream);

struct ntt_tuning_t {
  unsigned block = 256;  // threads per block of the shared-memory passes
};
// In-place transform of n = 2^log_n elements (1 <= log_n <= 27).
cudaError_t ntt(fr_t* d_data, unsigned log_n, ntt_dir_t dir, ntt_order_t order, ntt_coset_t coset,
                const void* d_domain, cudaStream_t stream, const ntt_tuning_t& tune = {});

// The whole NTT phase of a Groth16 proof, one call, in place: a, b, c are
// the n SpMV outputs in natural order (n = 2^log_n); h (natural order) is left
// in d_a, b and c are clobbered. The domain must be of the same convention.
//   bellman (DESIGN.md section 2): for x in a, b, c: x <- iNTT(x) (coeffs),
//     x_k <- x_k·g^k (g = 7), x <- NTT(x) (values on gH);
//     h <- (a∘b - c)·(g^n - 1)^-1 (Z(X) = X^n - 1 is the constant g^n - 1 on gH);
//     h <- iNTT(h), h_k <- h_k·g^-k: h(X) = (A B - C)/Z in coefficients.
//   snarkjs: for x in a, b, c: x <- iNTT(x), x_k <- x_k·w_{2n}^k, x <- NTT(x)
//     (values on the odd coset w_{2n}·H); h_i <- a_i·b_i - c_i. No division
//     and no final iNTT: the .zkey hExps already carry 1/Z and the Lagrange
//     basis of that coset.
// Orders: each iNTT runs natural -> bit-reversed and each NTT bit-reversed ->
// natural, so no bit-reversal pass is needed except for bellman's final iNTT.
cudaError_t ntt_h(fr_t* d_a, fr_t* d_b, fr_t* d_c, unsigned log_n, root_convention_t conv,
                  const void* d_domain, cudaStream_t stream, const ntt_tuning_t& tune = {});

// ------------------------------------------------------------------- MSM --
struct msm_tuning_t {
  unsigned window_bits = 0;  // 0: chosen from n (cost model in msm.cu)
  unsigned chunk = 32;       // points per thread in the bucket accumulation
  unsigned block = 128;      // threads per block of the point kernels
};
// Sum_i s_i·P_i over G1. P_i affine (O = (0,0)), s_i Montgomery fr_t.
// d_skip: optional bitmap (bit i of word i/32); where set, term i is left out
// (the prep_msm split: those scalars are 1 and go to batch_add_g1).
// Result: one XYZZ point written to d_result (device memory).
size_t msm_g1_scratch_bytes(size_t n, const msm_tuning_t& tune = {});
cudaError_t msm_g1(g1_xyzz_t* d_result, const g1_affine_t* d_bases, const fr_t* d_scalars, size_t n,
                   void* d_scratch, size_t scratch_bytes, cudaStream_t stream,
                   const msm_tuning_t& tune = {}, const uint32_t* d_skip = nullptr);

// Sum of the bases whose bit is set in d_bitmap (bit i of word i/32).
size_t batch_add_g1_scratch_bytes(size_t n);
cudaError_t batch_add_g1(g1_xyzz_t* d_result, const g1_affine_t* d_bases, const uint32_t* d_bitmap, size_t n,
                         void* d_scratch, size_t scratch_bytes, cudaStream_t stream);

// The prep_msm split on the device: d_ones = sum of bases with bit set in
// d_ones_bitmap (the scalar-one terms), d_tail = MSM of the other terms.
// The proof uses d_ones + d_tail. Scratch: msm_g1_split_scratch_bytes(n).
size_t msm_g1_split_scratch_bytes(size_t n, const msm_tuning_t& tune = {});
cudaError_t msm_g1_split(g1_xyzz_t* d_ones, g1_xyzz_t* d_tail, const g1_affine_t* d_bases,
                         const fr_t* d_scalars, const uint32_t* d_ones_bitmap, size_t n, void* d_scratch,
                         size_t scratch_bytes, cudaStream_t stream, const msm_tuning_t& tune = {});

// XYZZ -> Jacobian (X·ZZ^2, Y·ZZZ^2, ZZZ), 2M + 2S, on the device.
cudaError_t g1_xyzz_to_jacobian(g1_jacobian_t* d_out, const g1_xyzz_t* d_in, size_t n, cudaStream_t stream);

}  // namespace starzk::gpu
