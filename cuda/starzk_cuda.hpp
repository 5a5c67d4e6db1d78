// starzk_cuda: the public device API of the CUDA kernels (H200, sm_90).
//
// Every launcher takes device pointers, a cudaStream_t and, where it needs
// working memory, caller-provided scratch whose size is asked for first with
// the matching *_scratch_bytes / *_bytes query (CUB habit). Launchers only
// enqueue work on the given stream: no allocation, no device-wide call
// (cudaDeviceSynchronize, cudaMemPoolTrimTo), and no host synchronisation but
// one: the MSMs wait for their stream once (msm says why). They
// return cudaError_t and never throw, so a StarPU CUDA codelet can call them
// directly with starpu_cuda_get_local_stream(). Data use the host layouts of
// src/ff and src/ec byte for byte (fr_t 32 B, fp_t 48 B, g1_affine_t 96 B
// with O = (0,0), g1_xyzz_t 192 B), so host arrays go up as they are (a copy
// on the launcher's stream, or one waited for: docs/gpu.md, "Host data a
// kernel reads"). Launch shapes are data: the *_tuning_t structs. The
// MSM and fixed-base launchers are function templates over the curve
// (P = g1_params or g2_params), defined and explicitly instantiated for
// both curves in their .cu files, so this header stays plain C++.
//
// Host-pointer conveniences for tests and benchmarks: cuda/starzk_cuda_host.hpp;
// the witness map's launchers: cuda/starzk_cuda_spmv.hpp (included here).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

#include "cuda/starzk_cuda_spmv.hpp"  // the witness map: the rest of the API
#include "ec/xyzz.hpp"
#include "ff/fp2.hpp"
#include "ff/fr.hpp"
#include "ntt/convention.hpp"

namespace starzk::gpu {

// ---------------------------------------------------------------- fields --
// Element-wise field operations on device arrays (tests, benchmarks, and a
// reference of what the device field computes). Unary ops ignore d_b.
// inv maps 0 to 0; from_mont/to_mont convert Montgomery <-> canonical.
// inv: Fermat (a^(m-2)); inv_binary: binary Euclid (Fp and Fr only).
enum class field_op_t { add, sub, mul, sqr, neg, dbl, inv, from_mont, to_mont, inv_binary };
cudaError_t fp_elementwise(field_op_t op, fp_t* d_out, const fp_t* d_a, const fp_t* d_b, size_t n, cudaStream_t stream);
cudaError_t fr_elementwise(field_op_t op, fr_t* d_out, const fr_t* d_a, const fr_t* d_b, size_t n, cudaStream_t stream);
// Fp2 supports add, sub, mul, sqr, neg, dbl, inv.
cudaError_t fp2_elementwise(field_op_t op, fp2_t* d_out, const fp2_t* d_a, const fp2_t* d_b, size_t n,
                            cudaStream_t stream);
// Throughput probe: each of n threads runs `iters` dependent Fp products
// x <- x·y + x (4 interleaved chains) and stores one element to d_out[i].
// Multiplications done: 4·n·iters.
cudaError_t fp_mul_probe(fp_t* d_out, const fp_t* d_seed, size_t n, unsigned iters, cudaStream_t stream);

// ------------------------------------------------------------------- NTT --
// The roots and the coset shift of a domain come from its root_convention_t
// (ntt/convention.hpp): snarkjs w = 5^((r-1)/2^k), coset shift w_{2n};
// bellman w = 7^((r-1)/2^k), coset shift g = 7.
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
// `lean` leaves the full tables out (a few MiB at 2^27 instead of 4 GiB):
// a butterfly of a stage above 2^17 then forms its twiddle as the product of
// two entries of the O(sqrt n) tables, one Fr product more. For a device
// whose memory cannot hold the full tables beside a, b, c (docs/gpu.md,
// Memory plan). Below 2^18 both forms are the same bytes.
enum class ntt_tables_t { full, lean };
size_t ntt_domain_bytes(unsigned log_n, ntt_tables_t tables = ntt_tables_t::full);
cudaError_t ntt_domain_init(void* d_domain, unsigned log_n, root_convention_t conv, cudaStream_t stream,
                            ntt_tables_t tables = ntt_tables_t::full);
// The same ntt_domain_bytes(log_n, tables) bytes built entirely in host
// memory h_domain (full tables, if any, on all cores), for a runtime that
// keeps the domain on the host and copies it to each device itself. No CUDA
// call.
cudaError_t ntt_domain_build_host(void* h_domain, unsigned log_n, root_convention_t conv,
                                  ntt_tables_t tables = ntt_tables_t::full);

struct ntt_tuning_t {
  unsigned block = 256;                      // threads per block of the shared-memory passes
  ntt_tables_t tables = ntt_tables_t::full;  // the form d_domain was built in
};
// In-place transform of n = 2^log_n elements (1 <= log_n <= 27).
cudaError_t ntt(fr_t* d_data, unsigned log_n, ntt_dir_t dir, ntt_order_t order, ntt_coset_t coset, const void* d_domain,
                cudaStream_t stream, const ntt_tuning_t& tune = {});

// The whole NTT phase of a Groth16 proof, one call, in place: a, b, c are
// the n SpMV outputs in natural order (n = 2^log_n); h (natural order) is left
// in d_a, b and c are clobbered. The domain must be of the same convention.
//   bellman (docs/prover.md): for x in a, b, c: x <- iNTT(x) (coeffs),
//     x_k <- x_k·g^k (g = 7), x <- NTT(x) (values on gH);
//     h <- (a∘b - c)·(g^n - 1)^-1 (Z(X) = X^n - 1 is the constant g^n - 1 on gH);
//     h <- iNTT(h), h_k <- h_k·g^-k: h(X) = (A B - C)/Z in coefficients.
//   snarkjs: for x in a, b, c: x <- iNTT(x), x_k <- x_k·w_{2n}^k, x <- NTT(x)
//     (values on the odd coset w_{2n}·H); h_i <- a_i·b_i - c_i. No division
//     and no final iNTT: the .zkey hExps already carry 1/Z and the Lagrange
//     basis of that coset.
// Orders: each iNTT runs natural -> bit-reversed and each NTT bit-reversed ->
// natural, so no bit-reversal pass is needed except for bellman's final iNTT.
cudaError_t ntt_h(fr_t* d_a, fr_t* d_b, fr_t* d_c, unsigned log_n, root_convention_t conv, const void* d_domain,
                  cudaStream_t stream, const ntt_tuning_t& tune = {});

// The same H phase with a, b, c in host memory (page-locked for DMA
// copies), for a device that cannot hold the three at once
// (cuda/ntt_h_passes.cu), in `vectors` vectors of device scratch: 1, one
// vector and two staging chunks of `chunk` elements; 2, two vectors, the
// copies in running under the transforms (chunk unused), half the PCIe
// traffic. ntt_h_passes_scratch_bytes(log_n, chunk, vectors) bytes of
// d_scratch (0 for a size or vector count it does not take). h (natural
// order) is left in h_a; h_b is scratch afterwards (the one-vector form
// leaves b's values on the coset there), h_c is only read. Enqueued on `stream`:
// the host arrays must not be touched until it has run.
size_t ntt_h_passes_scratch_bytes(unsigned log_n, size_t chunk, unsigned vectors = 1);
cudaError_t ntt_h_passes(fr_t* h_a, fr_t* h_b, const fr_t* h_c, unsigned log_n, root_convention_t conv,
                         const void* d_domain, void* d_scratch, size_t scratch_bytes, size_t chunk, cudaStream_t stream,
                         const ntt_tuning_t& tune = {}, unsigned vectors = 1);
// The same with a already on the device (d_a; h is left there, natural
// order) and b, c in host memory: the two-vector form takes one vector of
// scratch (V1; a's buffer is V0), the one-vector form two staging chunks
// and keeps a's values on the coset in h_spare (n elements of page-locked
// host memory; unused by the two-vector form, may be null there).
// ntt_h_passes_a_on_device_scratch_bytes(log_n, chunk, vectors) bytes of
// d_scratch. h_b is scratch afterwards, h_c is only read.
size_t ntt_h_passes_a_on_device_scratch_bytes(unsigned log_n, size_t chunk, unsigned vectors);
cudaError_t ntt_h_passes_a_on_device(fr_t* d_a, fr_t* h_spare, fr_t* h_b, const fr_t* h_c, unsigned log_n,
                                     root_convention_t conv, const void* d_domain, void* d_scratch,
                                     size_t scratch_bytes, size_t chunk, cudaStream_t stream, const ntt_tuning_t& tune,
                                     unsigned vectors);

// ------------------------------------------------------------------- MSM --
// Where an MSM spends its time, in milliseconds (msm_tuning_t::profile):
// each call adds its phases (msm.cu steps 0-5) to the fields.
struct msm_profile_t {
  double live = 0;               // 0: live terms, digit counts, the window (the call's waits)
  double digits = 0;             // 1: signed digits
  double sort = 0;               // 2: radix sort per window, run bounds, chunk offsets
  double affine = 0;             // 3a: batch-affine levels, each bucket's run halved;
                                 // the sum of its four parts:
  double affine_sources = 0;     //   per level: sums per bucket, their offsets, sources
  double affine_forward = 0;     //   running products of the denominators
  double affine_tree = 0;        //   their totals inverted
  double affine_backward = 0;    //   the inverses, the sums
  double accumulate = 0;         // 3: level 1, the points into bucket partials
  double fold = 0;               // 3: later levels, partials folded to one per bucket
  double window_sums = 0;        // 4: sum_b b·S_b per window (the levels above 0 of a group
                                 //   that another follows run beside it, uncounted), of which
  double window_sums_first = 0;  //   level 0: the runs over the buckets themselves
  double horner = 0;             // 5: the windows combined
  unsigned calls = 0;
  unsigned window_bits = 0;  // the window c of the last call with live terms (msm.cu: the model's or the scalars')
  unsigned long_terms = 0;   // the long scalars of that call listed apart (msm.cu step 0c; 0: none listed)
  double total() const { return live + digits + sort + affine + accumulate + fold + window_sums + horner; }
};
struct msm_tuning_t {
  unsigned window_bits = 0;  // 0: chosen from n (cost model in msm.cu)
  unsigned chunk = 32;       // points per thread in the bucket accumulation
  unsigned block = 128;      // threads per block of the point kernels
  // Batch-affine levels before the XYZZ accumulation (G1; G2 ignores it):
  // -1 chosen from the live terms (msm.cu), 0 none, k > 0 exactly k (<= 32).
  int affine_levels = -1;
  // Windows one group of digits may hold at most (0: as many as 2^28
  // digits take, msm_plan.cuh). 1 keeps the digit and sort arrays to one
  // window: at n = 2^27 about 2 GiB less scratch than the default's two,
  // at no cost where the batch-affine levels already take one window per
  // group (dense scalars).
  unsigned group_windows = 0;
  // Partials one thread adds per folding step (>= 2; msm_fold.cu): fewer
  // take more steps, each a shorter chain.
  unsigned fold_ways = 4;
  // Set: the phases are timed with CUDA events and the call waits for the
  // stream at its end (a benchmark's tool; leave null in production).
  msm_profile_t* profile = nullptr;
};
// The MSM launchers below are function templates over the curve: P is
// g1_params or g2_params (src/ec/curve.hpp), and the points are the host
// types of that curve, affine_t<P> (O = (0,0); G1 96 bytes, G2 192 on
// E'(Fp2)), xyzz_t<P> (192 / 384 bytes) and jacobian_t<P>. Each is defined
// in its .cu file and instantiated there for G1 and G2 only. Where a point
// argument names the curve, P is deduced (gpu::msm(d_result, d_bases, ...));
// the scratch queries name it (gpu::msm_scratch_bytes<g2_params>(n)). Both
// curves run the same kernels (templates over the curve, msm_curve.cuh);
// the window comes from the same cost model with each curve's bucket weight.
//
// Sum_i s_i·P_i. P_i affine, s_i Montgomery fr_t.
// d_skip: optional bitmap (bit i of word i/32); where set, term i is left out
// (the prep_msm split: those scalars are 1 and go to batch_add).
// Result: one XYZZ point written to d_result (device memory).
// The call waits once for `stream`: the number of terms with a non-zero
// scalar and a clear skip bit sizes the sorts (msm.cu, step 0), so the work
// queued on the stream before it has finished when it returns.
// Scratch: from 2^23 digits per window group on (n >~ 2^19) it includes the
// batch-affine arrays, ~14.8 GiB for G1 at n = 2^27 (~12.8 with one window
// per group; what only one phase of a group uses shares bytes, msm_plan.cuh).
// Batch-affine levels read the bases as 16-byte vectors; bases not 16-byte
// aligned run without them.
template <class P>
size_t msm_scratch_bytes(size_t n, const msm_tuning_t& tune = {});
// The digit groups (passes over the terms) of an n-term MSM: W windows, Wg per group.
template <class P>
unsigned msm_digit_groups(size_t n, const msm_tuning_t& tune = {});
template <class P>
cudaError_t msm(xyzz_t<P>* d_result, const affine_t<P>* d_bases, const fr_t* d_scalars, size_t n, void* d_scratch,
                size_t scratch_bytes, cudaStream_t stream, const msm_tuning_t& tune = {},
                const uint32_t* d_skip = nullptr);

// Sum of the bases whose bit is set in d_bitmap (bit i of word i/32).
template <class P>
size_t batch_add_scratch_bytes(size_t n);
template <class P>
cudaError_t batch_add(xyzz_t<P>* d_result, const affine_t<P>* d_bases, const uint32_t* d_bitmap, size_t n,
                      void* d_scratch, size_t scratch_bytes, cudaStream_t stream);

// The prep_msm split on the device: d_ones = sum of bases with bit set in
// d_ones_bitmap (the scalar-one terms), d_tail = MSM of the other terms.
// The proof uses d_ones + d_tail. Scratch: msm_split_scratch_bytes<P>(n).
template <class P>
size_t msm_split_scratch_bytes(size_t n, const msm_tuning_t& tune = {});
template <class P>
cudaError_t msm_split(xyzz_t<P>* d_ones, xyzz_t<P>* d_tail, const affine_t<P>* d_bases, const fr_t* d_scalars,
                      const uint32_t* d_ones_bitmap, size_t n, void* d_scratch, size_t scratch_bytes,
                      cudaStream_t stream, const msm_tuning_t& tune = {});

// XYZZ -> Jacobian (X·ZZ^2, Y·ZZZ^2, ZZZ), 2M + 2S, on the device.
template <class P>
cudaError_t xyzz_to_jacobian(jacobian_t<P>* d_out, const xyzz_t<P>* d_in, size_t n, cudaStream_t stream);

// The prep_msm bitmap on the device: bit i (word i/32, bit i%32) is set iff
// i >= split_from and d_scalars[i] is one (Montgomery form, as fr_t::one()).
// Writes exactly (n+31)/32 words (nothing for n = 0). One thread per scalar.
cudaError_t ones_bitmap(uint32_t* d_bitmap, const fr_t* d_scalars, size_t n, size_t split_from, cudaStream_t stream);

// One-call MSMs for the codelets: Sum_i s_i·P_i written to d_out as ONE
// Jacobian point in the host layout (jacobian_t<P> of src/ec/jacobian.hpp,
// O = (1 : 1 : 0)), in device memory. n = 0 gives O (scratch may then be
// null). Enqueued on `stream`, no allocation; waits for `stream` as msm
// does, once per piece.
//   split_from = msm_no_split: plain Pippenger over all n terms.
//   otherwise the prep_msm split (src/msm/prep_msm.hpp, forced_tail =
//   split_from): terms i >= split_from whose scalar is one are summed by
//   batch addition and left out of the Pippenger tail; terms i < split_from
//   always go to the tail (the constant wire and the public inputs). A
//   split_from >= n puts every term in the tail.
// Scratch: msm_jacobian_scratch_bytes<P>(n, split) with
// split = (split_from != msm_no_split).
inline constexpr size_t msm_no_split = SIZE_MAX;
template <class P>
size_t msm_jacobian_scratch_bytes(size_t n, bool split, const msm_tuning_t& tune = {});
template <class P>
cudaError_t msm_jacobian(jacobian_t<P>* d_out, const affine_t<P>* d_bases, const fr_t* d_scalars, size_t n,
                         size_t split_from, void* d_scratch, size_t scratch_bytes, cudaStream_t stream,
                         const msm_tuning_t& tune = {});

// The one-call MSMs in pieces, for scratch bounded by the caller (the
// codelets size it from the device's free memory): terms
// [k·piece, min(n, (k+1)·piece)) form piece k, each piece is one MSM as
// above (its split bound max(split_from - k·piece, 0): split_from counts
// global indices, src/msm/msm_pieces.hpp), and the pieces' results are
// summed on the device: the same group element as one piece. With
// bases_on_host, `bases` is a host array (page-locked, or the copies do
// not overlap): piece k's bases are copied into staging buffer k % 2 of
// the scratch on a stream of the call's own, while piece k - 1 computes
// on `stream` (events order each copy after the MSM that last read its
// buffer, and each MSM after its copy; the stream and events live for the
// call). Otherwise `bases` is device memory. Scratch:
// msm_pieces_scratch_bytes<P>(n, split, pieces); it covers the longest
// piece and the last one, and the two staging buffers. The one-call form
// above is pieces = {} (one piece of n, device bases). With wait_each the
// host waits for `stream` after each piece, so the next piece's work is
// enqueued only once the last has run (an A/B knob, STARZK_MSM_PIECE_WAIT).
//
// msm_pieces_sets: `sets` scalar vectors over the same bases, d_out[i] =
// Σ_j d_scalars[i][j]·bases[j] (d_scalars a host array of `sets` device
// pointers, each of n terms, one split_from for all): each piece's bases
// are staged once and every vector's MSM of the piece reads them before
// the buffer takes another piece, so bases streamed from host memory cross
// PCIe once for all the vectors (partitions of a sector share their key).
// The vectors' MSMs of a piece run one after the other in one inner
// scratch; the scratch grows by one point per vector past the first.
// msm_pieces is the call with one vector (pieces.sets must be 1).
struct msm_pieces_t {
  size_t piece = 0;            // terms per piece; 0 or more than n: one piece
  bool bases_on_host = false;  // bases in host memory, copied piece by piece
  bool wait_each = false;      // the host waits for the stream after each piece
  unsigned sets = 1;           // scalar vectors sharing the bases (msm_pieces_sets)
  // Without the split, several pieces add their buckets into one set per
  // vector and reduce it once (window sums, Horner) instead of once per
  // piece (msm_sink.cuh); the scratch grows by that set, W·(K+1) points.
  bool shared_buckets = true;
};
template <class P>
size_t msm_pieces_scratch_bytes(size_t n, bool split, const msm_pieces_t& pieces, const msm_tuning_t& tune = {});
template <class P>
cudaError_t msm_pieces(jacobian_t<P>* d_out, const affine_t<P>* bases, const fr_t* d_scalars, size_t n,
                       size_t split_from, const msm_pieces_t& pieces, void* d_scratch, size_t scratch_bytes,
                       cudaStream_t stream, const msm_tuning_t& tune = {});
template <class P>
cudaError_t msm_pieces_sets(jacobian_t<P>* d_out, const affine_t<P>* bases, const fr_t* const* d_scalars, size_t n,
                            size_t split_from, const msm_pieces_t& pieces, void* d_scratch, size_t scratch_bytes,
                            cudaStream_t stream, const msm_tuning_t& tune = {});

// ------------------------------------------------------------ fixed-base --
// out[i] = k[i]·G for one fixed base G of G1 or G2 (the development setup's
// queries, src/groth16/setup.hpp), as XYZZ points in the host layout
// (xyzz_t<P>, P = g1_params or g2_params as for the MSM; O has ZZ = 0),
// templates instantiated for both curves; the caller converts to affine
// (src/keys/gpu_setup.cpp: on the host, batched). 8-bit comb (cuda/fixed_base.cu): a
// table of 32 x 256 affine multiples of G in caller memory (layout of
// ec/comb_table.hpp: upload comb_table(G), or build it on the device with
// fixed_base_table_init), then at most 31 mixed additions per point. Scalars:
// Montgomery fr_t, any 256-bit value (read mod r). No scratch.
struct fixed_base_tuning_t {
  unsigned block = 128;  // threads per block, a multiple of 32, at most 256
};
template <class P>
size_t fixed_base_table_bytes();
template <class P>
cudaError_t fixed_base_table_init(void* d_table, const affine_t<P>& g, cudaStream_t stream);
template <class P>
cudaError_t fixed_base(xyzz_t<P>* d_out, const fr_t* d_k, size_t n, const void* d_table, cudaStream_t stream,
                       const fixed_base_tuning_t& tune = {});

}  // namespace starzk::gpu
