// Affine points (x, y) on G1 or G2: the storage form of every key point.
//
// The point at infinity O is stored as x = y = 0. (0, 0) is not on either
// curve (0 = 0 + b needs b = 0, and b = 4 resp. 4(u+1)), so the encoding is
// unambiguous and needs no flag byte: a G1 point is exactly 96 bytes and a G2
// point 192 bytes, the same bytes a CUDA MSM kernel reads, and all-zero
// memory (a fresh allocation, a snarkjs .zkey infinity) is O.
//
// The subgroup checks are declared here and defined for G1 and G2 in
// subgroup.cpp (they need scalar multiplication, which needs this type):
//   G1: phi(P) == -[x^2] P, with phi(x, y) = (beta x, y)  (Scott, eprint
//       2021/1130, section 6; Bowe, eprint 2019/814, gave an earlier test
//       built on the same endomorphism).
//   G2: psi(P) == [x] P (Scott, eprint 2021/1130, section 4).
// is_in_subgroup_slow is the definition itself, [r] P == O, kept as the
// reference the tests hold the fast checks against.
#pragma once

#include "ec/curve.hpp"

namespace starzk {

template <class P>
struct affine_t {
  using params_t = P;
  using field_t = typename P::field_t;

  field_t x, y;

  static affine_t infinity() { return affine_t{field_t::zero(), field_t::zero()}; }
  static affine_t generator() { return affine_t{P::gen_x(), P::gen_y()}; }

  bool is_infinity() const { return x.is_zero() && y.is_zero(); }

  // y^2 == x^3 + b (cost 1M + 2S). O counts as on the curve (it is, as the
  // projective point (0:1:0)).
  bool is_on_curve() const {
    if (is_infinity()) return true;
    return y.sqr() == x.sqr() * x + P::b();
  }

  // Fast membership test of the prime-order subgroup (see the file comment).
  // Returns false for a point that is not on the curve; true for O.
  bool is_in_subgroup() const;
  // Reference test: on the curve and [r] P == O (255 doublings + adds).
  bool is_in_subgroup_slow() const;

  // -(x, y) = (x, -y); -O = O since -0 = 0.
  affine_t operator-() const { return affine_t{x, -y}; }

  bool operator==(const affine_t& o) const { return x == o.x && y == o.y; }
  bool operator!=(const affine_t& o) const { return !(*this == o); }
};

template <>
bool affine_t<g1_params>::is_in_subgroup() const;
template <>
bool affine_t<g2_params>::is_in_subgroup() const;
template <>
bool affine_t<g1_params>::is_in_subgroup_slow() const;
template <>
bool affine_t<g2_params>::is_in_subgroup_slow() const;

using g1_affine_t = affine_t<g1_params>;
using g2_affine_t = affine_t<g2_params>;

// The layout a device kernel relies on: two field elements, nothing else.
static_assert(sizeof(fp_t) == 48, "fp_t is 6 x 64-bit limbs");
static_assert(sizeof(g1_affine_t) == 96, "G1 affine = x || y, 48 bytes each");
static_assert(sizeof(g2_affine_t) == 192, "G2 affine = x.c0 || x.c1 || y.c0 || y.c1");

}  // namespace starzk
