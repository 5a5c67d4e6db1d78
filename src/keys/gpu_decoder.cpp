// gpu_point_decoder(): io's point decoder interface over cuda/key_check.hpp.
#include "keys/gpu_decoder.hpp"

#include <stdexcept>

#if STARZK_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "cuda/key_check.hpp"
#endif

namespace starzk::keys {

#if !STARZK_HAVE_CUDA

std::unique_ptr<point_decoder_t> gpu_point_decoder(int, std::string* why) {
  if (why) *why = "this starzk was built without CUDA";
  return nullptr;
}

#else

namespace {

class gpu_decoder_t final : public point_decoder_t {
 public:
  explicit gpu_decoder_t(int device) : device_(device) {}
  std::string g1(const uint8_t* in, uint64_t n, g1_affine_t* out, bool sub, bool inf, uint64_t* bad) override {
    return run(gpu::decompress_g1, in, n, out, sub, inf, bad);
  }
  std::string g2(const uint8_t* in, uint64_t n, g2_affine_t* out, bool sub, bool inf, uint64_t* bad) override {
    return run(gpu::decompress_g2, in, n, out, sub, inf, bad);
  }

 private:
  template <class Fn, class A>
  std::string run(Fn fn, const uint8_t* in, uint64_t n, A* out, bool sub, bool inf, uint64_t* bad) {
    gpu::key_check_options_t opt;
    opt.device = device_;
    opt.subgroup = sub;
    opt.allow_infinity = inf;
    gpu::point_scan_t scan;
    const cudaError_t e = fn(in, size_t(n), out, opt, &scan, &ctx_);
    if (e != cudaSuccess)  // not the key's fault: no point to blame
      throw std::runtime_error("unpacking key points on CUDA device " + std::to_string(device_) + ": " +
                               cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")");
    *bad = scan.first_bad;
    return scan.ok() ? std::string() : std::string(gpu::describe(scan.fault));
  }
  int device_;
  gpu::key_check_context_t ctx_;  // staging reused by every call
};

}  // namespace

std::unique_ptr<point_decoder_t> gpu_point_decoder(int device, std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count <= device) {
    (void)cudaGetLastError();
    if (why)
      *why = e != cudaSuccess ? std::string("no usable CUDA device: ") + cudaGetErrorString(e)
                              : "no CUDA device " + std::to_string(device);
    return nullptr;
  }
  return std::make_unique<gpu_decoder_t>(device);
}

#endif

}  // namespace starzk::keys
