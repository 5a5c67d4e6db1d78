// Pieces of one MSM that share one set of buckets (msm_pieces_sets,
// msm_jacobian.cu). Run on its own, each piece of an MSM is a whole
// Pippenger: its buckets reduced to window sums, the windows joined by
// Horner, and the pieces' points added. Those last steps do not depend on
// how many terms a piece has: the window sums cost ~2 additions per bucket
// and Horner is a chain of c·W doublings whose latency, not the
// multiplier, sets its time; an MSM streamed in many small pieces (a
// 16 GB card's b_g2_msm: 32) pays them once a piece (docs/benchmarks.md,
// "Pieces that share their buckets").
//
// With a sink the pieces add their buckets into one set instead:
//
//   sink[w][b] = Σ_pieces S_b^(w)    (S_b^(w): the piece's bucket b of window w)
//
// and since every piece's window sum is linear in its buckets,
//
//   Σ_pieces Σ_w 2^(c·w) Σ_b b·S_b^(w) = Σ_w 2^(c·w) Σ_b b·sink[w][b],
//
// so the window sums and Horner run once, over the sink, at the end
// (msm_sink_reduce). That holds only for pieces of the same window c: the
// first piece that takes the sink fixes its c, and a later piece whose plan
// chose another window (a window from its own scalars, msm_plan.cuh
// data_window) reduces itself to a point as before, which the caller adds.
//
// The sink is W·(K+1) XYZZ points (bucket 0 of each window, the zero
// digit, stays O), all zero bytes (O: ZZ = 0) before the first piece;
// msm_sink_rooms gives its room and the reduction's scratch for any window
// a piece of n terms may take.
#pragma once

#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu::msm_detail {

struct msm_sink_t {
  void* buckets = nullptr;  // W·(K+1) XYZZ points of window c (device, zero bytes at first)
  size_t bytes = 0;         // their room
  unsigned c = 0;           // the window the buckets hold; 0: no piece has taken them yet
  bool took = false;        // set by each call: its buckets went into the sink (no result written)
};

// For pieces of n terms under `tune` (zeros for n = 0): the sink's room,
// and the scratch msm_sink_reduce needs, for any window they may take.
struct msm_sink_rooms_t {
  size_t sink = 0, reduce = 0;
};
template <class P>
msm_sink_rooms_t msm_sink_rooms(size_t n, const msm_tuning_t& tune);

// msm<P> (starzk_cuda.hpp) with a sink: where the call's window is the
// sink's (or the sink has none yet, and the call's window fits its room),
// the call adds its buckets into the sink, writes no result and sets
// sink->took; otherwise it is msm<P> and clears sink->took.
template <class P>
cudaError_t msm_into_sink(xyzz_t<P>* d_result, const affine_t<P>* d_bases, const fr_t* d_scalars, size_t n,
                          void* d_scratch, size_t scratch_bytes, cudaStream_t s, const msm_tuning_t& tune,
                          msm_sink_t* sink);

// sink[g] += parts[off[g]] for the buckets g < `buckets` of one window
// group that hold a partial (msm.cu, after step 3; sink points at the
// group's first window).
template <class P>
cudaError_t sink_add(const void* parts, const uint32_t* off, size_t buckets, void* sink, cudaStream_t s);

// d_result = Σ_w 2^(c·w) Σ_b b·sink[w][b] (one XYZZ point), with scratch
// of msm_sink_rooms(...).reduce bytes; a sink no piece took gives O.
template <class P>
cudaError_t msm_sink_reduce(xyzz_t<P>* d_result, const msm_sink_t& sink, void* d_scratch, size_t scratch_bytes,
                            cudaStream_t s, const msm_tuning_t& tune);

}  // namespace starzk::gpu::msm_detail
