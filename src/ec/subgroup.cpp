// Endomorphisms, subgroup membership and cofactor clearing for G1 and G2.
//
// The fast tests (eprint 2021/1130) are described in subgroup.hpp; the slow
// ones are the definition of the subgroup, on the curve and [r] P = O, and
// exist so that tests can hold the fast ones against them. Every check
// starts with the curve equation: the endomorphism arguments only hold for
// points of the curve, and a point off the curve is in no subgroup.
#include "ec/subgroup.hpp"

#include "ec/scalar_mul.hpp"

namespace starzk {

g1_affine_t phi(const g1_affine_t& p) {
  if (p.is_infinity()) return p;
  return g1_affine_t{p.x * g1_params::endo_beta(), p.y};
}

g1_jacobian_t phi(const g1_jacobian_t& p) {
  return g1_jacobian_t{p.x * g1_params::endo_beta(), p.y, p.z};
}

g2_affine_t psi(const g2_affine_t& p) {
  if (p.is_infinity()) return p;
  return g2_affine_t{p.x.conjugate() * g2_params::psi_cx(), p.y.conjugate() * g2_params::psi_cy()};
}

g2_jacobian_t psi(const g2_jacobian_t& p) {
  return g2_jacobian_t{p.x.conjugate() * g2_params::psi_cx(), p.y.conjugate() * g2_params::psi_cy(),
                       p.z.conjugate()};
}

// [x] P for the (negative) BLS parameter x: -[|x|] P.
template <class P>
static jacobian_t<P> mul_by_bls_x(const jacobian_t<P>& p) {
  const jacobian_t<P> q = mul_u64(p, bls_x_abs);
  return bls_x_is_negative ? q.neg() : q;
}

g1_jacobian_t clear_cofactor(const g1_jacobian_t& p) {
  // 1 - x = 1 + |x| = 0xd201000000010001 (x < 0).
  static_assert(bls_x_is_negative, "h_eff = 1 - x = 1 + |x| assumes x < 0");
  return mul_u64(p, bls_x_abs + 1);
}

g2_jacobian_t clear_cofactor(const g2_jacobian_t& p) {
  // RFC 9380 appendix G.3, step by step (c1 = x):
  const g2_jacobian_t t1 = mul_by_bls_x(p);  // t1 = [x] P
  g2_jacobian_t t2 = psi(p);                 // t2 = psi(P)
  g2_jacobian_t t3 = psi(psi(p.dbl()));      // t3 = psi^2([2] P)
  t3 = t3 - t2;                              // t3 = psi^2(2P) - psi(P)
  t2 = mul_by_bls_x(t1 + t2);                // t2 = [x] ([x] P + psi(P))
  t3 = t3 + t2;
  t3 = t3 - t1;
  return t3 - p;  // [x^2 - x - 1] P + [x - 1] psi(P) + psi^2(2P)
}

// G1: phi(P) == [-x^2] P. [x^2] P = [|x|]([|x|] P) as x^2 = |x|^2.
template <>
bool affine_t<g1_params>::is_in_subgroup() const {
  if (is_infinity()) return true;
  if (!is_on_curve()) return false;
  const g1_jacobian_t x2p = mul_u64(mul_u64(*this, bls_x_abs), bls_x_abs);
  return x2p.neg() == g1_jacobian_t::from_affine(phi(*this));
}

// G2: psi(P) == [x] P.
template <>
bool affine_t<g2_params>::is_in_subgroup() const {
  if (is_infinity()) return true;
  if (!is_on_curve()) return false;
  return mul_by_bls_x(g2_jacobian_t::from_affine(*this)) == g2_jacobian_t::from_affine(psi(*this));
}

template <>
bool affine_t<g1_params>::is_in_subgroup_slow() const {
  return is_on_curve() && mul_limbs(*this, std::span<const uint64_t>(group_order_limbs)).is_infinity();
}

template <>
bool affine_t<g2_params>::is_in_subgroup_slow() const {
  return is_on_curve() && mul_limbs(*this, std::span<const uint64_t>(group_order_limbs)).is_infinity();
}

}  // namespace starzk
