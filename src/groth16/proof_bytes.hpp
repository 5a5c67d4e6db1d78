// The bellman / Filecoin byte form of a Groth16 proof: 192 bytes,
// A (G1 compressed, 48) ‖ B (G2 compressed, 96) ‖ C (G1 compressed, 48), in
// the zcash encoding (ec/encoding.hpp). A multi-partition job writes its
// proofs back to back, partition order (Filecoin's "multi-proof").
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "groth16/keys.hpp"

namespace starzk {

inline constexpr size_t proof_bytes_size = 192;

std::array<uint8_t, proof_bytes_size> encode_proof(const proof_t& proof);

// Decodes and fully checks one proof (flags, canonical coordinates, on the
// curve, in the subgroup). Throws std::invalid_argument naming the point
// and the problem.
proof_t decode_proof(std::span<const uint8_t> bytes);

// A concatenation of proofs; throws if the length is not a multiple of 192.
std::vector<proof_t> decode_proofs(std::span<const uint8_t> bytes);

}  // namespace starzk
