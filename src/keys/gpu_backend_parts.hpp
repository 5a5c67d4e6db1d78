// Internal to starzk_gpu_backend: the CUDA functions that gpu_backend.cpp
// puts in starzk_groth16's GPU backend table (groth16/gpu_backend.hpp).
// gpu_setup.cpp: the fixed-base products of the development setup;
// gpu_key_check.cpp: key validation, one query at a time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

#include "groth16/key_validation_gpu.hpp"
#include "groth16/setup_gpu.hpp"

namespace starzk::keys::gpu_backend_detail {

// Throws std::runtime_error "<who> (GPU): <call> failed: <error> (<name>)"
// unless e is cudaSuccess.
void check(cudaError_t e, const char* who, const char* call);

bool cuda_device_present(std::string* why);
std::string fixed_base_queries(proving_key_t& pk, const setup_detail::query_scalars_t& s, uint64_t chunk,
                               unsigned threads);
std::string fixed_base_stream(const setup_detail::query_scalars_t& s, const setup_detail::query_sinks_t& sinks,
                              uint64_t chunk, unsigned threads);
std::string gpu_device_name();
std::unique_ptr<key_validation_detail::gpu_scanner_t> make_scanner();

}  // namespace starzk::keys::gpu_backend_detail
