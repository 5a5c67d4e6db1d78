// Endomorphisms of G1 and G2, the fast subgroup tests built on them, and
// cofactor clearing.
//
// Both curves carry an efficiently computable endomorphism that acts on the
// prime-order subgroup as multiplication by a known scalar:
//   G1: phi(x, y) = (beta x, y), beta a cube root of unity in Fp; on G1,
//       phi = [-x^2] (x the BLS parameter). Cost 1M.
//   G2: psi = twist^-1 . Frobenius . twist, psi(x, y) = (conj(x) cx,
//       conj(y) cy); on G2, psi = [x]. Cost 2M (Fp2).
// Scott (eprint 2021/1130, "A note on group membership tests for G1, G2 and
// GT on BLS pairing-friendly curves") proves that for BLS12-381 the converse
// holds too: a point of E(Fp) with phi(P) = [-x^2] P, or a point of E'(Fp2)
// with psi(P) = [x] P, is in the order-r subgroup. So membership costs one
// 64-bit scalar multiplication on G2 (|x| has 6 set bits) and two on G1,
// against a 255-bit one for the definition [r] P = O.
//
// The 64-bit multiplications run along the fixed addition chain of
// |x| = 0xd201000000010000 (ec/x_chain.hpp): 63 doublings (2M + 5S each,
// a = 0) and 5 additions, and no per-bit branching. That is the whole cost:
// G1 = 126 doublings + 5 mixed and 5 general additions, G2 = 63 doublings
// + 5 mixed additions in Fp2. first_outside_subgroup checks a whole vector
// of key points on several threads and returns the first index that fails.
// Where the CPU has AVX-512 IFMA (unless STARZK_FF_IFMA=0 or
// STARZK_FF_PORTABLE=1) it walks the chain for eight points at once, one
// per 64-bit lane (ec/subgroup_x8.cpp): on the 2-core development VM
// 7.9 µs per G1 point instead of 38 µs and 11.7 µs per G2 point instead of
// 50 µs, one thread (docs/benchmarks.md, "Key validation on AVX-512 IFMA").
//
// Cofactor clearing maps any curve point into the subgroup (tests use it to
// make subgroup points from random curve points, and it is what hash-to-curve
// ends with): RFC 9380, section 7 and appendix G.3.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "ec/jacobian.hpp"

namespace starzk {

// phi(x, y) = (beta x, y); in Jacobian form (beta X : Y : Z) since
// x = X / Z^2 scales linearly in X.
g1_affine_t phi(const g1_affine_t& p);
g1_jacobian_t phi(const g1_jacobian_t& p);

// psi(x, y) = (conj(x) cx, conj(y) cy); in Jacobian form
// (conj(X) cx : conj(Y) cy : conj(Z)), conjugation being a field automorphism.
g2_affine_t psi(const g2_affine_t& p);
g2_jacobian_t psi(const g2_jacobian_t& p);

// G1: [h_eff] P with h_eff = 1 - x = 0xd201000000010001 (RFC 9380 section
// 8.8.1: multiplying by 1 - x clears the G1 cofactor). One 64-bit
// double-and-add.
g1_jacobian_t clear_cofactor(const g1_jacobian_t& p);

// G2: [h_eff] P with Budroni-Pintore's decomposition (eprint 2017/419;
// RFC 9380 appendix G.3):
//   h_eff P = [x^2 - x - 1] P + [x - 1] psi(P) + psi^2([2] P).
// Two 64-bit multiplications by x, three psi, a handful of additions.
g2_jacobian_t clear_cofactor(const g2_jacobian_t& p);

// [|x|] P along the fixed chain of |x| (x the BLS parameter).
g1_jacobian_t mul_by_x_abs(const g1_affine_t& p);
g1_jacobian_t mul_by_x_abs(const g1_jacobian_t& p);
g2_jacobian_t mul_by_x_abs(const g2_affine_t& p);

// The lowest index i such that points[i] is off the curve or outside the
// order-r subgroup (O passes), or std::nullopt when every point is in G1 /
// G2. Runs on `threads` threads (util/parallel.hpp: 0 is every hardware
// thread) over blocks of points; blocks past a failure already found are
// skipped.
std::optional<uint64_t> first_outside_subgroup(std::span<const g1_affine_t> points, unsigned threads = 0);
std::optional<uint64_t> first_outside_subgroup(std::span<const g2_affine_t> points, unsigned threads = 0);

}  // namespace starzk
