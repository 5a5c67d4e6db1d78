// The codelet-facing MSM forms: one call from (bases, scalars) to one
// Jacobian point in the host layout, with or without the prep_msm split, and
// the pieces they are made of (the ones bitmap, XYZZ -> Jacobian). Written
// once over the curve bundle (msm_curve.cuh) for G1 and G2.
//
// msm_g*_jacobian(d_out, bases, scalars, n, split_from, scratch):
//   no split: T = msm(bases, scalars)                         (msm.cu)
//   split:    bitmap = ones_bitmap(scalars, split_from)       (below)
//             O1 = batch_add(bases, bitmap)                   (batch_add.cu)
//             T  = msm(bases, scalars, skip = bitmap)
//             T  = O1 + T                                     (add-2008-s)
//   d_out = to_jacobian(T): X·ZZ^2, Y·ZZZ^2, ZZZ              (2M + 2S)
// Scratch, carved in this order: two XYZZ points, the bitmap (split only),
// then the scratch of the MSM or of the split.
#include "cuda/msm_common.cuh"
#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {
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
__global__ void __launch_bounds__(32) jacobian_infinity_kernel(F* out) {
  if (threadIdx.x != 0) return;
  out[0] = F::one();
  out[1] = F::one();
  out[2] = F::zero();
}

// Thread i tests scalar i; a warp's 32 answers are one bitmap word (ballot),
// written by lane 0. Every lane of a partial last warp takes part in the
// ballot, so threads past n only stay silent.
__global__ void __launch_bounds__(256) ones_bitmap_kernel(const dev_fr_t* scalars, size_t n, size_t split_from,
                                                          uint32_t* bitmap) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const bool one = i < n && i >= split_from && scalars[i] == dev_fr_t::one();
  const uint32_t word = __ballot_sync(0xffffffffu, one);
  if ((threadIdx.x & 31) == 0 && i < n) bitmap[i >> 5] = word;
}

template <class C>
cudaError_t xyzz_to_jacobian(typename C::host_jacobian_type* d_out, const typename C::host_xyzz_type* d_in, size_t n,
                             cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (!d_out || !d_in) return cudaErrorInvalidValue;
  using X = typename C::xyzz_type;
  using F = typename C::field_type;
  to_jacobian_kernel<X, F><<<grid_for(n, 256), 256, 0, s>>>(reinterpret_cast<const X*>(d_in), nullptr,
                                                            reinterpret_cast<F*>(d_out), n);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

// Where the one-call form keeps its pieces in the caller's scratch.
template <class C>
struct jacobian_layout_t {
  typename C::host_xyzz_type* points;  // [0]: MSM or tail, [1]: the ones (split)
  uint32_t* bitmap;                     // split only
  void* inner;                          // scratch of the MSM / the split
  size_t inner_bytes;

  static jacobian_layout_t carve(carve_t& cv, size_t n, bool split, const msm_tuning_t& tune) {
    jacobian_layout_t l{};
    l.points = cv.take<typename C::host_xyzz_type>(2);
    l.bitmap = split ? cv.take<uint32_t>((n + 31) / 32) : nullptr;
    l.inner_bytes = split ? C::split_scratch_bytes(n, tune) : C::msm_scratch_bytes(n, tune);
    l.inner = cv.take<char>(l.inner_bytes);
    return l;
  }
};

template <class C>
size_t jacobian_scratch(size_t n, bool split, const msm_tuning_t& tune) {
  if (n == 0) return 0;
  carve_t cv{nullptr};
  jacobian_layout_t<C>::carve(cv, n, split, tune);
  return cv.used;
}

template <class C>
cudaError_t jacobian_msm(typename C::host_jacobian_type* d_out, const typename C::host_affine_type* d_bases,
                         const fr_t* d_scalars, size_t n, size_t split_from, void* d_scratch, size_t scratch_bytes,
                         cudaStream_t s, const msm_tuning_t& tune) {
  using X = typename C::xyzz_type;
  using F = typename C::field_type;
  if (!d_out) return cudaErrorInvalidValue;
  auto* out = reinterpret_cast<F*>(d_out);
  if (n == 0) {
    jacobian_infinity_kernel<F><<<1, 32, 0, s>>>(out);
    SZK_CHECK_LAUNCH();
    return cudaSuccess;
  }
  if (!d_bases || !d_scalars || !d_scratch) return cudaErrorInvalidValue;
  const bool split = split_from != msm_no_split;
  carve_t cv{static_cast<char*>(d_scratch)};
  const auto l = jacobian_layout_t<C>::carve(cv, n, split, tune);
  if (cv.used > scratch_bytes) return cudaErrorInvalidValue;
  if (split) {
    SZK_TRY(ones_bitmap(l.bitmap, d_scalars, n, split_from, s));
    SZK_TRY(C::split(l.points + 1, l.points, d_bases, d_scalars, l.bitmap, n, l.inner, l.inner_bytes, s, tune));
  } else {
    SZK_TRY(C::msm(l.points, d_bases, d_scalars, n, l.inner, l.inner_bytes, s, tune, nullptr));
  }
  const X* pts = reinterpret_cast<const X*>(l.points);
  to_jacobian_kernel<X, F><<<1, 32, 0, s>>>(pts, split ? pts + 1 : nullptr, out, 1);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

}  // namespace

cudaError_t ones_bitmap(uint32_t* d_bitmap, const fr_t* d_scalars, size_t n, size_t split_from, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (!d_bitmap || !d_scalars) return cudaErrorInvalidValue;
  ones_bitmap_kernel<<<grid_for(n, 256), 256, 0, s>>>(reinterpret_cast<const dev_fr_t*>(d_scalars), n, split_from,
                                                      d_bitmap);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

cudaError_t g1_xyzz_to_jacobian(g1_jacobian_t* d_out, const g1_xyzz_t* d_in, size_t n, cudaStream_t s) {
  return xyzz_to_jacobian<g1_curve_t>(d_out, d_in, n, s);
}
cudaError_t g2_xyzz_to_jacobian(g2_jacobian_t* d_out, const g2_xyzz_t* d_in, size_t n, cudaStream_t s) {
  return xyzz_to_jacobian<g2_curve_t>(d_out, d_in, n, s);
}

size_t msm_g1_jacobian_scratch_bytes(size_t n, bool split, const msm_tuning_t& tune) {
  return jacobian_scratch<g1_curve_t>(n, split, tune);
}
cudaError_t msm_g1_jacobian(g1_jacobian_t* d_out, const g1_affine_t* d_bases, const fr_t* d_scalars, size_t n,
                            size_t split_from, void* d_scratch, size_t scratch_bytes, cudaStream_t s,
                            const msm_tuning_t& tune) {
  return jacobian_msm<g1_curve_t>(d_out, d_bases, d_scalars, n, split_from, d_scratch, scratch_bytes, s, tune);
}

size_t msm_g2_jacobian_scratch_bytes(size_t n, bool split, const msm_tuning_t& tune) {
  return jacobian_scratch<g2_curve_t>(n, split, tune);
}
cudaError_t msm_g2_jacobian(g2_jacobian_t* d_out, const g2_affine_t* d_bases, const fr_t* d_scalars, size_t n,
                            size_t split_from, void* d_scratch, size_t scratch_bytes, cudaStream_t s,
                            const msm_tuning_t& tune) {
  return jacobian_msm<g2_curve_t>(d_out, d_bases, d_scalars, n, split_from, d_scratch, scratch_bytes, s, tune);
}

}  // namespace starzk::gpu
