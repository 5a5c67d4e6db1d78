// Line functions of the BLS12-381 Miller loop: one doubling or addition of
// the running G2 point T in homogeneous projective coordinates, together
// with the line through the points involved, evaluated later at a G1 point.
//
// Where the lines come from. G2 lives on the M-type twist
// E'(F_p2): y^2 = x^3 + b' with b' = 4ξ, ξ = u + 1, and the untwisting map
//   ψ : E' -> E(F_p12),  (x', y') -> (x'/w^2, y'/w^3)
// (check: (y'/w^3)^2 = y'^2/ξ = (x'^3 + 4ξ)/ξ = (x'/w^2)^3 + 4, as w^6 = ξ).
// A line of slope s' on E' becomes a line of slope s'/w on E; through the
// untwisted point (x_T/w^2, y_T/w^3) and evaluated at P = (x_P, y_P) it is
//   l(P) = y_P - (s'/w) x_P + (s' x_T - y_T)/w^3.
// Multiplied by w^3 (an element of F_p4 = F_p2[w^3], which the final
// exponentiation sends to 1 because p^4 - 1 divides (p^12 - 1)/r), and with
// w^2 = v, w^3 = v·w:
//   w^3 l(P) = (s' x_T - y_T)  +  (-s' x_P)·v  +  y_P·v w,
// the sparse shape b0 + b1 v + b4 v w of fp12_t::mul_by_014. Every factor in
// F_p2 (clearing denominators, a global sign) is killed the same way, which
// is what lets the projective formulas below skip all inversions.
//
// A line_t stores the three coefficients with the G1 coordinates factored
// out: l = c0 + (cx·x_P) v + (cy·y_P) v w. So lines depend only on the G2
// point and can be prepared once per G2 point (g2_prepared_t).
//
// Formulas: Costello, Lange, Naehrig, "Faster pairing computations on curves
// with high-degree twists" (PKC 2010, eprint 2009/615) introduced the
// homogeneous-projective doubling/addition with lines for a = 0 sextic
// twists; the explicit forms used here follow Aranha, Karabina, Longa,
// Gebotys, López, "Faster explicit formulas for computing pairings over
// ordinary curves" (Eurocrypt 2011, eprint 2010/526), §4 eqs. (10)-(13),
// rewritten for the M-type twist and scaled by small integers to avoid the
// halving (derivations in miller_loop.cpp).
#pragma once

#include "ec/affine.hpp"
#include "ff/fp12.hpp"

namespace starzk {

// (X : Y : Z) stands for the affine point (X/Z, Y/Z) on E'; Z = 0 is O.
struct g2_projective_t {
  fp2_t x, y, z;

  static g2_projective_t from_affine(const g2_affine_t& q) { return {q.x, q.y, fp2_t::one()}; }
  g2_affine_t to_affine() const {
    if (z.is_zero()) return g2_affine_t::infinity();
    const fp2_t zi = z.inverse();
    return {x * zi, y * zi};
  }
};

// l = c0 + (cx·x_P)·v + (cy·y_P)·v w, up to a factor in F_p4.
struct line_t {
  fp2_t c0, cx, cy;
};

// T <- 2T; returns the tangent line at T. 3M2 + 6S2 (+ 4 F_p mults at
// evaluation).
line_t doubling_step(g2_projective_t& t);

// T <- T + Q (Q affine, T != ±Q, neither is O); returns the line through T
// and Q. 11M2 + 2S2 (+ 4 F_p mults at evaluation).
line_t addition_step(g2_projective_t& t, const g2_affine_t& q);

// f · l(P): the line evaluated at P = (x_P, y_P) and multiplied in
// (4 F_p mults + fp12_t::mul_by_014, 13 M2).
fp12_t mul_by_line(const fp12_t& f, const line_t& l, const g1_affine_t& p);

}  // namespace starzk
