// The device half of validate_key: each query is handed to
// cuda/key_check.hpp's check_g1 / check_g2 on device 0, which streams the
// host points through the device in two slots of pieces and returns the
// lowest failing index. Every CUDA error becomes a std::runtime_error
// (validate_key's auto mode then falls back to the CPU). Part of the GPU
// backend of starzk_groth16 (gpu_backend.cpp installs it).
//
// Piece size: the call may use 64 MiB of device memory, i.e. pieces of
// ~350k G1 points (32 MiB), so the staging copy of one piece overlaps the
// checks of the other. Left to its default (half the free memory) the
// call takes a whole 1M-point query as one piece and nothing overlaps:
// at 2^20 on the H200 the six calls took 1.00 s against 0.74 s with 64 MiB
// (256 MiB: 0.86 s; docs/benchmarks.md, "Cold starts on the H200").
#include <cuda_runtime_api.h>

#include <stdexcept>

#include "cuda/key_check.hpp"
#include "keys/gpu_backend_parts.hpp"

namespace starzk::keys::gpu_backend_detail {

using key_validation_detail::bad_point_t;
using key_validation_detail::key_fault_t;

namespace {

void check(cudaError_t e, const char* call) { gpu_backend_detail::check(e, "key validation", call); }

key_fault_t fault_of(gpu::point_fault_t f) {
  switch (f) {
    case gpu::point_fault_t::non_canonical:
      return key_fault_t::non_canonical;
    case gpu::point_fault_t::infinity:
      return key_fault_t::infinity;
    case gpu::point_fault_t::not_on_curve:
      return key_fault_t::off_curve;
    case gpu::point_fault_t::not_in_subgroup:
      return key_fault_t::outside_subgroup;
    default:
      return key_fault_t::other;
  }
}

template <class Point>
std::optional<bad_point_t> scan(std::span<const Point> points, bool infinity_ok,
                                cudaError_t (*check_fn)(const Point*, size_t, const gpu::key_check_options_t&,
                                                        gpu::point_scan_t*, gpu::key_check_context_t*),
                                const char* call, gpu::key_check_context_t* ctx) {
  if (points.empty()) return std::nullopt;
  gpu::key_check_options_t opt;
  opt.device = 0;
  opt.subgroup = true;
  opt.allow_infinity = infinity_ok;
  opt.device_bytes = size_t(64) << 20;  // see the file comment
  gpu::point_scan_t out;
  check(check_fn(points.data(), points.size(), opt, &out, ctx), call);
  if (out.ok()) return std::nullopt;
  return bad_point_t{out.first_bad, fault_of(out.fault)};
}

}  // namespace

std::string gpu_device_name() {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  return std::string("GPU 0: ") + prop.name;
}

namespace {

// cudaFree(0) creates the device's context in the constructor, so that its
// cost falls on the thread that owns the scanner rather than on the first
// query.
class scanner_t final : public key_validation_detail::gpu_scanner_t {
 public:
  scanner_t() {
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaFree(nullptr), "cudaFree(0)");
  }
  std::optional<bad_point_t> scan(std::span<const g1_affine_t> points, bool infinity_ok) override {
    return gpu_backend_detail::scan<g1_affine_t>(points, infinity_ok, gpu::check_g1, "check_g1", &ctx_);
  }
  std::optional<bad_point_t> scan(std::span<const g2_affine_t> points, bool infinity_ok) override {
    return gpu_backend_detail::scan<g2_affine_t>(points, infinity_ok, gpu::check_g2, "check_g2", &ctx_);
  }

 private:
  gpu::key_check_context_t ctx_;
};

}  // namespace

std::unique_ptr<key_validation_detail::gpu_scanner_t> make_scanner() { return std::make_unique<scanner_t>(); }

}  // namespace starzk::keys::gpu_backend_detail
