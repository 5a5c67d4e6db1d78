// Internal to starzk_groth16, compiled only with CUDA in the build: the
// device half of validate_key (key_validation_gpu.cpp), one query at a time
// through cuda/key_check.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ec/affine.hpp"

namespace starzk::key_validation_detail {

// Why a point fails; validate_key words it (the CPU path uses it too).
enum class key_fault_t { non_canonical, infinity, off_curve, outside_subgroup, other };

struct bad_point_t {
  uint64_t index;
  key_fault_t fault;
};

// "GPU 0: <name>"; throws std::runtime_error naming the CUDA call that failed.
std::string gpu_device_name();

// Every point of `points` on CUDA device 0 (canonical, on the curve, in the
// subgroup, O only when infinity_ok): the lowest failing index and why, or
// std::nullopt. Throws std::runtime_error naming the CUDA error.
std::optional<bad_point_t> scan_gpu(std::span<const g1_affine_t> points, bool infinity_ok);
std::optional<bad_point_t> scan_gpu(std::span<const g2_affine_t> points, bool infinity_ok);

}  // namespace starzk::key_validation_detail
