// The two curves of the device MSM as type bundles: G1 and G2 run the same
// kernel templates (msm.cu, msm_accumulate.cu, batch_add.cu, msm_jacobian.cu),
// instantiated once per bundle; nothing else differs between them.
//
// A bundle names the device point types (point.cuh), the host types they
// share bytes with (src/ec), the types of the level-1 bucket accumulation,
// and the numbers of the window cost model that depend on the curve.
// curve_bundle_t<P> is the bundle of host curve P (g1_params, g2_params):
// the launchers of starzk_cuda.hpp are templates over P, and each starts
// from its curve's bundle (the fixed-base launchers too, for the device
// field, fixed_base.cu).
//
// G1: y^2 = x^3 + 4 over Fp. G2: y^2 = x^3 + 4(u + 1) over Fp2 = Fp[u]/(u^2 + 1).
// Both have a = 0, so the XYZZ formulas of point.cuh (EFD, a = 0) serve both.
// Costs in Fp products (Fp2: mul = 3M by Karatsuba, sqr = 2M, fp2.cuh):
//   madd-2008-s  8M + 2S   G1: 10   G2: 8·3 + 2·2 = 28
//   add-2008-s  12M + 2S   G1: 14   G2: 12·3 + 2·2 = 40
// so a G2 point operation costs about 2.8 G1 ones, bucket or accumulation.
#pragma once

#include "cuda/starzk_cuda.hpp"
#include "cuda/point.cuh"

namespace starzk::gpu {

struct g1_curve_t {
  using field_type = dev_fp_t;
  using affine_type = dev_g1_affine_t;
  using xyzz_type = dev_g1_xyzz_t;
  using host_affine_type = g1_affine_t;
  using host_xyzz_type = g1_xyzz_t;
  using host_jacobian_type = g1_jacobian_t;
  // Level 1 of the accumulation (the hot loop) with the Fp product in line
  // (dev_fp_fast_t, msm_accumulate.cu): same bytes as the types above.
  using acc_affine_type = dev_affine_t<dev_fp_fast_t>;
  using acc_xyzz_type = dev_xyzz_t<dev_fp_fast_t>;
  // Window cost model, msm.cu: W·(n + bucket_weight·2^c) madd-equivalents.
  // 10 is the H200 fit of the G1 timings (msm.cu, docs/benchmarks.md).
  static constexpr double bucket_weight = 10.0;
  // The window from the scalars (msm_plan.cuh data_window): a bucket of a
  // window with few non-zero digits costs less than the model above
  // counts (6 per 2^c: the H200 timings of the witness-mix MSM at 2^27,
  // c = 20 against 16, docs/benchmarks.md), and a group's pass over each
  // live scalar (gather, leaving Montgomery form, its digits) about a tenth
  // of a madd.
  static constexpr double sparse_bucket_weight = 6.0;
  static constexpr double group_weight = 0.1;
  static constexpr bool prefetch = true;  // msm_accumulate.cu
  // Buckets are first halved by batch-affine levels (msm_affine.cu).
  static constexpr bool batch_affine = true;
};

struct g2_curve_t {
  using field_type = dev_fp2_t;
  using affine_type = dev_g2_affine_t;
  using xyzz_type = dev_g2_xyzz_t;
  using host_affine_type = g2_affine_t;
  using host_xyzz_type = g2_xyzz_t;
  using host_jacobian_type = g2_jacobian_t;
  // The G2 accumulation uses dev_fp2_t as every G2 kernel does: one call
  // per Fp2 product, its three Fp products in line (fp2.cuh). Fully in
  // line (~28 products of 576 multiply-adds each) was measured no faster.
  using acc_affine_type = dev_g2_affine_t;
  using acc_xyzz_type = dev_g2_xyzz_t;
  // Every term of the cost model is point arithmetic of the curve, so the
  // 2.8x of G2 scales both terms alike and leaves the best c where it was.
  // 8 (a little below G1's 10) picks c = 16 at 2^22 and 2^24, the window
  // the H200 sweep in docs/benchmarks.md found fastest; bench_cuda_msm sweeps
  // the G2 window (STARZK_MSM_G2_WINDOWS) to check it again.
  static constexpr double bucket_weight = 8.0;
  // As G1's (the same fit: 5 per 2^c); the group pass over a G2 madd's 2.8
  // times the products.
  static constexpr double sparse_bucket_weight = 5.0;
  static constexpr double group_weight = 0.04;
  static constexpr bool prefetch = false;
  // Batch-affine levels as G1 (msm_affine.cu, with Fp2 inversions).
  static constexpr bool batch_affine = true;
};

template <class C>
inline constexpr bool same_layout_v = sizeof(typename C::affine_type) == sizeof(typename C::host_affine_type) &&
                                      sizeof(typename C::xyzz_type) == sizeof(typename C::host_xyzz_type) &&
                                      sizeof(typename C::acc_affine_type) == sizeof(typename C::affine_type) &&
                                      sizeof(typename C::acc_xyzz_type) == sizeof(typename C::xyzz_type) &&
                                      sizeof(typename C::host_jacobian_type) == 3 * sizeof(typename C::field_type);
static_assert(same_layout_v<g1_curve_t>, "G1 device and host layouts differ");
static_assert(same_layout_v<g2_curve_t>, "G2 device and host layouts differ");

template <class P>
struct curve_bundle;
template <>
struct curve_bundle<g1_params> {
  using type = g1_curve_t;
};
template <>
struct curve_bundle<g2_params> {
  using type = g2_curve_t;
};
template <class P>
using curve_bundle_t = typename curve_bundle<P>::type;

}  // namespace starzk::gpu
