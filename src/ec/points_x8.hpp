// Curve points over eight field elements side by side: jacobian_t and
// affine_t of ec/jacobian.hpp instantiated over ff/fp_x8_ifma.hpp's 8-lane
// F_p (G1) and over F_p2 built on it (G2), for code that walks eight
// points in lock step, lane j holding point j (the subgroup checks,
// ec/subgroup_x8.cpp; the MSM's window sums, msm/bucket_lanes.cpp). The
// formulas are the scalar ones; only functions compiled with
// STARZK_IFMA_TARGET (and run where ff_path::wide()) may call them.
#pragma once

#include "ec/jacobian.hpp"
#include "ff/fp2.hpp"
#include "ff/fp_x8_ifma.hpp"

namespace starzk {

#if STARZK_FF_IFMA

struct g1_x8_params {
  using field_t = ifma::fp_x8_t;
};
using g1_x8_jacobian_t = jacobian_t<g1_x8_params>;
using g1_x8_affine_t = affine_t<g1_x8_params>;

struct g2_x8_params {
  using field_t = fp2_over<ifma::fp_x8_t>;
};
using g2_x8_jacobian_t = jacobian_t<g2_x8_params>;
using g2_x8_affine_t = affine_t<g2_x8_params>;

#endif  // STARZK_FF_IFMA

}  // namespace starzk
