// The optimal ate pairing on BLS12-381: e : G1 x G2 -> GT ⊂ F_p12^*.
//
// This is what Groth16 verification needs: a proof (A, B, C) is accepted
// when e(A, B) = e(α, β) · e(IC, γ) · e(C, δ), IC = Σ x_i·IC_i. Moving
// everything to one side, e(-A, B) · e(α, β) · e(IC, γ) · e(C, δ) = 1, one
// multi-pairing: one shared Miller loop and ONE final exponentiation
// (pairing_product_is_one).
//
// Definition (Vercauteren, "Optimal pairings", IEEE TIT 2010; for BLS12 the
// loop parameter is the curve seed x = -0xd201000000010000):
//   e(P, Q) = f_{x,Q}(P)^((p^12 - 1)/r)
// where f_{x,Q} is the Miller function of the G2 point Q (on the M-type
// sextic twist E'(F_p2): y^2 = x^3 + 4(u+1), untwisted to E(F_p12)) with
// divisor x(Q) - ([x]Q) - (x - 1)(O). Since x < 0, f_{x,Q} = 1/(f_{|x|,Q}·v)
// with a vertical line v that the final exponentiation kills, and on the
// unitary elements the result lives in 1/f = conj(f): so the loop runs over
// |x| and the value is conjugated at the end.
//
// The final exponentiation here raises to 3·(p^12 - 1)/r (see
// final_exponentiation.cpp), like zkcrypto bls12_381, blst and
// @noble/curves: the values agree with those libraries bit for bit, and the
// map is still a non-degenerate bilinear pairing (3 is prime to r).
//
// Inputs are affine points (ec/affine.hpp); the point at infinity of either
// group makes its pair contribute 1. Points must lie on their curve (checked:
// std::runtime_error otherwise) and in the order-r subgroup. Subgroup
// membership is NOT checked here (it costs a scalar multiplication per
// point); the decoders in ec/encoding check it, and callers that build
// points by other means must check is_in_subgroup() themselves.
//
// Costs (F_p2 multiplications M2 / squarings S2, F_p12 ones M12), measured
// by bench/pairing: see the comments of miller_loop.cpp and
// final_exponentiation.cpp.
#pragma once

#include <span>
#include <vector>

#include "ec/affine.hpp"
#include "ff/fp12.hpp"
#include "pairing/line_functions.hpp"

namespace starzk {

// |x| = 0xd201000000010000, the Miller loop length (64 bits, Hamming weight 6).
inline constexpr uint64_t ate_loop_count = 0xd201000000010000ull;

// ---- Miller loop ----

// f_{x,Q}(P) (conjugated as explained above), not yet exponentiated. The
// value depends on how lines are scaled and is only meaningful after
// final_exponentiation. Returns 1 if P or Q is the point at infinity.
fp12_t miller_loop(const g1_affine_t& p, const g2_affine_t& q);

// Π_i f_{x,Q_i}(P_i) with one shared loop: per bit one squaring of f for
// all pairs, then one sparse multiplication per pair. Spans must have equal
// length; pairs with an infinity are skipped.
fp12_t multi_miller_loop(std::span<const g1_affine_t> ps, std::span<const g2_affine_t> qs);

// G2 points prepared once: the 68 line coefficient triples of the Miller
// loop (63 doublings, 5 additions), independent of the G1 point. A verifier
// with a fixed key prepares β, γ, δ once and saves the G2 arithmetic
// (about a third of the Miller loop) on every proof.
struct g2_prepared_t {
  std::vector<line_t> lines;  // empty for the point at infinity
  bool infinity = true;

  static g2_prepared_t prepare(const g2_affine_t& q);  // throws if q is off the curve
};

fp12_t multi_miller_loop(std::span<const g1_affine_t> ps, std::span<const g2_prepared_t> qs);

// ---- final exponentiation ----

// f^((p^6 - 1)(p^2 + 1)): maps F_p12^* onto the cyclotomic subgroup
// (where the inverse is the conjugate and cyclotomic_sqr applies).
fp12_t final_exponentiation_easy(const fp12_t& f);
// m^(3 (p^4 - p^2 + 1)/r) for m in the cyclotomic subgroup.
fp12_t final_exponentiation_hard(const fp12_t& m);
// Both: f^(3 (p^12 - 1)/r). Zero (only from degenerate input) maps to zero.
fp12_t final_exponentiation(const fp12_t& f);

// m^x for m in the cyclotomic subgroup, x = -0xd201000000010000 the signed
// BLS parameter: 63 cyclotomic squarings, 5 M12, one conjugation.
fp12_t cyclotomic_exp_by_x(const fp12_t& m);

// ---- pairings ----

fp12_t pairing(const g1_affine_t& p, const g2_affine_t& q);
// Π_i e(P_i, Q_i), one Miller loop and one final exponentiation.
fp12_t multi_pairing(std::span<const g1_affine_t> ps, std::span<const g2_affine_t> qs);
fp12_t multi_pairing(std::span<const g1_affine_t> ps, std::span<const g2_prepared_t> qs);
// Π_i e(P_i, Q_i) == 1: the Groth16 check. An empty product is 1.
bool pairing_product_is_one(std::span<const g1_affine_t> ps, std::span<const g2_affine_t> qs);
bool pairing_product_is_one(std::span<const g1_affine_t> ps, std::span<const g2_prepared_t> qs);

}  // namespace starzk
