// root_convention_t: the one choice that tells the two Groth16 key
// conventions apart, and the two field elements it fixes: the domain's
// root of unity and the H phase's coset shift. Every layer that depends on
// it (the CPU domain and H phase in src/ntt, the proof system's keys, the
// formats, the device NTT in cuda/, the codelets, the DAG and the CLI) names
// it with this type; it is header only, so cuda/ includes it without linking
// a host library.
//
// A key fixes the evaluation domain H = { ω^i : i < n } of n = 2^k points
// (row i of the R1CS is the value at ω^i) and the coset s·H on which the
// prover's H phase evaluates A·B − C (docs/prover.md, ntt/h_phase.hpp):
//
//   bellman (bellman, Filecoin .params; also blstrs, arkworks):
//     ω_{2^k} = 7^((r−1)/2^k), with 7 the multiplicative generator of F_r^*;
//     s = g = 7, so s·H is disjoint from H and Z(s·ω^i) = g^n − 1 ≠ 0: the
//     phase divides by it and interpolates back to the coefficients of the
//     quotient h (degree ≤ n − 2), which meet the key's H query τ^i·Z(τ)/δ.
//   snarkjs (snarkjs / iden3 .zkey, ffjavascript):
//     ω_{2^k} = 5^((r−1)/2^k), with 5 the smallest quadratic non-residue;
//     s = ω_{2n}, so s·ω_n^i = ω_{2n}^(2i+1) runs over the odd 2n-th roots:
//     the phase stops at the n values there, which meet the key's H query
//     L_{2i+1}(τ)/δ over the 2n-th roots.
//
// Both root families are consistent under squaring, ω_{2^(k+1)}^2 = ω_{2^k}
// (each is g^((r−1)/2^k) for one g), and they agree only for k ≤ 2
// (ff/fr.hpp). The file formats store the convention as their own codes
// (docs/formats.md), never as this enum's numeric values.
#pragma once

#include "ff/fr.hpp"

namespace starzk {

enum class root_convention_t { bellman, snarkjs };

// ω_{2^log_n}: the primitive root of unity of order 2^log_n in convention c.
inline fr_t root_of_unity(unsigned log_n, root_convention_t c) {
  return c == root_convention_t::snarkjs ? fr_t::root_of_unity(log_n) : fr_t::bellman_root_of_unity(log_n);
}

// s: the shift of the H phase's coset s·H for a domain of 2^log_n points
// (bellman g = 7, snarkjs ω_{2n}; see above).
inline fr_t h_coset_shift(unsigned log_n, root_convention_t c) {
  return c == root_convention_t::snarkjs ? fr_t::root_of_unity(log_n + 1) : fr_t::multiplicative_generator();
}

}  // namespace starzk
