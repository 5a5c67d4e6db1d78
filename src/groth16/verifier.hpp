// Groth16 verification with one multi-pairing (one shared Miller loop, one
// final exponentiation):
//
//   e(A, B) = e(α, β) · e(Σ x_i·IC_i, γ) · e(C, δ)
//   ⇔  e(−A, B) · e(α, β) · e(IC_x, γ) · e(C, δ) = 1,  IC_x = IC_0 + Σ x_i·IC_{i+1}
//
// The proof's points must be on their curves and in the prime-order
// subgroups (snarkjs checks only the curve; we check both), and the number
// of public inputs must match the key.
#pragma once

#include <span>

#include "ff/fp12.hpp"
#include "groth16/keys.hpp"

namespace starzk {

bool verify(const verifying_key_t& vk, std::span<const fr_t> public_inputs, const proof_t& proof);

// e(α, β): snarkjs writes it into verification_key.json as vk_alphabeta_12.
fp12_t alpha_beta_pairing(const verifying_key_t& vk);

}  // namespace starzk
