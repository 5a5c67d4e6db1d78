// starzk_groth16's GPU backend over cuda/ (groth16/gpu_backend.hpp): the
// table of this library's device functions, installed when the program
// starts. starzk_gpu_backend is an object library, so a program or test
// that links it always carries this file and its installer; the program
// `starzk` does, and so does every test that runs setup or key validation
// on a device (tests/cuda/setup_gpu_test.cpp checks that it is there).
#include <stdexcept>
#include <string>

#include "groth16/gpu_backend.hpp"
#include "keys/gpu_backend_parts.hpp"

namespace starzk::keys {

void gpu_backend_detail::check(cudaError_t e, const char* who, const char* call) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(who) + " (GPU): " + call + " failed: " + cudaGetErrorString(e) + " (" +
                             cudaGetErrorName(e) + ")");
}

namespace {

constexpr groth16_gpu_backend_t cuda_backend{
    gpu_backend_detail::cuda_device_present, gpu_backend_detail::fixed_base_queries,
    gpu_backend_detail::fixed_base_stream,   gpu_backend_detail::gpu_device_name,
    gpu_backend_detail::make_scanner,
};

// Before main: the table in place before any setup or validation can run.
[[maybe_unused]] const bool installed = (install_groth16_gpu_backend(&cuda_backend), true);

}  // namespace

}  // namespace starzk::keys
