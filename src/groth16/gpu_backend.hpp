// gpu_backend.hpp: the device half of the development setup and of key
// validation, as a table of functions a program installs.
//
// starzk_groth16 is the CPU reference and holds no device code: setup.cpp,
// setup_stream.cpp and key_validation.cpp reach a GPU only through the
// functions of setup_gpu.hpp and key_validation_gpu.hpp, which call the
// installed table. The table over cuda/ is src/keys/gpu_backend.cpp
// (library starzk_gpu_backend, built with CUDA): a program or test that
// links it has it installed before main runs. Without a table every device
// query says why no GPU is usable, so setup and validation run on the CPU
// ("auto") or fail with that reason ("--gpu on").
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "groth16/key_validation_gpu.hpp"
#include "groth16/setup_gpu.hpp"

namespace starzk {

struct groth16_gpu_backend_t {
  // True when a device can be used; otherwise *why (if given) says why.
  bool (*present)(std::string* why);
  // setup_gpu.hpp's fixed_base_queries_gpu and fixed_base_stream_gpu.
  std::string (*fixed_base_queries)(proving_key_t& pk, const setup_detail::query_scalars_t& s, uint64_t chunk,
                                    unsigned threads);
  std::string (*fixed_base_stream)(const setup_detail::query_scalars_t& s, const setup_detail::query_sinks_t& sinks,
                                   uint64_t chunk, unsigned threads);
  // key_validation_gpu.hpp's gpu_device_name and make_gpu_scanner.
  std::string (*device_name)();
  std::unique_ptr<key_validation_detail::gpu_scanner_t> (*make_scanner)();
};

// Installs `backend` (static storage; nullptr removes it) and returns the
// table installed before. Thread-safe; install before the first setup or
// validation, not while one runs.
const groth16_gpu_backend_t* install_groth16_gpu_backend(const groth16_gpu_backend_t* backend);
// The installed table, or nullptr.
const groth16_gpu_backend_t* groth16_gpu_backend();

}  // namespace starzk
