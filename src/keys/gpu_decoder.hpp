// The point decoder of packed keys (io/packed_key.hpp) on a CUDA device:
// the square roots, curve and subgroup checks of cuda/key_check.hpp, a few
// hundred Fp products per point spread over the GPU instead of ~30 µs per
// point and core on the CPU.
#pragma once

#include <memory>
#include <string>

#include "io/packed_key.hpp"

namespace starzk::keys {

// A decoder on CUDA device `device`, or nullptr with *why saying why there
// is none (a build without CUDA, no device).
std::unique_ptr<point_decoder_t> gpu_point_decoder(int device, std::string* why = nullptr);

}  // namespace starzk::keys
