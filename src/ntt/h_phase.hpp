// The NTT phase of the Groth16 prover (docs/prover.md step 2): from the row
// vectors a = A·w, b = B·w, c = C·w of a satisfied R1CS, the scalars that
// meet the proving key's H query. Two key conventions, both first-class.
//
// Notation: n = |a| (a power of two), H = {ω^i} the n-th roots of unity,
// Z(X) = X^n − 1, and A, B, C the polynomials of degree < n with
// A(ω^i) = a_i, B(ω^i) = b_i, C(ω^i) = c_i. Satisfaction means
// a_i·b_i = c_i, i.e. P = A·B − C vanishes on H, so Z divides P and
// h(X) = P(X)/Z(X) has degree ≤ 2(n−1) − n = n − 2.
//
// h_phase_bellman (bellman / Filecoin .params: H[k] = τ^k Z(τ)/δ, k < n−1):
// the output is the n coefficients of h (the last one is 0 for a satisfied
// witness). Steps, with g = 7 (fr_t::multiplicative_generator()):
//   1. a, b, c ← iNTT                     coefficients of A, B, C
//   2. coefficient k ← coefficient k · g^k; NTT:
//        a_i = A(g ω^i), b_i = B(g ω^i), c_i = C(g ω^i)   (coset gH)
//   3. Z(g ω^i) = g^n ω^(in) − 1 = g^n − 1 for every i, nonzero since g
//      generates F_r^* and n < r − 1; so
//        h_i = (a_i b_i − c_i) · (g^n − 1)^−1 = h(g ω^i)
//   4. coset iNTT (iNTT, then coefficient k ← coefficient k · g^−k):
//        a_k = coefficient k of h   (deg h < n, so n coset values fix it)
// Cost: 7 transforms of (n/2) log2 n M each, plus 4n M for the coset
// scalings and 2n M for step 3. Roots: row i is the value at ω^i, so the
// root family fixes which polynomials A, B, C (and h) the rows stand for; it
// must be the one the key was generated with. bellman's setup uses its own
// (7-based) roots, hence the default; the overload taking a domain_t lets a
// caller pick another (our own setup, say) and must match that key.
//
// h_phase_snarkjs (snarkjs .zkey: H_i = L_{2i+1}(τ)/δ over the 2n-th roots,
// docs/oracles.md): the output is P at the odd 2n-th roots,
// h_i = P(ω_{2n}^(2i+1)). Steps, ω_{2n} = 5^((r−1)/2n) (snarkjs roots, so
// ω_{2n}^2 = ω_n):
//   1. a, b, c ← iNTT                     coefficients of A, B, C
//   2. coefficient k ← coefficient k · ω_{2n}^k; NTT:
//        a_i = A(ω_{2n} ω_n^i) = A(ω_{2n}^(2i+1)), likewise b, c
//   3. h_i = a_i b_i − c_i               (no division by Z)
// Why it fits the key: deg P ≤ 2n − 2 < 2n, so P = Σ_{j<2n} P(ω_{2n}^j)
// L_j over the 2n-th roots; at even j, ω_{2n}^j ∈ H and P vanishes. Hence
//   Σ_i h_i L_{2i+1}(τ) = P(τ) = h(τ) Z(τ),
// exactly what Σ_i h_i H_i must contribute to C. Cost: 6 transforms, 3n M
// for the shifts, n M for step 3.
//
// Both functions: a, b, c must have the same nonzero power-of-two length
// (std::invalid_argument otherwise); the result is left in a, and b and c
// are used as scratch (their contents afterwards are unspecified).
// `threads` = 0 uses every core.
#pragma once

#include <span>
#include <vector>

#include "ff/fr.hpp"
#include "ntt/domain.hpp"

namespace starzk {

void h_phase_bellman(std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c, unsigned threads = 0);
// With a prebuilt domain of size a.size(), in the root convention of the key.
void h_phase_bellman(std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c, const domain_t& d, unsigned threads = 0);

void h_phase_snarkjs(std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c, unsigned threads = 0);
// With a prebuilt domain of size a.size(); it must use root_convention_t::snarkjs.
void h_phase_snarkjs(std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c, const domain_t& d, unsigned threads = 0);

}  // namespace starzk
