// The codelet-facing MSM forms: one call from (bases, scalars) to one
// Jacobian point in the host layout, with or without the prep_msm split,
// whole or in pieces of consecutive terms, and the parts they are made of
// (the ones bitmap, XYZZ -> Jacobian). Written once over the curve bundle
// (msm_curve.cuh): msm_pieces<P>, msm_jacobian<P> and xyzz_to_jacobian<P>
// (starzk_cuda.hpp), instantiated for G1 and G2 at the bottom.
//
// msm_pieces<P>(d_out, bases, scalars, n, split_from, pieces, scratch); per
// piece k (src/msm/msm_pieces.hpp: terms [k·L, min(n, (k+1)·L)), split
// bound s_k = max(split_from - k·L, 0)):
//   no split: T = msm(bases_k, scalars_k)                     (msm.cu)
//   split:    bitmap = ones_bitmap(scalars_k, s_k)            (below)
//             O1 = batch_add(bases_k, bitmap)                 (batch_add.cu)
//             T  = msm(bases_k, scalars_k, skip = bitmap)
//             T  = O1 + T                                     (add-2008-s)
//   acc = T (k = 0) or acc + T                                (add-2008-s)
// then d_out = to_jacobian(acc): X·ZZ^2, Y·ZZZ^2, ZZZ        (2M + 2S).
// bases_k is device memory, or, for host bases, a staging buffer the
// piece's bases were copied into (double-buffered on a second stream).
// With shared buckets (no split, several pieces) each piece adds its buckets
// into vector i's sink instead of reducing them (msm_sink.cuh), acc
// takes only the pieces whose window was not the sink's, and at the end
//   acc_i += reduce(sink_i)                                   (window sums, Horner)
// msm_pieces_sets<P> runs those steps for several scalar vectors i over
// each piece's bases (acc_i, d_out[i]), so a staged piece serves them all.
// msm_jacobian<P> is one piece of n over device bases.
// Scratch, carved in this order: 2 + sets XYZZ points, the bitmap of one
// piece (split only), the scratch of one piece's MSM or split (the larger
// of the full and the last piece, and of a sink's reduction), the two
// staging buffers (host bases), one sink per vector (shared buckets).
#include <algorithm>
#include <vector>

#include "cuda/msm_common.cuh"
#include "cuda/msm_sink.cuh"
#include "cuda/starzk_cuda.hpp"
#include "msm/msm_pieces.hpp"

namespace starzk::gpu {

static_assert(msm_no_split == msm_split_none, "one value means no split on both sides");

namespace {

// out[i] = Jacobian form of a[i] (+ b[i] when b is given). (X, Y, ZZ, ZZZ)
// stands for (X/ZZ, Y/ZZZ) and (X_J : Y_J : Z_J) for (X_J/Z_J^2, Y_J/Z_J^3);
// with Z_J = ZZZ and ZZ^3 = ZZZ^2: X_J/Z_J^2 = X·ZZ^2/ZZ^3 = X/ZZ, and
// Y_J/Z_J^3 = Y·ZZZ^2/ZZZ^3 = Y/ZZZ (src/ec/xyzz.hpp to_jacobian). O goes to
// (1 : 1 : 0), as the host's jacobian_t::infinity().
template <class X, class F>
__global__ void __launch_bounds__(256) to_jacobian_kernel(const X* a, const X* b, F* out, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  X p = a[i];
  if (b) p = p.add(b[i]);
  F* o = out + 3 * i;
  if (p.is_infinity()) {
    o[0] = F::one();
    o[1] = F::one();
    o[2] = F::zero();
    return;
  }
  o[0] = p.x * p.zz.sqr();
  o[1] = p.y * p.zzz.sqr();
  o[2] = p.zzz;
}

template <class F>
__global__ void __launch_bounds__(32) jacobian_infinity_kernel(F* out, unsigned count) {
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
    out[3 * i] = F::one();
    out[3 * i + 1] = F::one();
    out[3 * i + 2] = F::zero();
  }
}

// Thread i tests scalar i; a warp's 32 answers are one bitmap word (ballot),
// written by lane 0. Every lane of a partial last warp takes part in the
// ballot, so threads past n only stay silent.
__global__ void __launch_bounds__(256)
    ones_bitmap_kernel(const dev_fr_t* scalars, size_t n, size_t split_from, uint32_t* bitmap) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const bool one = i < n && i >= split_from && scalars[i] == dev_fr_t::one();
  const uint32_t word = __ballot_sync(0xffffffffu, one);
  if ((threadIdx.x & 31) == 0 && i < n) bitmap[i >> 5] = word;
}

// acc = (first ? O : acc) + a (+ b): the running sum of the pieces, one
// add-2008-s or two (complete for equal and opposite points, point.cuh).
template <class X>
__global__ void __launch_bounds__(32) accumulate_kernel(X* acc, const X* a, const X* b, bool first) {
  if (threadIdx.x != 0) return;
  X p = a[0];
  if (b) p = p.add(b[0]);
  acc[0] = first ? p : acc[0].add(p);
}

// Where the MSM in pieces keeps its parts in the caller's scratch.
template <class P>
struct pieces_layout_t {
  using A = affine_t<P>;
  xyzz_t<P>* points;  // [0] a piece's MSM or tail, [1] its ones (split), [2 + i] vector i's running sum
  uint32_t* bitmap;   // split only: one piece's ones
  void* inner;        // scratch of one piece's MSM / split
  size_t inner_bytes;
  A* staging[2];  // bases_on_host: piece k's bases in staging[k % 2]
  char* sinks;    // shared buckets: vector i's at sinks + i·sink_bytes
  size_t sink_bytes;

  static pieces_layout_t carve(carve_t& cv, size_t n, bool split, const msm_pieces_t& pc, const msm_tuning_t& tune) {
    pieces_layout_t l{};
    const size_t piece = msm_piece_terms(n, pc.piece), count = msm_piece_count(n, pc.piece);
    const size_t last = n - (count - 1) * piece;  // the last piece may be shorter
    const bool shared = pc.shared_buckets && !split && count > 1;
    auto inner_of = [&](size_t len) {
      return split ? msm_split_scratch_bytes<P>(len, tune) : msm_scratch_bytes<P>(len, tune);
    };
    l.points = cv.take<xyzz_t<P>>(2 + size_t(std::max(pc.sets, 1u)));
    l.bitmap = split ? cv.take<uint32_t>((piece + 31) / 32) : nullptr;
    msm_detail::msm_sink_rooms_t rooms;  // the larger of the full and the last piece's
    if (shared) {
      const auto full = msm_detail::msm_sink_rooms<P>(piece, tune), tail = msm_detail::msm_sink_rooms<P>(last, tune);
      rooms = {std::max(full.sink, tail.sink), std::max(full.reduce, tail.reduce)};
    }
    l.inner_bytes = std::max({inner_of(piece), inner_of(last), rooms.reduce});
    l.inner = cv.take<char>(l.inner_bytes);
    l.staging[0] = pc.bases_on_host ? cv.take<A>(piece) : nullptr;
    l.staging[1] = pc.bases_on_host && count > 1 ? cv.take<A>(piece) : nullptr;
    l.sink_bytes = align256(rooms.sink);
    l.sinks = shared ? cv.take<char>(size_t(std::max(pc.sets, 1u)) * l.sink_bytes) : nullptr;
    return l;
  }
};

// The copies of host bases into the two staging buffers, on a stream of
// their own. copied[b]: the last copy into buffer b is done; consumed[b]:
// the last MSM reading buffer b is done. Released at the end of the call
// after the copy stream has drained, so that no copy still writes into the
// caller's scratch when the call returns, error or not (on success the
// main stream has already waited for every copy: each piece's MSM waits
// for its stream once, after its copy).
template <class A>
struct staging_copies_t {
  cudaStream_t stream = nullptr;
  cudaEvent_t copied[2] = {}, consumed[2] = {};
  const A* host = nullptr;
  A* const* staging = nullptr;
  size_t n = 0, piece = 0;

  ~staging_copies_t() {
    if (stream) cudaStreamSynchronize(stream);  // errors here have no one to go to
    for (cudaEvent_t e : {copied[0], copied[1], consumed[0], consumed[1]})
      if (e) cudaEventDestroy(e);
    if (stream) cudaStreamDestroy(stream);
  }
  // The copy stream starts after everything already enqueued on `main`:
  // the staging buffers lie in the caller's scratch, which the work before
  // this call on `main` (an earlier MSM of the same worker, enqueued
  // asynchronously) may still be reading or writing.
  cudaError_t init(cudaStream_t main) {
    SZK_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (cudaEvent_t* e : {&copied[0], &copied[1], &consumed[0], &consumed[1]})
      SZK_TRY(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    SZK_TRY(cudaEventRecord(consumed[0], main));
    SZK_TRY(cudaStreamWaitEvent(stream, consumed[0], 0));
    return cudaSuccess;
  }
  // Enqueue the copy of piece k into buffer k % 2, after the MSM of piece
  // k - 2 (the buffer's last reader) has consumed it.
  cudaError_t stage(size_t k) {
    const int b = int(k % 2);
    const msm_piece_t p = msm_piece(n, piece, msm_split_none, k);
    if (k >= 2) SZK_TRY(cudaStreamWaitEvent(stream, consumed[b], 0));
    SZK_TRY(cudaMemcpyAsync(staging[b], host + p.begin, p.length * sizeof(A), cudaMemcpyHostToDevice, stream));
    return cudaEventRecord(copied[b], stream);
  }
};

}  // namespace

cudaError_t ones_bitmap(uint32_t* d_bitmap, const fr_t* d_scalars, size_t n, size_t split_from, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (!d_bitmap || !d_scalars) return cudaErrorInvalidValue;
  ones_bitmap_kernel<<<grid_for(n, 256), 256, 0, s>>>(reinterpret_cast<const dev_fr_t*>(d_scalars), n, split_from,
                                                      d_bitmap);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

template <class P>
cudaError_t xyzz_to_jacobian(jacobian_t<P>* d_out, const xyzz_t<P>* d_in, size_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (!d_out || !d_in) return cudaErrorInvalidValue;
  using X = typename curve_bundle_t<P>::xyzz_type;
  using F = typename curve_bundle_t<P>::field_type;
  to_jacobian_kernel<X, F>
      <<<grid_for(n, 256), 256, 0, s>>>(reinterpret_cast<const X*>(d_in), nullptr, reinterpret_cast<F*>(d_out), n);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

template <class P>
size_t msm_pieces_scratch_bytes(size_t n, bool split, const msm_pieces_t& pc, const msm_tuning_t& tune) {
  if (n == 0) return 0;
  carve_t cv{nullptr};
  pieces_layout_t<P>::carve(cv, n, split, pc, tune);
  return cv.used;
}

// The MSM in pieces over one or more scalar vectors (starzk_cuda.hpp,
// msm_pieces_sets): per piece k, once its bases are staged, each vector's
// one-call steps of the file comment on its terms, then acc_i += result;
// the staging buffer is released to the copy stream only after the last
// vector's MSM of the piece.
template <class P>
cudaError_t msm_pieces_sets(jacobian_t<P>* d_out, const affine_t<P>* bases, const fr_t* const* d_scalars, size_t n,
                            size_t split_from, const msm_pieces_t& pc, void* d_scratch, size_t scratch_bytes,
                            cudaStream_t s, const msm_tuning_t& tune) {
  using C = curve_bundle_t<P>;
  using X = typename C::xyzz_type;
  using F = typename C::field_type;
  using A = typename C::host_affine_type;
  if (!d_out || pc.sets == 0 || !d_scalars) return cudaErrorInvalidValue;
  auto* out = reinterpret_cast<F*>(d_out);
  if (n == 0) {
    jacobian_infinity_kernel<F><<<1, 32, 0, s>>>(out, pc.sets);
    SZK_CHECK_LAUNCH();
    return cudaSuccess;
  }
  if (!bases || !d_scratch) return cudaErrorInvalidValue;
  for (unsigned i = 0; i < pc.sets; ++i)
    if (!d_scalars[i]) return cudaErrorInvalidValue;
  const bool split = split_from != msm_no_split;
  carve_t cv{static_cast<char*>(d_scratch)};
  const auto l = pieces_layout_t<P>::carve(cv, n, split, pc, tune);
  if (cv.used > scratch_bytes) return cudaErrorInvalidValue;
  const size_t piece = msm_piece_terms(n, pc.piece), count = msm_piece_count(n, pc.piece);
  X* pts = reinterpret_cast<X*>(l.points);
  // Shared buckets: vector i's sink, all O (zero bytes) before the first
  // piece; started[i]: acc_i holds a point already.
  std::vector<msm_detail::msm_sink_t> sinks(l.sinks ? pc.sets : 0);
  for (unsigned i = 0; i < sinks.size(); ++i) sinks[i] = {l.sinks + i * l.sink_bytes, l.sink_bytes};
  if (l.sinks) SZK_TRY(cudaMemsetAsync(l.sinks, 0, pc.sets * l.sink_bytes, s));
  std::vector<char> started(pc.sets, 0);
  auto add_to_acc = [&](unsigned i, bool ones) -> cudaError_t {
    accumulate_kernel<X><<<1, 32, 0, s>>>(pts + 2 + i, pts, ones ? pts + 1 : nullptr, !started[i]);
    SZK_CHECK_LAUNCH();
    started[i] = 1;
    return cudaSuccess;
  };
  staging_copies_t<A> copies;
  if (pc.bases_on_host) {
    copies.host = bases;
    copies.staging = l.staging;
    copies.n = n;
    copies.piece = piece;
    SZK_TRY(copies.init(s));
    SZK_TRY(copies.stage(0));
  }
  for (size_t k = 0; k < count; ++k) {
    const msm_piece_t p = msm_piece(n, piece, split_from, k);
    const A* pb = bases + p.begin;
    if (pc.bases_on_host) {
      if (k + 1 < count) SZK_TRY(copies.stage(k + 1));  // overlaps this piece's MSMs
      SZK_TRY(cudaStreamWaitEvent(s, copies.copied[k % 2], 0));
      pb = l.staging[k % 2];
    }
    for (unsigned i = 0; i < pc.sets; ++i) {
      const fr_t* ps = d_scalars[i] + p.begin;
      if (split) {
        SZK_TRY(ones_bitmap(l.bitmap, ps, p.length, p.split_from, s));
        SZK_TRY(msm_split<P>(l.points + 1, l.points, pb, ps, l.bitmap, p.length, l.inner, l.inner_bytes, s, tune));
      } else if (l.sinks) {
        SZK_TRY(msm_detail::msm_into_sink<P>(l.points, pb, ps, p.length, l.inner, l.inner_bytes, s, tune, &sinks[i]));
        if (sinks[i].took) continue;  // its buckets went into the sink
      } else {
        SZK_TRY(msm<P>(l.points, pb, ps, p.length, l.inner, l.inner_bytes, s, tune, nullptr));
      }
      SZK_TRY(add_to_acc(i, split));
    }
    if (pc.bases_on_host) SZK_TRY(cudaEventRecord(copies.consumed[k % 2], s));
    if (pc.wait_each) SZK_TRY(cudaStreamSynchronize(s));
  }
  for (unsigned i = 0; i < sinks.size(); ++i) {   // each sink reduced once (the pieces' scratch is free now)
    if (sinks[i].c == 0 && started[i]) continue;  // no piece took it
    SZK_TRY(msm_detail::msm_sink_reduce<P>(l.points, sinks[i], l.inner, l.inner_bytes, s, tune));
    SZK_TRY(add_to_acc(i, false));
  }
  to_jacobian_kernel<X, F><<<(pc.sets + 31) / 32, 32, 0, s>>>(pts + 2, nullptr, out, pc.sets);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

template <class P>
cudaError_t msm_pieces(jacobian_t<P>* d_out, const affine_t<P>* bases, const fr_t* d_scalars, size_t n,
                       size_t split_from, const msm_pieces_t& pc, void* d_scratch, size_t scratch_bytes, cudaStream_t s,
                       const msm_tuning_t& tune) {
  if (pc.sets != 1) return cudaErrorInvalidValue;
  return msm_pieces_sets<P>(d_out, bases, &d_scalars, n, split_from, pc, d_scratch, scratch_bytes, s, tune);
}

template <class P>
size_t msm_jacobian_scratch_bytes(size_t n, bool split, const msm_tuning_t& tune) {
  return msm_pieces_scratch_bytes<P>(n, split, {}, tune);
}
template <class P>
cudaError_t msm_jacobian(jacobian_t<P>* d_out, const affine_t<P>* d_bases, const fr_t* d_scalars, size_t n,
                         size_t split_from, void* d_scratch, size_t scratch_bytes, cudaStream_t s,
                         const msm_tuning_t& tune) {
  return msm_pieces<P>(d_out, d_bases, d_scalars, n, split_from, {}, d_scratch, scratch_bytes, s, tune);
}

template cudaError_t xyzz_to_jacobian<g1_params>(g1_jacobian_t*, const g1_xyzz_t*, size_t, cudaStream_t);
template cudaError_t xyzz_to_jacobian<g2_params>(g2_jacobian_t*, const g2_xyzz_t*, size_t, cudaStream_t);
template size_t msm_pieces_scratch_bytes<g1_params>(size_t, bool, const msm_pieces_t&, const msm_tuning_t&);
template size_t msm_pieces_scratch_bytes<g2_params>(size_t, bool, const msm_pieces_t&, const msm_tuning_t&);
template cudaError_t msm_pieces<g1_params>(g1_jacobian_t*, const g1_affine_t*, const fr_t*, size_t, size_t,
                                           const msm_pieces_t&, void*, size_t, cudaStream_t, const msm_tuning_t&);
template cudaError_t msm_pieces<g2_params>(g2_jacobian_t*, const g2_affine_t*, const fr_t*, size_t, size_t,
                                           const msm_pieces_t&, void*, size_t, cudaStream_t, const msm_tuning_t&);
template cudaError_t msm_pieces_sets<g1_params>(g1_jacobian_t*, const g1_affine_t*, const fr_t* const*, size_t, size_t,
                                                const msm_pieces_t&, void*, size_t, cudaStream_t, const msm_tuning_t&);
template cudaError_t msm_pieces_sets<g2_params>(g2_jacobian_t*, const g2_affine_t*, const fr_t* const*, size_t, size_t,
                                                const msm_pieces_t&, void*, size_t, cudaStream_t, const msm_tuning_t&);
template size_t msm_jacobian_scratch_bytes<g1_params>(size_t, bool, const msm_tuning_t&);
template size_t msm_jacobian_scratch_bytes<g2_params>(size_t, bool, const msm_tuning_t&);
template cudaError_t msm_jacobian<g1_params>(g1_jacobian_t*, const g1_affine_t*, const fr_t*, size_t, size_t, void*,
                                             size_t, cudaStream_t, const msm_tuning_t&);
template cudaError_t msm_jacobian<g2_params>(g2_jacobian_t*, const g2_affine_t*, const fr_t*, size_t, size_t, void*,
                                             size_t, cudaStream_t, const msm_tuning_t&);

}  // namespace starzk::gpu
