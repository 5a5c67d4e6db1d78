// The device half of validate_key: each query is handed to
// cuda/key_check.hpp's check_g1 / check_g2 on device 0, which streams the
// host points through the device in pieces sized from its free memory and
// returns the lowest failing index. Every CUDA error becomes a
// std::runtime_error (validate_key's auto mode then falls back to the CPU).
#include "groth16/key_validation_gpu.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "cuda/key_check.hpp"

namespace starzk::key_validation_detail {

namespace {

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("key validation (GPU): ") + call + " failed: " + cudaGetErrorString(e) +
                             " (" + cudaGetErrorName(e) + ")");
}

template <class Point>
std::optional<bad_point_t> scan(std::span<const Point> points, bool infinity_ok,
                                cudaError_t (*check_fn)(const Point*, size_t, const gpu::key_check_options_t&,
                                                        gpu::point_scan_t*),
                                const char* call) {
  if (points.empty()) return std::nullopt;
  gpu::key_check_options_t opt;
  opt.device = 0;
  opt.subgroup = true;
  opt.allow_infinity = infinity_ok;
  gpu::point_scan_t out;
  check(check_fn(points.data(), points.size(), opt, &out), call);
  if (out.ok()) return std::nullopt;
  return bad_point_t{out.first_bad, gpu::describe(out.fault)};
}

}  // namespace

std::string gpu_device_name() {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  return std::string("GPU 0: ") + prop.name;
}

std::optional<bad_point_t> scan_gpu(std::span<const g1_affine_t> points, bool infinity_ok) {
  return scan<g1_affine_t>(points, infinity_ok, gpu::check_g1, "check_g1");
}

std::optional<bad_point_t> scan_gpu(std::span<const g2_affine_t> points, bool infinity_ok) {
  return scan<g2_affine_t>(points, infinity_ok, gpu::check_g2, "check_g2");
}

}  // namespace starzk::key_validation_detail
