// fp12_t products, inverse, Frobenius, sparse line multiplication and
// cyclotomic squaring (see ff/fp12.hpp). Costs in F_p6 multiplications (M6)
// or F_p2 multiplications/squarings (M2, S2).
#include "ff/fp12.hpp"

#include "ff/frobenius.hpp"

namespace starzk {

// Karatsuba over w^2 = v, 3 M6 (= 18 M2):
//   t0 = a0 b0, t1 = a1 b1
//   c0 = t0 + v·t1,  c1 = (a0 + a1)(b0 + b1) - t0 - t1
fp12_t operator*(const fp12_t& a, const fp12_t& b) {
  const fp6_t t0 = a.c0 * b.c0;
  const fp6_t t1 = a.c1 * b.c1;
  return {t0 + t1.mul_by_nonresidue(), (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
}

// Complex squaring, 2 M6 (eprint 2006/471 §3): with ab = a0 a1,
//   c0 = (a0 + a1)(a0 + v a1) - ab - v·ab   (= a0^2 + v a1^2)
//   c1 = 2 ab
fp12_t fp12_t::sqr() const {
  const fp6_t ab = c0 * c1;
  const fp6_t t = (c0 + c1) * (c0 + c1.mul_by_nonresidue());
  return {t - ab - ab.mul_by_nonresidue(), ab.dbl()};
}

// 1/(a0 + a1 w) = (a0 - a1 w)/(a0^2 - v a1^2): 2 S6 + 2 M6 + one F_p6 inversion.
fp12_t fp12_t::inverse() const {
  const fp6_t n = (c0.sqr() - c1.sqr().mul_by_nonresidue()).inverse();
  return {c0 * n, -(c1 * n)};
}

// (c0 + c1 w)^(p^k) = c0^(p^k) + c1^(p^k) · w · ξ^((p^k-1)/6).
fp12_t fp12_t::frobenius_map(unsigned power) const {
  const unsigned k = power % 12;
  return {c0.frobenius_map(k), c1.frobenius_map(k).mul_by_fp2(frobenius_coeffs().w[k])};
}

// Sparse b = B0 + B1 w with B0 = b0 + b1 v and B1 = b4 v. Karatsuba:
//   aa = a0·B0 (mul_by_01, 5 M2), bb = a1·B1 (mul_by_1, 3 M2)
//   c1 = (a0 + a1)(B0 + B1) - aa - bb, B0 + B1 = b0 + (b1 + b4) v (5 M2)
//   c0 = aa + v·bb
fp12_t fp12_t::mul_by_014(const fp2_t& b0, const fp2_t& b1, const fp2_t& b4) const {
  const fp6_t aa = c0.mul_by_01(b0, b1);
  const fp6_t bb = c1.mul_by_1(b4);
  const fp6_t s = (c0 + c1).mul_by_01(b0, b1 + b4);
  return {aa + bb.mul_by_nonresidue(), s - aa - bb};
}

namespace {
// (a + b s)^2 in F_p4 = F_p2[s]/(s^2 - ξ): returns (a^2 + ξ b^2, 2ab)
// computed as 3 S2: 2ab = (a + b)^2 - a^2 - b^2.
void fp4_sqr(const fp2_t& a, const fp2_t& b, fp2_t& r0, fp2_t& r1) {
  const fp2_t a2 = a.sqr();
  const fp2_t b2 = b.sqr();
  r0 = a2 + b2.mul_by_nonresidue();
  r1 = (a + b).sqr() - a2 - b2;
}
}  // namespace

// Granger–Scott, "Faster Squaring in the Cyclotomic Subgroup of Sixth Degree
// Extensions" (eprint 2009/565), §3.2. View F_p12 = F_p4[w]/(w^3 - s) with
// s = w^3 (s^2 = w^6 = ξ) and F_p4 = F_p2[s]. Regrouping the slots
// (1, v = w^2, v^2 = w^4, w, v w = w^3, v^2 w = w^5):
//   f = A + B w + C w^2,  A = c0.c0 + c1.c1 s,  B = c1.c0 + c0.c2 s,  C = c0.c1 + c1.c2 s.
// For f in the cyclotomic subgroup,
//   A' = 3A^2 - 2 conj(A),  B' = 3 s C^2 + 2 conj(B),  C' = 3B^2 - 2 conj(C),
// conj(x + y s) = x - y s. Cost: 3 F_p4 squarings = 9 S2.
fp12_t fp12_t::cyclotomic_sqr() const {
  const fp2_t& a0 = c0.c0;
  const fp2_t& a1 = c1.c1;
  const fp2_t& b0 = c1.c0;
  const fp2_t& b1 = c0.c2;
  const fp2_t& g0 = c0.c1;
  const fp2_t& g1 = c1.c2;
  fp2_t A0, A1, B0, B1, C0, C1;
  fp4_sqr(a0, a1, A0, A1);  // A^2
  fp4_sqr(b0, b1, B0, B1);  // B^2
  fp4_sqr(g0, g1, C0, C1);  // C^2
  // A' = 3A^2 - 2conj(A): x' = 3 A0 - 2 a0, y' = 3 A1 + 2 a1 (written 2(A - a) + A).
  const fp2_t na0 = (A0 - a0).dbl() + A0;
  const fp2_t na1 = (A1 + a1).dbl() + A1;
  // B' = 3 s C^2 + 2 conj(B); s C^2 = ξ C1 + C0 s.
  const fp2_t xc = C1.mul_by_nonresidue();
  const fp2_t nb0 = (xc + b0).dbl() + xc;
  const fp2_t nb1 = (C0 - b1).dbl() + C0;
  // C' = 3B^2 - 2conj(C).
  const fp2_t ng0 = (B0 - g0).dbl() + B0;
  const fp2_t ng1 = (B1 + g1).dbl() + B1;
  return {{na0, ng0, nb1}, {nb0, na1, ng1}};
}

fp12_t fp12_t::pow(std::span<const uint64_t> e) const {
  fp12_t r = one();
  for (size_t i = e.size(); i-- > 0;) {
    for (int b = 63; b >= 0; --b) {
      r = r.sqr();
      if ((e[i] >> b) & 1) r *= *this;
    }
  }
  return r;
}

std::string fp12_t::to_string() const {
  std::string s = "{";
  s += c0.to_string();
  s += ", ";
  s += c1.to_string();
  s += "}";
  return s;
}

}  // namespace starzk
