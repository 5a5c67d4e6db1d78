// The public MSM launchers of one curve gathered in one struct, so code
// written once for G1 and G2 (the split and one-call forms on the device,
// msm_jacobian.cu and batch_add.cu through msm_curve.cuh; the host-pointer
// wrappers, host_api.cpp) reaches the right launcher from the curve's
// parameter type alone. Plain host header: no device code.
#pragma once

#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {

template <class P>
struct msm_launchers_t;

template <>
struct msm_launchers_t<g1_params> {
  static constexpr const char* name = "g1";
  static constexpr auto* msm = &msm_g1;
  static constexpr auto* msm_scratch_bytes = &msm_g1_scratch_bytes;
  static constexpr auto* batch_add = &batch_add_g1;
  static constexpr auto* batch_add_scratch_bytes = &batch_add_g1_scratch_bytes;
  static constexpr auto* split = &msm_g1_split;
  static constexpr auto* split_scratch_bytes = &msm_g1_split_scratch_bytes;
  static constexpr auto* jacobian = &msm_g1_jacobian;
  static constexpr auto* jacobian_scratch_bytes = &msm_g1_jacobian_scratch_bytes;
  static constexpr auto* pieces = &msm_g1_pieces;
  static constexpr auto* pieces_scratch_bytes = &msm_g1_pieces_scratch_bytes;
  static constexpr auto* to_jacobian = &g1_xyzz_to_jacobian;
};

template <>
struct msm_launchers_t<g2_params> {
  static constexpr const char* name = "g2";
  static constexpr auto* msm = &msm_g2;
  static constexpr auto* msm_scratch_bytes = &msm_g2_scratch_bytes;
  static constexpr auto* batch_add = &batch_add_g2;
  static constexpr auto* batch_add_scratch_bytes = &batch_add_g2_scratch_bytes;
  static constexpr auto* split = &msm_g2_split;
  static constexpr auto* split_scratch_bytes = &msm_g2_split_scratch_bytes;
  static constexpr auto* jacobian = &msm_g2_jacobian;
  static constexpr auto* jacobian_scratch_bytes = &msm_g2_jacobian_scratch_bytes;
  static constexpr auto* pieces = &msm_g2_pieces;
  static constexpr auto* pieces_scratch_bytes = &msm_g2_pieces_scratch_bytes;
  static constexpr auto* to_jacobian = &g2_xyzz_to_jacobian;
};

}  // namespace starzk::gpu
