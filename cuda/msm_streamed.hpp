// Several MSMs over streamed bases in one call (cuda/msm_streamed.cu), the
// form for a device too small to hold the queries: where one query's MSM
// is bound by its arithmetic (H, dense scalars) and the others by their
// copies (L, A, B1: boolean-heavy scalars, a short MSM per piece of
// bases), running the others beside the first lets their copies and
// their short MSMs proceed while the first computes, so that the call
// takes about the larger of the two where one call per query takes their
// sum.
//
// msm_beside: query 0 on `stream` in pieces of form.first terms
// (msm_pieces, bases_on_host: its own two staging buffers), and the
// others, one after the other, on a second stream of the call's own driven
// by a host thread of its own, each in pieces of form.others terms
// (msm_pieces again, in a second part of the scratch; with
// form.others_first the second stream has the device's greatest priority,
// so that their short kernels take the SMs ahead of query 0's waiting
// blocks). Each query's result: its MSM as ONE
// Jacobian point in the host layout (O = (1 : 1 : 0)) in d_out (device
// memory); n = 0 gives O. No prep_msm split. The work on `stream` before
// the call ends before the second stream starts (the scratch may still be
// in use), and `stream` waits for the second stream's work before the
// call returns. Waits for both streams as msm does, once per piece.
// Scratch: msm_beside_scratch_bytes<P> (query 0's msm_pieces scratch,
// then the largest of the others').
#pragma once

#include <cstddef>

#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {

template <class P>
struct msm_streamed_query_t {
  jacobian_t<P>* d_out = nullptr;           // device memory, one point
  const affine_t<P>* host_bases = nullptr;  // page-locked host memory, n bases
  const fr_t* d_scalars = nullptr;          // device memory, n scalars
  size_t n = 0;
  msm_tuning_t tune = {};  // of this query's piece MSMs
};

// The pieces of msm_beside's two streams.
struct msm_beside_form_t {
  size_t first = 0;           // query 0's terms per piece
  size_t others = 0;          // the other queries' terms per piece
  bool others_first = false;  // the second stream at the greatest priority
  bool wait_each = false;     // every query's host thread waits for its stream after each piece
};

template <class P>
size_t msm_beside_scratch_bytes(const msm_streamed_query_t<P>* queries, size_t count, const msm_beside_form_t& form);
template <class P>
cudaError_t msm_beside(const msm_streamed_query_t<P>* queries, size_t count, const msm_beside_form_t& form,
                       void* d_scratch, size_t scratch_bytes, cudaStream_t stream);

}  // namespace starzk::gpu
