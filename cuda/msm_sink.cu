// The buckets that the pieces of one MSM share (msm_sink.cuh): the room a
// sink needs, the addition of a window group's buckets into it, and its
// reduction to one point (the window sums of msm_window_sums.cuh over the
// sink's buckets, then Horner), written once over the curve bundle and
// instantiated for G1 and G2 at the bottom.
#include <algorithm>

#include "cuda/msm_plan.cuh"
#include "cuda/msm_sink.cuh"

namespace starzk::gpu::msm_detail {

namespace {

// Thread g adds the sum of bucket g, which step 3's folding left at its
// first partial, parts[off[g]] (none where off[g + 1] = off[g]; bucket 0
// of each window, the zero digit, holds none). Buckets are independent, so
// no two threads write one point.
template <class X>
__global__ void __launch_bounds__(128) sink_add_kernel(const X* parts, const uint32_t* off, size_t buckets, X* sink) {
  const size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (g >= buckets || off[g + 1] == off[g]) return;
  sink[g] = sink[g].add(parts[off[g]]);
}

// The sink of window c: W·(K+1) points (W·2^(c-1) grows with c).
template <class P>
size_t sink_room(unsigned c) {
  return plan_t::window_buckets(c) * sizeof(xyzz_t<P>);
}

// The reduction's scratch for window c: the W window sums, then the level
// buffers of launch_window_sums for all W windows at once.
template <class P>
size_t reduce_room(unsigned c) {
  const unsigned W = plan_t::window_count(c), K = 1u << (c - 1);
  carve_t cv{nullptr};
  cv.take<xyzz_t<P>>(W);
  cv.take<xyzz_t<P>>(window_sum_points(window_sum_capacity(K, W)));
  return cv.used;
}

}  // namespace

// A piece of n terms takes the model's window c or a narrower one from its
// scalars (msm_plan.cuh data_window): the sink's room grows with c, so c's
// bounds every narrower one; the reduction's does not quite (the level
// buffers stop growing at 2^17 items), so it is the most over t <= c.
template <class P>
msm_sink_rooms_t msm_sink_rooms(size_t n, const msm_tuning_t& tune) {
  if (n == 0) return {};
  using C = curve_bundle_t<P>;
  const unsigned c = plan_t::make(n, tune, C::bucket_weight, C::batch_affine).c;
  msm_sink_rooms_t r{sink_room<P>(c), 0};
  for (unsigned t = 2; t <= c; ++t) r.reduce = std::max(r.reduce, reduce_room<P>(t));
  return r;
}

template <class P>
cudaError_t sink_add(const void* parts, const uint32_t* off, size_t buckets, void* sink, cudaStream_t s) {
  using XA = typename curve_bundle_t<P>::acc_xyzz_type;  // the window sums' type, same bytes
  if (buckets == 0) return cudaSuccess;
  sink_add_kernel<XA>
      <<<grid_for(buckets, 128), 128, 0, s>>>(static_cast<const XA*>(parts), off, buckets, static_cast<XA*>(sink));
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

template <class P>
cudaError_t msm_sink_reduce(xyzz_t<P>* d_result, const msm_sink_t& sink, void* d_scratch, size_t scratch_bytes,
                            cudaStream_t s, const msm_tuning_t& tune) {
  using XA = typename curve_bundle_t<P>::acc_xyzz_type;
  auto* result = reinterpret_cast<XA*>(d_result);
  if (!d_result) return cudaErrorInvalidValue;
  if (sink.c == 0) {  // no piece took it: nothing was added
    set_infinity_kernel<XA><<<1, 32, 0, s>>>(result);
    SZK_CHECK_LAUNCH();
    return cudaSuccess;
  }
  const unsigned c = sink.c;
  if (c < 2 || c > 20 || !sink.buckets || !d_scratch) return cudaErrorInvalidValue;
  const unsigned W = plan_t::window_count(c), K = 1u << (c - 1);
  if (sink_room<P>(c) > sink.bytes || reduce_room<P>(c) > scratch_bytes) return cudaErrorInvalidValue;
  carve_t cv{static_cast<char*>(d_scratch)};
  XA* windows = cv.take<XA>(W);
  const size_t cap = window_sum_capacity(K, W);
  XA* levels = cv.take<XA>(window_sum_points(cap));
  phase_timer_t timer(tune.profile, s);
  SZK_TRY(timer.start());
  SZK_TRY(launch_window_sums<XA>(static_cast<const XA*>(sink.buckets), nullptr, K, W, levels, cap, windows, timer, s));
  SZK_TRY(timer.mark(phase_timer_t::window_sums));
  horner_kernel<XA><<<1, 32, 0, s>>>(windows, W, c, result);
  SZK_CHECK_LAUNCH();
  SZK_TRY(timer.mark(phase_timer_t::horner));
  return timer.finish();
}

template msm_sink_rooms_t msm_sink_rooms<g1_params>(size_t, const msm_tuning_t&);
template msm_sink_rooms_t msm_sink_rooms<g2_params>(size_t, const msm_tuning_t&);
template cudaError_t sink_add<g1_params>(const void*, const uint32_t*, size_t, void*, cudaStream_t);
template cudaError_t sink_add<g2_params>(const void*, const uint32_t*, size_t, void*, cudaStream_t);
template cudaError_t msm_sink_reduce<g1_params>(g1_xyzz_t*, const msm_sink_t&, void*, size_t, cudaStream_t,
                                                const msm_tuning_t&);
template cudaError_t msm_sink_reduce<g2_params>(g2_xyzz_t*, const msm_sink_t&, void*, size_t, cudaStream_t,
                                                const msm_tuning_t&);

}  // namespace starzk::gpu::msm_detail
