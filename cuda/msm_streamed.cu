// msm_beside (msm_streamed.hpp): query 0 on the caller's stream, the
// others beside it on a second stream driven by a thread of their own,
// each through msm_pieces with its bases streamed from host memory.
//
//   scratch   [0, first): query 0's msm_pieces scratch (two staging
//             buffers of form.first bases, its piece MSM's scratch);
//             [first, first + rest): the largest of the others' (two
//             staging buffers of form.others bases each time);
//   start     the second stream (the device's greatest priority with
//             form.others_first) waits for an event recorded on `stream`:
//             the caller's earlier work there may still use the scratch;
//   thread    run anywhere the process may (util/parallel.hpp: a CUDA
//             worker is bound to one core, which a thread inherits, and
//             both threads wait on their streams once per piece), then
//             cudaSetDevice(the caller's) and msm_pieces for queries
//             1, 2, ... on the second stream, one after the other;
//   caller    msm_pieces for query 0 on `stream`, then joins the thread;
//   end       `stream` waits for an event recorded on the second stream,
//             which is then drained and destroyed.
// The two streams' kernels share the device's SMs and their copies its
// PCIe link; each msm_pieces call waits for its own stream only.
#include <algorithm>
#include <thread>
#include <utility>

#include "cuda/common.cuh"
#include "cuda/msm_streamed.hpp"
#include "util/parallel.hpp"

namespace starzk::gpu {

namespace {

// The msm_pieces forms of query 0 and of the others.
msm_pieces_t first_pieces(const msm_beside_form_t& f) { return {f.first, true, f.wait_each}; }
msm_pieces_t other_pieces(const msm_beside_form_t& f) { return {f.others, true, f.wait_each}; }

// The scratch's two parts (file comment).
template <class P>
std::pair<size_t, size_t> beside_parts(const msm_streamed_query_t<P>* q, size_t count, const msm_beside_form_t& f) {
  size_t first = 0, rest = 0;
  if (count > 0 && q[0].n > 0) first = msm_pieces_scratch_bytes<P>(q[0].n, false, first_pieces(f), q[0].tune);
  for (size_t i = 1; i < count; ++i)
    if (q[i].n > 0) rest = std::max(rest, msm_pieces_scratch_bytes<P>(q[i].n, false, other_pieces(f), q[i].tune));
  return {align256(first), rest};
}

// The second stream and its two events, released when the call returns
// (the stream drained first, so that no copy still writes into the
// caller's scratch, error or not).
struct side_stream_t {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, done = nullptr;
  side_stream_t() = default;
  side_stream_t(const side_stream_t&) = delete;
  side_stream_t& operator=(const side_stream_t&) = delete;
  ~side_stream_t() {
    if (stream) cudaStreamSynchronize(stream);  // errors here have no one to go to
    if (start) cudaEventDestroy(start);
    if (done) cudaEventDestroy(done);
    if (stream) cudaStreamDestroy(stream);
  }
  cudaError_t init(cudaStream_t main, bool first) {
    int least = 0, greatest = 0;
    if (first) SZK_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    SZK_TRY(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, first ? greatest : least));
    SZK_TRY(cudaEventCreateWithFlags(&start, cudaEventDisableTiming));
    SZK_TRY(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    SZK_TRY(cudaEventRecord(start, main));
    return cudaStreamWaitEvent(stream, start, 0);
  }
};

}  // namespace

template <class P>
size_t msm_beside_scratch_bytes(const msm_streamed_query_t<P>* queries, size_t count, const msm_beside_form_t& form) {
  const std::pair<size_t, size_t> parts = beside_parts(queries, count, form);
  return parts.first + parts.second;
}

template <class P>
cudaError_t msm_beside(const msm_streamed_query_t<P>* queries, size_t count, const msm_beside_form_t& form,
                       void* d_scratch, size_t scratch_bytes, cudaStream_t s) {
  if (count > 0 && !queries) return cudaErrorInvalidValue;
  for (size_t i = 0; i < count; ++i) {
    const msm_streamed_query_t<P>& q = queries[i];
    if (!q.d_out || (q.n > 0 && (!q.host_bases || !q.d_scalars))) return cudaErrorInvalidValue;
  }
  const std::pair<size_t, size_t> parts = beside_parts(queries, count, form);
  const size_t first = parts.first, rest = parts.second;
  if (first + rest > scratch_bytes || (first + rest > 0 && !d_scratch)) return cudaErrorInvalidValue;
  char* scratch = static_cast<char*>(d_scratch);
  int device = 0;
  SZK_TRY(cudaGetDevice(&device));
  side_stream_t side;
  SZK_TRY(side.init(s, form.others_first));
  cudaError_t side_err = cudaSuccess;
  std::thread others([&] {
    widen_thread_affinity();  // not the caller's core: both threads wait on their streams
    side_err = cudaSetDevice(device);
    for (size_t i = 1; i < count && side_err == cudaSuccess; ++i) {
      const msm_streamed_query_t<P>& q = queries[i];
      side_err = msm_pieces<P>(q.d_out, q.host_bases, q.d_scalars, q.n, msm_no_split, other_pieces(form),
                               scratch + first, rest, side.stream, q.tune);
    }
  });
  cudaError_t err = cudaSuccess;
  if (count > 0) {
    const msm_streamed_query_t<P>& q = queries[0];
    err = msm_pieces<P>(q.d_out, q.host_bases, q.d_scalars, q.n, msm_no_split, first_pieces(form), scratch, first, s,
                        q.tune);
  }
  others.join();
  SZK_TRY(err);
  SZK_TRY(side_err);
  SZK_TRY(cudaEventRecord(side.done, side.stream));
  return cudaStreamWaitEvent(s, side.done, 0);
}

template size_t msm_beside_scratch_bytes<g1_params>(const msm_streamed_query_t<g1_params>*, size_t,
                                                    const msm_beside_form_t&);
template size_t msm_beside_scratch_bytes<g2_params>(const msm_streamed_query_t<g2_params>*, size_t,
                                                    const msm_beside_form_t&);
template cudaError_t msm_beside<g1_params>(const msm_streamed_query_t<g1_params>*, size_t, const msm_beside_form_t&,
                                           void*, size_t, cudaStream_t);
template cudaError_t msm_beside<g2_params>(const msm_streamed_query_t<g2_params>*, size_t, const msm_beside_form_t&,
                                           void*, size_t, cudaStream_t);

}  // namespace starzk::gpu
