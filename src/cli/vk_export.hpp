// Writing verification_key.json with vk_alphabeta_12 = e(α, β) filled in,
// as snarkjs does.
#pragma once

#include <filesystem>

#include "groth16/keys.hpp"

namespace starzk::cli {

void write_vkey_with_alphabeta(const std::filesystem::path& file, const verifying_key_t& vk);

}  // namespace starzk::cli
