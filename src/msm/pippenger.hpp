// Multi-scalar multiplication Σ s_i·P_i on G1 and G2 by Pippenger's bucket
// method: the CPU MSM of the prover (H, L, A, B1 queries on G1; b_g2_msm on
// G2) and the reference the CUDA kernels are checked against.
//
// Method (Pippenger 1976; the bucket form of Bernstein, Doumen, Lange,
// Oosterwijk, "Faster batch forgery identification", INDOCRYPT 2012, §4,
// with signed digits as in sppark and gnark-crypto):
//   1. Each scalar, converted once from Montgomery form to its canonical
//      integer k < r < 2^255, is written in W = ceil(256 / c) signed digits
//      of c bits, k = Σ_w d_w 2^(wc) with |d_w| ≤ 2^(c−1) (Booth-style
//      recoding, pippenger.cpp), so a window needs 2^(c−1) buckets, not 2^c−1.
//   2. Window w: bucket[|d|] += sign(d)·P_i for every i (mixed XYZZ
//      addition, 8M + 2S, EFD madd-2008-s; zero digits, hence zero scalars,
//      cost nothing; or, where a unit has at least 1024 points and twice as
//      many points as buckets, affine buckets whose additions share one
//      inversion per batch, ~5M + 1S each: msm/bucket_affine.hpp). Then
//      S_w = Σ_b b·bucket[b] by the running sum (running += bucket[b];
//      total += running, b from the top): 2 XYZZ additions (12M + 2S) per
//      bucket, the first a mixed one (8M + 2S) from affine buckets.
//   3. Σ s_i P_i = Σ_w 2^(wc) S_w, by Horner: c doublings per window.
// Cost ≈ W·(n·(8M + 2S) + 2^c·(12M + 2S)) + 256 doublings.
//
// The GLV form (the default; msm_config_t::glv = false for the above):
// each scalar is split as s_i ≡ k1_i + k2_i·x^2 (mod r) with
// |k1_i|, |k2_i| < 2^127 (ec/glv.hpp), and [x^2]P_i = x2_endo(P_i) costs
// one Fp product on G1 ((beta·x, −y)), two on G2 (psi^2), computed once per
// MSM into a table of n points (or per use past glv_table_max_bytes). The
// MSM then runs over 2n terms, (P_i, k1_i) and (x2_endo(P_i), k2_i), with
// W = ceil(128 / c) windows; the halves are two's-complement integers and
// a negative one simply has signed digits of the other sign (the recoding
// in pippenger.cpp covers both). The bucket additions stay the same in
// number (2n terms × W/2 windows); what halves is the running sums
// (W·2^c) and the doublings, which lets msm_plan take a c about one bit
// wider: 2-11% less CPU time on the 2-core VM at 2^8-2^18
// (docs/benchmarks.md, "GLV in the CPU MSM").
//
// Threads: the work is cut into W × p units (window, slice of p of the
// points), taken by T threads from a shared counter. A unit costs about
// n/p + 1.4·2^c mixed-addition equivalents (a bucket add, 12M + 2S, is
// ~1.4 madds), so the critical path is
//   ceil(W·p / T) · (ceil(n/p) + 1.4·2^c),
// and msm_plan picks the (c, p) minimising it (for T = 1: p = 1 and
// W·(n + 1.4·2^c)). Results are deterministic (units are summed in a fixed
// order). Where a window alone would fill only short affine batches (a few
// thousand terms, as in a split MSM's tail), each thread instead takes a
// run of windows whose buckets form one pool, so batches of a quarter of
// the pool share each inversion (pippenger.cpp, "pooled windows").
//
// Inputs: bases in affine form (infinity = (0, 0), allowed anywhere; so are
// repeated bases), scalars as fr_t in Montgomery form. Sizes must match
// (std::invalid_argument otherwise); n = 0 gives the point at infinity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ec/jacobian.hpp"
#include "ff/fr.hpp"

namespace starzk {

struct msm_config_t {
  unsigned threads = 0;      // 0 = std::thread::hardware_concurrency()
  unsigned window_bits = 0;  // c; 0 = chosen by msm_plan; else 1..max_window_bits
  // Affine buckets with batched inversions (msm/bucket_affine.hpp) where a
  // unit's slice is long enough; false: XYZZ buckets throughout (the
  // reference, and the "before" of the benchmarks).
  bool affine_buckets = true;
  // The GLV form: 2n terms of 128-bit scalars through the x^2 endomorphism
  // (ec/glv.hpp); false: n terms of 255-bit scalars (the reference, and the
  // "before" of the benchmarks).
  bool glv = true;
  // The affine buckets' batches eight at a time in AVX-512 IFMA lanes (G1
  // and G2) where the CPU has them (msm/bucket_lanes.hpp; needs
  // affine_buckets); false: one at a time in fp_t / fp2_t (the reference,
  // and the "before").
  bool lanes = true;
  // GLV: the x2_endo points are computed once into a table of n points
  // while it needs at most this many bytes, else again in every window
  // where a term needs one (1 Fp product on G1, 2 on G2).
  size_t glv_table_max_bytes = size_t(256) << 20;
  static constexpr unsigned max_window_bits = 24;
};

// How an MSM of n terms is cut (see the file comment).
struct msm_plan_t {
  unsigned window_bits;  // c
  unsigned windows;      // W = ceil((scalar_bits + 1) / c): 256 / c for 255-bit scalars
  size_t slices;         // p, slices of the points per window
};
// The plan for n terms whose scalars are below 2^scalar_bits in size (255:
// k < r; 127: the GLV halves) on `threads` threads (0 = all cores);
// window_bits fixes c when nonzero (std::invalid_argument past
// max_window_bits). lanes: the terms go through the G1 IFMA lane buckets,
// whose windows of 512 buckets and more cost differently (a fixed cost per
// batch, cheaper running sums).
msm_plan_t msm_plan(size_t n, unsigned threads, unsigned window_bits = 0, unsigned scalar_bits = 255,
                    bool lanes = false);

// The single-threaded window size: msm_plan(n, 1).window_bits.
unsigned msm_window_bits(size_t n);

// Σ scalars[i]·bases[i].
template <class P>
jacobian_t<P> msm_pippenger(std::span<const affine_t<P>> bases, std::span<const fr_t> scalars,
                            const msm_config_t& cfg = {});

// Σ scalars[j]·bases[index[j]]: the MSM over a gathered tail (prep_msm)
// without copying the bases. Throws std::out_of_range for an index past the
// bases and std::invalid_argument if index and scalars differ in length.
template <class P>
jacobian_t<P> msm_pippenger_indexed(std::span<const affine_t<P>> bases, std::span<const uint32_t> index,
                                    std::span<const fr_t> scalars, const msm_config_t& cfg = {});

}  // namespace starzk
