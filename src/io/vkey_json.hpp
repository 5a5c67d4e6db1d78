// snarkjs verification_key.json for Groth16 over BLS12-381.
//
// Fields (snarkjs zkey_export_verificationkey): protocol "groth16", curve
// "bls12381", nPublic, vk_alpha_1 (G1), vk_beta_2, vk_gamma_2, vk_delta_2
// (G2), vk_alphabeta_12 (e(α, β) in Fp12), IC (nPublic + 1 G1 points).
// Point syntax in json_points.hpp.
//
// `snarkjs groth16 verify` never reads vk_alphabeta_12, so the writer emits
// it only when the caller supplies it. TODO(pairing): once src/pairing
// exists, the CLI computes e(α, β) and passes its twelve Fp coefficients
// here; the reader ignores the field (it is derived data).
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>

#include "groth16/keys.hpp"

namespace starzk {

// e(α, β) as twelve decimal Fp strings in snarkjs's nesting order
// [[[c0.c0.c0, c0.c0.c1], [c0.c1.c0, c0.c1.c1], [c0.c2.c0, c0.c2.c1]],
//  [[c1.c0.c0, ...], ...]]: index 6·i + 2·j + k is Fp12.c_i . Fp6.c_j .
// Fp2.c_k (Fp12 = Fp6[w], Fp6 = Fp2[v], Fp2 = Fp[u]).
using alphabeta_12_t = std::array<std::string, 12>;

verifying_key_t read_vkey_json(const std::filesystem::path& file);
void write_vkey_json(const std::filesystem::path& file, const verifying_key_t& vk,
                     const std::optional<alphabeta_12_t>& alphabeta_12 = std::nullopt);

}  // namespace starzk
