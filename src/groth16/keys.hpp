// Groth16 keys and proofs over BLS12-381, in the two conventions we load.
//
// Notation: τ, α, β, γ, δ are the toxic-waste scalars of the setup; for
// wire j, A_j(x), B_j(x), C_j(x) are the QAP polynomials interpolating
// column j of the R1CS matrices over the domain of the n-th roots of unity
// (n = domain_size); Z(x) = x^n − 1 vanishes on that domain. Wires: 0 is the
// constant 1, 1..n_public are public, n_public+1..n_vars−1 are "aux".
// (Groth, "On the Size of Pairing-based Non-interactive Arguments",
// EUROCRYPT 2016; the query names are bellman's.)
//
// Both conventions share these queries (all affine, O allowed where the
// polynomial is zero):
//   a[j]    = A_j(τ)·G1                       j < n_vars
//   b_g1[j] = B_j(τ)·G1,  b_g2[j] = B_j(τ)·G2 j < n_vars
//   l[j − n_public − 1] = (β·A_j(τ) + α·B_j(τ) + C_j(τ))/δ · G1 for aux j
//   vk.ic[i] = (β·A_i(τ) + α·B_i(τ) + C_i(τ))/γ · G1 for i ≤ n_public
// and differ in the H query, i.e. in how the prover maps a∘b − c to h
// (root_convention_t, ntt/convention.hpp, names the two and their roots):
//
//   bellman (bellman / Filecoin .params): h has n − 1 points,
//     h[i] = τ^i·Z(τ)/δ · G1,  i = 0..n−2;
//     the prover computes the quotient coefficients of (a·b − c)/Z by
//     iNTT, coset NTT with the multiplicative generator, division by
//     Z(g) = g^n − 1, coset iNTT (docs/prover.md). In .params files bellman
//     drops the points at infinity from a, b_g1, b_g2 (the prover uses
//     density bitmaps); a reader of .params must restore full-length queries
//     or record the density.
//
//   snarkjs (snarkjs .zkey): h has n points,
//     h[i] = L_{2i+1}(τ)/δ · G1,  i = 0..n−1,
//     L_k the Lagrange basis of the 2n-th roots of unity (docs/oracles.md); the
//     matching scalars are (a∘b − c) evaluated at ω_{2n}^{2i+1}: iNTT of the
//     n row values, multiply coefficient k by ω_{2n}^k, NTT. The QAP used by
//     snarkjs has nPublic + 1 extra rows: row n_constraints + s has
//     A[s] = 1 for s = 0..n_public (this makes the public wires' A_j linearly
//     independent). The .zkey also carries the A and B matrices themselves
//     (zkey_a, zkey_b below; C is implied, c = a∘b row by row).
#pragma once

#include <cstdint>
#include <vector>

#include "ec/affine.hpp"
#include "groth16/r1cs.hpp"
#include "ntt/convention.hpp"
#include "util/mappable_vector.hpp"
#include "util/uninit_vector.hpp"

namespace starzk {

struct verifying_key_t {
  g1_affine_t alpha_g1;
  g2_affine_t beta_g2, gamma_g2, delta_g2;
  std::vector<g1_affine_t> ic;  // n_public + 1 points (see above)

  bool operator==(const verifying_key_t&) const = default;
};

// The point queries of a key by name, in the order validation reports them.
enum class key_query_t { ic, h, l, a, b_g1, b_g2 };

struct proving_key_t {
  root_convention_t convention = root_convention_t::snarkjs;
  uint32_t n_vars = 0;
  uint32_t n_public = 0;     // outputs + public inputs, wire 0 not counted
  uint64_t domain_size = 0;  // n, a power of two

  g1_affine_t alpha_g1, beta_g1, delta_g1;
  g2_affine_t beta_g2, delta_g2;

  // The queries: owned, or borrowed from a mapped key file (key_cache.hpp,
  // zkey.hpp) for as long as the key lives.
  mappable_vector_t<g1_affine_t> a;     // n_vars
  mappable_vector_t<g1_affine_t> b_g1;  // n_vars
  mappable_vector_t<g2_affine_t> b_g2;  // n_vars
  mappable_vector_t<g1_affine_t> l;     // n_vars − n_public − 1 (aux wires)
  mappable_vector_t<g1_affine_t> h;     // n − 1 (bellman) or n (snarkjs)

  verifying_key_t vk;  // alpha_g1 and beta_g2 repeat the fields above

  // snarkjs only: the QAP matrices A and B as stored in .zkey
  // section 4, with domain_size rows (constraint rows, then the
  // n_public + 1 extra rows, then empty rows) and n_vars columns. Values are
  // ordinary field elements v (the file stores v·R² mod r with R = 2^256;
  // the reader undoes that scaling and the writer redoes it). Empty for
  // bellman keys, whose prover takes the matrices from the .r1cs.
  sparse_matrix_t zkey_a, zkey_b;

  bool operator==(const proving_key_t&) const = default;
};

// The six single points of a key beside its queries (α, β, δ in G1; β, δ,
// γ in G2), as setups make them and packed keys store them.
struct key_head_t {
  g1_affine_t alpha_g1, beta_g1, delta_g1;
  g2_affine_t beta_g2, delta_g2, gamma_g2;

  static key_head_t of(const proving_key_t& k) {
    return {k.alpha_g1, k.beta_g1, k.delta_g1, k.beta_g2, k.delta_g2, k.vk.gamma_g2};
  }
  // Sets them in k, the verifying key's copies included.
  void apply_to(proving_key_t& k) const {
    k.alpha_g1 = k.vk.alpha_g1 = alpha_g1;
    k.beta_g1 = beta_g1;
    k.delta_g1 = delta_g1;
    k.beta_g2 = k.vk.beta_g2 = beta_g2;
    k.delta_g2 = k.vk.delta_g2 = delta_g2;
    k.vk.gamma_g2 = gamma_g2;
  }
};

// A Groth16 proof: π = (A ∈ G1, B ∈ G2, C ∈ G1).
struct proof_t {
  g1_affine_t a;
  g2_affine_t b;
  g1_affine_t c;

  bool operator==(const proof_t&) const = default;
};

}  // namespace starzk
