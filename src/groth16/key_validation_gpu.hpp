// Internal to starzk_groth16, compiled only with CUDA in the build: the
// device half of validate_key (key_validation_gpu.cpp), one query at a time
// through cuda/key_check.hpp. A gpu_scanner_t keeps the device's streams and
// buffers from one query to the next (a key's six queries are six calls).
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
// std::runtime_error naming the CUDA error (the constructor too).
class gpu_scanner_t {
 public:
  gpu_scanner_t();
  ~gpu_scanner_t();
  gpu_scanner_t(const gpu_scanner_t&) = delete;
  gpu_scanner_t& operator=(const gpu_scanner_t&) = delete;
  std::optional<bad_point_t> scan(std::span<const g1_affine_t> points, bool infinity_ok);
  std::optional<bad_point_t> scan(std::span<const g2_affine_t> points, bool infinity_ok);

 private:
  struct impl_t;
  std::unique_ptr<impl_t> impl_;
};

}  // namespace starzk::key_validation_detail
