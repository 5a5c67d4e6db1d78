// Development keys: a Groth16 setup from fresh toxic waste for one circuit.
//
// NOT A CEREMONY. The secrets τ, α, β, γ, δ are drawn from the OS CSPRNG,
// used, and dropped, but whoever runs this could keep them and forge proofs.
// Use these keys for development, testing and benchmarks only; production
// keys come from a multi-party ceremony (snarkjs phase 2, Filecoin's
// published .params).
//
// The math (Groth 2016, with the QAP of witness_map.hpp): n is the domain
// size, ω its root of unity in the key's convention, L_i the Lagrange basis
// on ⟨ω⟩, and for wire j
//   u_j = A_j(τ) = Σ_i A[i][j]·L_i(τ),  v_j = B_j(τ),  w_j = C_j(τ)
// (rows i include the n_public + 1 input rows). The queries are
//   a_j = u_j·G1, b_g1_j = v_j·G1, b_g2_j = v_j·G2,
//   ic_i = (β·u_i + α·v_i + w_i)/γ·G1 (i ≤ n_public),
//   l_j = (β·u_j + α·v_j + w_j)/δ·G1 (aux j),
//   h_i = τ^i·Z(τ)/δ·G1 (i < n − 1, bellman) or L'_{2i+1}(τ)/δ·G1 (i < n,
//   snarkjs; L' the Lagrange basis of the 2n-th roots), Z(τ) = τ^n − 1.
// Lagrange values come from L_i(τ) = ω^i·Z(τ) / (n·(τ − ω^i)), with one
// batch inversion.
#pragma once

#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace starzk {

struct toxic_waste_t {
  fr_t tau, alpha, beta, gamma, delta;
};

// Fresh toxic waste from the OS CSPRNG (non-zero, τ outside the domain).
toxic_waste_t random_toxic_waste();

proving_key_t setup(const r1cs_t& cs, h_convention_t convention, const toxic_waste_t& tw, unsigned threads = 0);
proving_key_t setup(const r1cs_t& cs, h_convention_t convention, unsigned threads = 0);

// The domain generator each convention uses for an n = 2^log2n domain:
// snarkjs 5^((r−1)/n), bellman 7^((r−1)/n) (see ff/fr.hpp).
fr_t domain_root(h_convention_t convention, unsigned log2n);

}  // namespace starzk
