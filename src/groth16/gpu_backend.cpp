// The installed GPU backend (gpu_backend.hpp) and the device functions of
// setup_gpu.hpp and key_validation_gpu.hpp, which call it or, without one,
// report that this program has no GPU backend.
#include "groth16/gpu_backend.hpp"

#include <atomic>
#include <stdexcept>

namespace starzk {

namespace {

std::atomic<const groth16_gpu_backend_t*>& slot() {
  static std::atomic<const groth16_gpu_backend_t*> s{nullptr};
  return s;
}

constexpr const char* no_backend =
    "this starzk has no GPU backend (built without CUDA: no nvcc at configure time, or -DSTARZK_CUDA=OFF)";

const groth16_gpu_backend_t& backend_or_throw(const char* what) {
  const groth16_gpu_backend_t* b = groth16_gpu_backend();
  if (!b) throw std::runtime_error(std::string(what) + ": " + no_backend);
  return *b;
}

}  // namespace

const groth16_gpu_backend_t* install_groth16_gpu_backend(const groth16_gpu_backend_t* backend) {
  return slot().exchange(backend);
}

const groth16_gpu_backend_t* groth16_gpu_backend() { return slot().load(); }

namespace setup_detail {

bool gpu_present(std::string* why) {
  if (const groth16_gpu_backend_t* b = groth16_gpu_backend()) return b->present(why);
  if (why) *why = no_backend;
  return false;
}

std::string fixed_base_queries_gpu(proving_key_t& pk, const query_scalars_t& s, uint64_t chunk, unsigned threads) {
  return backend_or_throw("setup").fixed_base_queries(pk, s, chunk, threads);
}

std::string fixed_base_stream_gpu(const query_scalars_t& s, const query_sinks_t& sinks, uint64_t chunk,
                                  unsigned threads) {
  return backend_or_throw("setup").fixed_base_stream(s, sinks, chunk, threads);
}

}  // namespace setup_detail

namespace key_validation_detail {

std::string gpu_device_name() { return backend_or_throw("key validation").device_name(); }

std::unique_ptr<gpu_scanner_t> make_gpu_scanner() { return backend_or_throw("key validation").make_scanner(); }

}  // namespace key_validation_detail

}  // namespace starzk
