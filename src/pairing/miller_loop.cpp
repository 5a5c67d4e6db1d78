// The Miller loop of the optimal ate pairing on BLS12-381: the doubling and
// addition steps with their lines (line_functions.hpp) and the loops over
// the bits of |x| = 0xd201000000010000, for one pair, for many pairs sharing
// one accumulator, and for prepared G2 points.
//
// Loop (Miller's algorithm, left to right; Vercauteren's optimal ate for
// BLS12 uses the seed x as the loop parameter):
//   T = Q, f = 1
//   for i = 62 down to 0:            (bit 63, the top bit, is T = Q itself)
//     f = f^2 · l_{T,T}(P),  T = 2T
//     if bit i of |x|: f = f · l_{T,Q}(P),  T = T + Q
//   f = conj(f)                       (x < 0, see pairing.hpp)
// |x| has 64 bits and Hamming weight 6: 63 doubling steps, 5 addition
// steps (bits 62, 60, 57, 48, 16), 62 squarings of f (the first is skipped,
// f = 1). With n pairs the squarings are shared: per pair 63·(3M2 + 6S2) +
// 5·(11M2 + 2S2) for T, 68 sparse multiplications (13 M2 each) for f; once,
// 62 F_p12 squarings (2 M6 = 12 M2 each).
//
// T never hits O or ±Q: T = [k]Q for 1 < k <= |x| < r, Q of order r. A Q
// outside the subgroup (the caller's to exclude, see pairing.hpp) cannot
// crash anything either: there is no inversion, only a wrong value.
#include <stdexcept>
#include <string>

#include "pairing/pairing.hpp"

namespace starzk {

namespace {

// 3b' = 12ξ times c: ξ·c is free (fp2_t::mul_by_nonresidue, 2 additions),
// then ×12 = ×3 ×4 with additions.
fp2_t mul_by_3b(const fp2_t& c) {
  const fp2_t xc = c.mul_by_nonresidue();
  return (xc.dbl() + xc).dbl().dbl();
}

void check_on_curve(const g1_affine_t& p, size_t i) {
  if (!p.is_on_curve())
    throw std::runtime_error("pairing: G1 point " + std::to_string(i) + " is not on the curve y^2 = x^3 + 4");
}
void check_on_curve(const g2_affine_t& q, size_t i) {
  if (!q.is_on_curve())
    throw std::runtime_error("pairing: G2 point " + std::to_string(i) + " is not on the twist y^2 = x^3 + 4(u+1)");
}

template <class Q>
void check_sizes(std::span<const g1_affine_t> ps, std::span<const Q> qs) {
  if (ps.size() != qs.size())
    throw std::runtime_error("pairing: " + std::to_string(ps.size()) + " G1 points but " + std::to_string(qs.size()) +
                             " G2 points");
}

constexpr int top_bit = 63;  // |x| < 2^64 and bit 63 is set

bool loop_bit(int i) { return (ate_loop_count >> i) & 1; }

}  // namespace

// Doubling, homogeneous projective, a = 0 (eprint 2010/526 eq. (10), here
// multiplied through by 4 to drop the halvings; a common factor of X, Y, Z
// changes nothing). Affine: s' = 3x^2/(2y), x3 = s'^2 - 2x; with
// x^3 = y^2 - b' this is x3 = x(y^2 - 9b')/(4y^2), which gives
//   B = Y^2, C = Z^2, E = 3b'C, F = 3E (= 9b'Z^2), G = B + F,
//   H = (Y + Z)^2 - B - C (= 2YZ),
//   X3 = 2XY(B - F),  Y3 = G^2 - 12E^2 (= 4(G^2/4 - 27b'^2 Z^4)),  Z3 = 4BH.
// Line: s' x_T - y_T, -s' x_P, y_P multiplied by 2YZ (in F_p2) is
//   (3X^3 - 2Y^2 Z)/Z = Y^2 - 3b'Z^2 (curve equation Y^2 Z = X^3 + b'Z^3),
//   -3X^2 x_P,  2YZ y_P;
// negated (a factor -1, killed too): c0 = E - B, cx = 3X^2, cy = -H.
// Cost: XY, A(B - F), BH: 3M2; Y^2, Z^2, G^2, E^2, (Y+Z)^2, X^2: 6S2.
line_t doubling_step(g2_projective_t& t) {
  const fp2_t a = t.x * t.y;     // XY          1M
  const fp2_t b = t.y.sqr();     // Y^2         1S
  const fp2_t c = t.z.sqr();     // Z^2         1S
  const fp2_t e = mul_by_3b(c);  // 3b'Z^2
  const fp2_t f = e.dbl() + e;   // 9b'Z^2
  const fp2_t g = b + f;
  const fp2_t h = (t.y + t.z).sqr() - b - c;  // 2YZ  1S
  const fp2_t x2 = t.x.sqr();                 // X^2         1S

  line_t l;
  l.c0 = e - b;
  l.cx = x2.dbl() + x2;
  l.cy = -h;

  const fp2_t e2 = e.sqr();         // E^2         1S
  const fp2_t e4 = e2.dbl().dbl();  // 4E^2
  t.x = (a * (b - f)).dbl();        //             1M
  t.y = g.sqr() - e4.dbl() - e4;    // G^2 - 12E^2 1S
  t.z = (b * h).dbl().dbl();        // 4BH         1M
  return l;
}

// Mixed addition T + Q, Q = (x2, y2) affine (eprint 2010/526 eq. (12)-(13)).
// With θ = Y - y2 Z and λ = X - x2 Z the slope is s' = θ/λ; writing
//   C = θ^2, D = λ^2, E = λD, F = ZC, G = XD, H = E + F - 2G (= λ^2 Z x3),
//   X3 = λH,  Y3 = θ(G - H) - YE,  Z3 = ZE
// (x3 = s'^2 - x_T - x2 times Z3 = Zλ^3 gives λH; y3 = s'(x_T - x3) - y_T
// times Z3 gives θ(Xλ^2 - H) - Yλ^3). The line through Q with slope θ/λ,
// multiplied by λ: c0 = θ x2 - λ y2, cx = -θ, cy = λ.
// Cost: y2 Z, x2 Z, E, F, G, X3, 2 for Y3, Z3, 2 for c0: 11M2; C, D: 2S2.
line_t addition_step(g2_projective_t& t, const g2_affine_t& q) {
  const fp2_t theta = t.y - q.y * t.z;   // 1M
  const fp2_t lambda = t.x - q.x * t.z;  // 1M
  const fp2_t c = theta.sqr();           // 1S
  const fp2_t d = lambda.sqr();          // 1S
  const fp2_t e = lambda * d;            // 1M
  const fp2_t f = t.z * c;               // 1M
  const fp2_t g = t.x * d;               // 1M
  const fp2_t h = e + f - g.dbl();

  line_t l;
  l.c0 = theta * q.x - lambda * q.y;  // 2M
  l.cx = -theta;
  l.cy = lambda;

  const fp2_t ye = t.y * e;    // 1M
  t.x = lambda * h;            // 1M
  t.y = theta * (g - h) - ye;  // 1M
  t.z = t.z * e;               // 1M
  return l;
}

// b1 = cx·x_P and b4 = cy·y_P: 2 F_p mults each (fp2_t::mul_by_fp).
fp12_t mul_by_line(const fp12_t& f, const line_t& l, const g1_affine_t& p) {
  return f.mul_by_014(l.c0, l.cx.mul_by_fp(p.x), l.cy.mul_by_fp(p.y));
}

fp12_t miller_loop(const g1_affine_t& p, const g2_affine_t& q) {
  return multi_miller_loop(std::span<const g1_affine_t>(&p, 1), std::span<const g2_affine_t>(&q, 1));
}

fp12_t multi_miller_loop(std::span<const g1_affine_t> ps, std::span<const g2_affine_t> qs) {
  check_sizes(ps, qs);
  // The pairs that take part: both points finite (a pair with O gives 1).
  std::vector<size_t> live;
  for (size_t i = 0; i < ps.size(); ++i) {
    check_on_curve(ps[i], i);
    check_on_curve(qs[i], i);
    if (!ps[i].is_infinity() && !qs[i].is_infinity()) live.push_back(i);
  }
  std::vector<g2_projective_t> ts;
  ts.reserve(live.size());
  for (size_t i : live) ts.push_back(g2_projective_t::from_affine(qs[i]));

  fp12_t f = fp12_t::one();
  for (int bit = top_bit - 1; bit >= 0; --bit) {
    if (bit != top_bit - 1) f = f.sqr();  // f = 1 on the first step
    for (size_t k = 0; k < live.size(); ++k) f = mul_by_line(f, doubling_step(ts[k]), ps[live[k]]);
    if (loop_bit(bit))
      for (size_t k = 0; k < live.size(); ++k) f = mul_by_line(f, addition_step(ts[k], qs[live[k]]), ps[live[k]]);
  }
  return f.conjugate();
}

// The same walk as multi_miller_loop, recording the lines instead of using
// them: 68 lines, in the order the loop consumes them.
g2_prepared_t g2_prepared_t::prepare(const g2_affine_t& q) {
  check_on_curve(q, 0);
  g2_prepared_t out;
  if (q.is_infinity()) return out;
  out.infinity = false;
  out.lines.reserve(top_bit + 5);
  g2_projective_t t = g2_projective_t::from_affine(q);
  for (int bit = top_bit - 1; bit >= 0; --bit) {
    out.lines.push_back(doubling_step(t));
    if (loop_bit(bit)) out.lines.push_back(addition_step(t, q));
  }
  return out;
}

fp12_t multi_miller_loop(std::span<const g1_affine_t> ps, std::span<const g2_prepared_t> qs) {
  check_sizes(ps, qs);
  std::vector<size_t> live;
  for (size_t i = 0; i < ps.size(); ++i) {
    check_on_curve(ps[i], i);
    if (qs[i].infinity || ps[i].is_infinity()) continue;
    if (qs[i].lines.size() != top_bit + 5)
      throw std::runtime_error("pairing: prepared G2 point " + std::to_string(i) + " has " +
                               std::to_string(qs[i].lines.size()) + " lines, expected 68");
    live.push_back(i);
  }
  fp12_t f = fp12_t::one();
  size_t cursor = 0;  // the same line index for every pair
  for (int bit = top_bit - 1; bit >= 0; --bit) {
    if (bit != top_bit - 1) f = f.sqr();
    const int steps = loop_bit(bit) ? 2 : 1;  // doubling, then maybe addition
    for (int s = 0; s < steps; ++s, ++cursor)
      for (size_t i : live) f = mul_by_line(f, qs[i].lines[cursor], ps[i]);
  }
  return f.conjugate();
}

}  // namespace starzk
