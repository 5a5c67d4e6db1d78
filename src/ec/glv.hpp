// GLV scalar decomposition for BLS12-381: k·P = k1·P + k2·[x^2]P with
// |k1|, |k2| < 2^127, where [x^2]P costs one or two field products through
// an endomorphism instead of 127 doublings. The CPU MSM (msm/pippenger.cpp)
// uses it to halve the number of windows: 2n terms of 128-bit scalars
// instead of n terms of 255-bit ones (Gallant, Lambert, Vanstone, "Faster
// point multiplication on elliptic curves with efficient endomorphisms",
// CRYPTO 2001).
//
// The endomorphism. x = -0xd201000000010000 is the BLS parameter, z = |x|,
// and r = x^4 − x^2 + 1 = z^4 − z^2 + 1 (ec/curve.hpp). Write mu = z^2 = x^2
// (128 bits: 2^127 < mu < 2^128, and mu is even). Then
//   mu^2 − mu + 1 = r ≡ 0 (mod r),                                       (1)
// so mu is a primitive sixth root of unity mod r, and lambda = −mu is a
// primitive cube root (lambda^2 + lambda + 1 = mu^2 − mu + 1 ≡ 0).
//   G1: phi(x, y) = (beta·x, y) acts as [−x^2] = [lambda] (ec/subgroup.hpp),
//       so [mu]P = −phi(P) = (beta·x, −y): 1 Fp product.
//   G2: psi acts as [x], so psi^2 acts as [x^2] = [mu]. With
//       psi(x, y) = (conj(x)·cx, conj(y)·cy), conj(conj(x)·cx)·cx =
//       x·N(cx) with N(c) = c·conj(c) = c^(p+1) in Fp, so
//       psi^2(x, y) = (N(cx)·x, N(cy)·y). N(cy) = 1/(u+1)^((p^2−1)/2) = −1
//       (u + 1 is not a square in Fp2) and omega = N(cx) = 1/(u+1)^((p^2−1)/3)
//       is a cube root of unity in Fp: [mu]P = (omega·x, −y), 2 Fp products.
// Both are x2_endo(P) = (c·x, −y) with c = beta (G1) or omega (G2); the
// point at infinity (0, 0) maps to itself. tests/ec/test_glv.cpp checks
// (1), x2_endo(P) = [z]([z]P), N(cy) = −1 and omega^3 = 1.
//
// The decomposition. Any (k1, k2) with k1 + k2·mu ≡ k (mod r) gives
// k·P = k1·P + k2·x2_endo(P). For k < r:
//   1. q = floor(k / mu), m = k − q·mu, so 0 ≤ m < mu, and q ≤ mu − 1
//      since k ≤ r − 1 = mu^2 − mu. Division by mu = z^2 is two divisions
//      by the 64-bit z: floor(floor(k / z) / z) = floor(k / z^2).
//   2. If m > mu/2: (m, q) ← (m − mu, q + 1). Same integer m + q·mu; now
//      −mu/2 < m ≤ mu/2. q stays ≤ mu − 1: q = mu − 1 forces m = 0 in step
//      1 (k ≤ mu^2 − mu), and then step 2 does nothing.
//   3. If q > mu/2: (m, q) ← (m − 1, q − (mu − 1)). By (1),
//      (m − 1) + (q − mu + 1)·mu = m + q·mu − (mu^2 − mu + 1) = m + q·mu − r,
//      so k1 + k2·mu = k − r ≡ k. Now −mu/2 + 1 < q ≤ 0.
// Result: −mu/2 ≤ k1 ≤ mu/2 (m is an integer > −mu/2 before step 3) and
// |k2| ≤ mu/2, so both are below mu/2 < 2^126.43 < 2^127 in size, and
// k1 + k2·mu is k or k − r as integers. (Step 3 subtracts the lattice vector
// (1, mu − 1) of {(a, b) : a + b·mu ≡ 0 mod r}, step 2 adds (−mu, 1); these
// two vectors of length ~mu = ~sqrt(r) are the short basis the general GLV
// method finds by the extended Euclidean algorithm, here read off (1).)
// Cost: 8 divisions of 128 by 64 bits and a few 128-bit additions.
#pragma once

#include <array>
#include <cstdint>

#include "ec/affine.hpp"

namespace starzk {

// mu = x^2 = z^2 for the BLS parameter x (z = |x|).
inline constexpr unsigned __int128 glv_mu = static_cast<unsigned __int128>(bls_x_abs) * bls_x_abs;

// k ≡ k1 + k2·x^2 (mod r) with |k1|, |k2| ≤ x^2/2 < 2^127.
struct glv_split_t {
  __int128 k1, k2;
};

// The decomposition of the canonical integer k (little-endian limbs,
// k < r; see the file comment). For k ≥ r the identity still holds but the
// bounds do not.
glv_split_t glv_split(const std::array<uint64_t, 4>& k);

// [x^2]P through the endomorphism: (beta·x, −y) on G1, psi^2(P) =
// (omega·x, −y) on G2 (file comment). Valid for P in the order-r subgroup
// (and O); on other curve points it is an endomorphism but not [x^2].
g1_affine_t x2_endo(const g1_affine_t& p);
g2_affine_t x2_endo(const g2_affine_t& p);

// omega = N(psi_cx), the Fp cube root of unity of psi^2 on G2.
const fp_t& g2_psi2_omega();

}  // namespace starzk
