// glv_split and x2_endo (see glv.hpp for the derivation).
#include "ec/glv.hpp"

#include "ff/limbs.hpp"

namespace starzk {

glv_split_t glv_split(const std::array<uint64_t, 4>& k) {
  using u128 = unsigned __int128;
  // Step 1: k = q1·z + r1, q1 = q·z + r2, so k = q·z^2 + (r2·z + r1) and
  // m = r2·z + r1 ≤ (z − 1)·z + z − 1 = z^2 − 1.
  std::array<uint64_t, 4> q = k;
  const uint64_t r1 = limbs::div_small(q, bls_x_abs);
  const uint64_t r2 = limbs::div_small(q, bls_x_abs);
  u128 qq = (u128(q[1]) << 64) | q[0];  // q ≤ mu − 1 < 2^128: q[2] = q[3] = 0
  const u128 m = u128(r2) * bls_x_abs + r1;
  const u128 half = glv_mu / 2;  // mu is even (z is)
  // Step 2: m > mu/2 → (m − mu, q + 1).
  __int128 k1;
  if (m > half) {
    k1 = -static_cast<__int128>(glv_mu - m);  // mu − m < mu/2 < 2^127
    qq += 1;
  } else {
    k1 = static_cast<__int128>(m);
  }
  // Step 3: q > mu/2 → (m − 1, q − (mu − 1)), subtracting r in all.
  __int128 k2;
  if (qq > half) {
    k2 = -static_cast<__int128>(glv_mu - 1 - qq);  // q ≤ mu − 1
    k1 -= 1;
  } else {
    k2 = static_cast<__int128>(qq);
  }
  return {k1, k2};
}

const fp_t& g2_psi2_omega() {
  // N(cx) = cx·conj(cx) lies in Fp (its c1 is zero; tests/ec check it).
  static const fp_t v = (g2_params::psi_cx() * g2_params::psi_cx().conjugate()).c0;
  return v;
}

g1_affine_t x2_endo(const g1_affine_t& p) { return {p.x * g1_params::endo_beta(), -p.y}; }

g2_affine_t x2_endo(const g2_affine_t& p) { return {p.x.mul_by_fp(g2_psi2_omega()), -p.y}; }

}  // namespace starzk
