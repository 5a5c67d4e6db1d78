// BLS12-381 curve parameters: the two groups a Groth16 proof lives in.
//
//   G1: E(Fp)   : y^2 = x^3 + 4
//   G2: E'(Fp2) : y^2 = x^3 + 4(u+1)   (u^2 = -1; the M-type sextic twist)
//
// Both curves have a = 0, which every point formula in this layer relies on.
// The point templates (affine_t, jacobian_t, xyzz_t) take one of the two
// parameter structs below as their argument P; a parameter struct names the
// coordinate field (field_t) and hands out the curve constants.
//
// Sources for the constants: the BLS12-381 write-up by Sean Bowe (the
// "zcash BLS12-381 spec", electriccoin.co/blog/new-snark-curve and the
// zkcrypto/bls12_381 notes), and draft-irtf-cfrg-pairing-friendly-curves
// (section 4.2.1). Every constant is re-derived in tests/ec from p, r and the
// BLS parameter x (generators on the curve and of order r, cofactors through
// the closed formulas quoted below, the endomorphism eigenvalues).
//
// Field constants are built on first use (function-local statics) because the
// field types do not offer constexpr construction; none of them is read in a
// hot loop (the point formulas need no curve constant since a = 0).
#pragma once

#include <array>
#include <cstdint>

#include "ff/fp.hpp"
#include "ff/fp2.hpp"
#include "ff/fr.hpp"

namespace starzk {

// The BLS parameter x (called u in eprint 2021/1130 and in the IETF draft):
// x = -0xd201000000010000 = -(2^63 + 2^62 + 2^60 + 2^57 + 2^48 + 2^16).
// p = (x - 1)^2 (x^4 - x^2 + 1) / 3 + x and r = x^4 - x^2 + 1.
inline constexpr uint64_t bls_x_abs = 0xd201000000010000ull;
inline constexpr bool bls_x_is_negative = true;

// r, the prime order of G1 and G2 (the scalar field modulus), little-endian
// 64-bit limbs: r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001.
inline constexpr std::array<uint64_t, 4> group_order_limbs = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                                              0x3339d80809a1d805ull, 0x73eda753299d7d48ull};

struct g1_params {
  using field_t = fp_t;
  static constexpr const char* name = "G1";

  // b = 4.
  static const fp_t& b();
  // The generator, as fixed by the zcash spec (and the IETF draft):
  // x = 0x17f1d3a7...c6bb, y = 0x08b3f481...e7e1.
  static const fp_t& gen_x();
  static const fp_t& gen_y();

  // Cofactor h1 = (x - 1)^2 / 3 = 0x396c8c005555e1568c00aaab0000aaab,
  // little-endian limbs. #E(Fp) = h1 * r.
  static constexpr std::array<uint64_t, 2> cofactor = {0x8c00aaab0000aaabull, 0x396c8c005555e156ull};

  // beta: a primitive cube root of unity in Fp, chosen so that the
  // endomorphism phi(x, y) = (beta * x, y) acts on G1 as multiplication by
  // -x^2 (mod r) (eprint 2021/1130, section 6; checked in tests/ec):
  // beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe.
  static const fp_t& endo_beta();
};

struct g2_params {
  using field_t = fp2_t;
  static constexpr const char* name = "G2";

  // b' = 4 (u + 1) = 4 + 4u (M-type twist: b' = b * xi with xi = u + 1).
  static const fp2_t& b();
  // The G2 generator from the zcash spec (x.c0, x.c1, y.c0, y.c1).
  static const fp2_t& gen_x();
  static const fp2_t& gen_y();

  // Cofactor h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9
  // (507 bits), little-endian limbs. #E'(Fp2) = h2 * r.
  static constexpr std::array<uint64_t, 8> cofactor = {
      0xcf1c38e31c7238e5ull, 0x1616ec6e786f0c70ull, 0x21537e293a6691aeull, 0xa628f1cb4d9e82efull,
      0xa68a205b2e5a7ddfull, 0xcd91de4547085abaull, 0x091d50792876a202ull, 0x05d543a95414e7f1ull};

  // The untwist-Frobenius-twist endomorphism psi (Galbraith-Scott; eprint
  // 2021/1130 section 4) is psi(x, y) = (conj(x) * psi_cx, conj(y) * psi_cy)
  // with psi_cx = 1 / (u+1)^((p-1)/3) = 0 + 0x1a0111ea...0000aaad * u and
  // psi_cy = 1 / (u+1)^((p-1)/2) = 0x135203e6...121bdea2 + 0x06af0e04...ede3cc09 * u.
  // On G2, psi acts as multiplication by x (mod r).
  static const fp2_t& psi_cx();
  static const fp2_t& psi_cy();
};

}  // namespace starzk
