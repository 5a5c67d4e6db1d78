// Internal to starzk_groth16: the device half of validate_key, one query at
// a time. A gpu_scanner_t keeps the device's streams and buffers from one
// query to the next (a key's six queries are six calls). The functions call
// the installed GPU backend (gpu_backend.hpp; the CUDA one is
// src/keys/gpu_key_check.cpp) and throw without one.
#pragma once

#include <cstdint>
#include <memory>
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

// Scans on CUDA device 0, one thread at a time. scan: every point of
// `points` (canonical, on the curve, in the subgroup, O only when
// infinity_ok): the lowest failing index and why, or std::nullopt. Throws
// std::runtime_error naming the CUDA error (make_gpu_scanner too).
class gpu_scanner_t {
 public:
  virtual ~gpu_scanner_t() = default;
  virtual std::optional<bad_point_t> scan(std::span<const g1_affine_t> points, bool infinity_ok) = 0;
  virtual std::optional<bad_point_t> scan(std::span<const g2_affine_t> points, bool infinity_ok) = 0;
};
std::unique_ptr<gpu_scanner_t> make_gpu_scanner();

}  // namespace starzk::key_validation_detail
