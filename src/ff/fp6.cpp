// fp6_t products, inverse and Frobenius (see ff/fp6.hpp for the tower).
// Formulas: Devegili, Ó hÉigeartaigh, Scott, Dahab, eprint 2006/471
// (Karatsuba for cubic extensions, squaring CH-SQR2); inversion as in Scott,
// "Implementing cryptographic pairings" (2007), §3 / Guide to Pairing-Based
// Cryptography ch. 5. Costs in F_p2 multiplications (M2) and squarings (S2).
#include "ff/fp6.hpp"

#include "ff/frobenius.hpp"

namespace starzk {

// Karatsuba, 6 M2. With t_i = a_i b_i and v^3 = ξ:
//   c0 = t0 + ξ·((a1 + a2)(b1 + b2) - t1 - t2)     [a1 b2 + a2 b1 at v^3]
//   c1 = (a0 + a1)(b0 + b1) - t0 - t1 + ξ·t2        [a0 b1 + a1 b0, a2 b2 at v^4]
//   c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1          [a0 b2 + a2 b0 + a1 b1]
fp6_t operator*(const fp6_t& a, const fp6_t& b) {
  const fp2_t t0 = a.c0 * b.c0;
  const fp2_t t1 = a.c1 * b.c1;
  const fp2_t t2 = a.c2 * b.c2;
  const fp2_t c0 = ((a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2).mul_by_nonresidue() + t0;
  const fp2_t c1 = (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1 + t2.mul_by_nonresidue();
  const fp2_t c2 = (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2 + t1;
  return {c0, c1, c2};
}

// CH-SQR2, 2 M2 + 3 S2:
//   s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2
//   c0 = s0 + ξ s3, c1 = s1 + ξ s4, c2 = s1 + s2 + s3 - s0 - s4 (= a1^2 + 2 a0 a2)
fp6_t fp6_t::sqr() const {
  const fp2_t s0 = c0.sqr();
  const fp2_t s1 = (c0 * c1).dbl();
  const fp2_t s2 = (c0 - c1 + c2).sqr();
  const fp2_t s3 = (c1 * c2).dbl();
  const fp2_t s4 = c2.sqr();
  return {s0 + s3.mul_by_nonresidue(), s1 + s4.mul_by_nonresidue(), s1 + s2 + s3 - s0 - s4};
}

// 1/a = (A + B v + C v^2)/F with
//   A = a0^2 - ξ a1 a2,  B = ξ a2^2 - a0 a1,  C = a1^2 - a0 a2,
//   F = a0 A + ξ (a2 B + a1 C)  (the norm of a to F_p2, up to the cofactor).
// Cost: 9 M2 + 3 S2 + one F_p2 inversion. F = 0 only for a = 0, giving 0.
fp6_t fp6_t::inverse() const {
  const fp2_t A = c0.sqr() - (c1 * c2).mul_by_nonresidue();
  const fp2_t B = c2.sqr().mul_by_nonresidue() - c0 * c1;
  const fp2_t C = c1.sqr() - c0 * c2;
  const fp2_t F = c0 * A + (c2 * B + c1 * C).mul_by_nonresidue();
  const fp2_t Fi = F.inverse();
  return {A * Fi, B * Fi, C * Fi};
}

fp6_t fp6_t::frobenius_map(unsigned power) const {
  const frobenius_coeffs_t& t = frobenius_coeffs();
  const unsigned k = power % 12;
  return {c0.frobenius_map(k), c1.frobenius_map(k) * t.v[k], c2.frobenius_map(k) * t.v2[k]};
}

// (a0 + a1 v + a2 v^2)(b0 + b1 v) = (a0 b0 + ξ a2 b1) + (a0 b1 + a1 b0) v + (a1 b1 + a2 b0) v^2.
// Karatsuba, 5 M2, with t0 = a0 b0, t1 = a1 b1:
//   c0 = t0 + ξ((a1 + a2) b1 - t1),  c1 = (a0 + a1)(b0 + b1) - t0 - t1,  c2 = (a0 + a2) b0 - t0 + t1.
fp6_t fp6_t::mul_by_01(const fp2_t& b0, const fp2_t& b1) const {
  const fp2_t t0 = c0 * b0;
  const fp2_t t1 = c1 * b1;
  return {((c1 + c2) * b1 - t1).mul_by_nonresidue() + t0, (c0 + c1) * (b0 + b1) - t0 - t1, (c0 + c2) * b0 - t0 + t1};
}

// (a0 + a1 v + a2 v^2)(b1 v) = ξ a2 b1 + a0 b1 v + a1 b1 v^2: 3 M2.
fp6_t fp6_t::mul_by_1(const fp2_t& b1) const { return {(c2 * b1).mul_by_nonresidue(), c0 * b1, c1 * b1}; }

fp6_t fp6_t::pow(std::span<const uint64_t> e) const {
  fp6_t r = one();
  for (size_t i = e.size(); i-- > 0;) {
    for (int b = 63; b >= 0; --b) {
      r = r.sqr();
      if ((e[i] >> b) & 1) r *= *this;
    }
  }
  return r;
}

std::string fp6_t::to_string() const {
  std::string s = "[";
  s += c0.to_string();
  s += ", ";
  s += c1.to_string();
  s += ", ";
  s += c2.to_string();
  s += "]";
  return s;
}

}  // namespace starzk
