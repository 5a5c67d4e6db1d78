// Jacobian points (X : Y : Z) on G1 or G2, the working form of the CPU code.
//
// (X : Y : Z) stands for the affine point (X / Z^2, Y / Z^3); Z = 0 is the
// point at infinity (canonically (1 : 1 : 0)). Jacobian coordinates make
// doubling and addition inversion-free; one inversion at the end (or one per
// batch, batch_to_affine) brings a point back to affine.
//
// Formulas are those of the Explicit-Formulas Database (EFD,
// hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html) for a = 0, written
// once for both fields (and for any field type with +, -, *, sqr and dbl:
// ec/subgroup_x8.cpp runs them on eight points per AVX-512 register). Costs
// count field multiplications (M) and squarings (S) in the coordinate field;
// additions, subtractions and doublings of field elements are not counted.
// The EFD addition formulas are incomplete: they fail for P == ±Q and for
// infinities, and then give Z3 = 0. The *_unchecked members are the
// formulas alone, without a branch; add and add_mixed test O first and turn
// a Z3 = 0 into the right answer.
//
// Not constant-time: branches depend on the points. Nothing in the prover
// needs a constant-time curve layer (inputs are public or blinded).
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

#include "ec/affine.hpp"

namespace starzk {

template <class P>
struct jacobian_t {
  using params_t = P;
  using field_t = typename P::field_t;
  using affine_type = affine_t<P>;

  field_t x, y, z;

  static jacobian_t infinity() { return jacobian_t{field_t::one(), field_t::one(), field_t::zero()}; }
  static jacobian_t generator() { return from_affine(affine_type::generator()); }

  static jacobian_t from_affine(const affine_type& a) {
    if (a.is_infinity()) return infinity();
    return jacobian_t{a.x, a.y, field_t::one()};
  }

  bool is_infinity() const { return z.is_zero(); }

  // -(X : Y : Z) = (X : -Y : Z).
  jacobian_t neg() const { return jacobian_t{x, -y, z}; }
  jacobian_t operator-() const { return neg(); }

  // 2P, EFD "dbl-2009-l" (Lange 2009), a = 0. Cost 2M + 5S.
  //   A = X1^2, B = Y1^2, C = B^2
  //   D = 2 ((X1 + B)^2 - A - C)          (= 4 X1 Y1^2)
  //   E = 3 A, F = E^2
  //   X3 = F - 2 D
  //   Y3 = E (D - X3) - 8 C
  //   Z3 = 2 Y1 Z1
  // Also right for O (Z1 = 0 gives Z3 = 0) and for a point of order 2
  // (Y1 = 0 gives Z3 = 0); neither curve has one, but nothing breaks.
  jacobian_t dbl() const {
    const field_t a = x.sqr();
    const field_t b = y.sqr();
    const field_t c = b.sqr();
    const field_t d = ((x + b).sqr() - a - c).dbl();
    const field_t e = a.dbl() + a;
    const field_t f = e.sqr();
    jacobian_t r;
    r.x = f - d.dbl();
    r.y = e * (d - r.x) - c.dbl().dbl().dbl();
    r.z = (y * z).dbl();
    return r;
  }

  // [2^n] P: n doublings in a row (the runs of a fixed addition chain).
  jacobian_t dbl_n(unsigned n) const {
    jacobian_t r = *this;
    for (unsigned i = 0; i < n; ++i) r = r.dbl();
    return r;
  }

  // P + Q, EFD "add-2007-bl" (Bernstein-Lange 2007). Cost 11M + 5S.
  //   Z1Z1 = Z1^2, Z2Z2 = Z2^2
  //   U1 = X1 Z2Z2, U2 = X2 Z1Z1
  //   S1 = Y1 Z2 Z2Z2, S2 = Y2 Z1 Z1Z1
  //   H = U2 - U1, I = (2H)^2, J = H I
  //   r = 2 (S2 - S1), V = U1 I
  //   X3 = r^2 - J - 2V
  //   Y3 = r (V - X3) - 2 S1 J
  //   Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H      (= 2 Z1 Z2 H)
  // The formula alone, with no branch, so that it runs on any field type
  // (ec/subgroup_x8.cpp runs it on eight points at once). Right whenever
  // neither point is O and P != ±Q. Otherwise Z1, Z2 or H (equal x: P = ±Q)
  // is 0, and so is Z3 = 2 Z1 Z2 H: a wrong result always comes out as a
  // point with Z3 = 0, never as a wrong finite point.
  [[gnu::always_inline]] jacobian_t add_unchecked(const jacobian_t& q) const {
    const field_t z1z1 = z.sqr();
    const field_t z2z2 = q.z.sqr();
    const field_t u1 = x * z2z2;
    const field_t u2 = q.x * z1z1;
    const field_t s1 = y * q.z * z2z2;
    const field_t s2 = q.y * z * z1z1;
    const field_t h = u2 - u1;
    const field_t rr = (s2 - s1).dbl();
    const field_t i = h.dbl().sqr();
    const field_t j = h * i;
    const field_t v = u1 * i;
    jacobian_t r;
    r.x = rr.sqr() - j - v.dbl();
    r.y = rr * (v - r.x) - (s1 * j).dbl();
    r.z = ((z + q.z).sqr() - z1z1 - z2z2) * h;
    return r;
  }

  // P + Q for all inputs: O is handled first, and Z3 = 0 from two finite
  // points means H = 0, equal x: the same point (double it) or opposite
  // points (the sum is O).
  jacobian_t add(const jacobian_t& q) const {
    if (is_infinity()) return q;
    if (q.is_infinity()) return *this;
    const jacobian_t r = add_unchecked(q);
    if (r.is_infinity()) [[unlikely]]
      return sum_of_same_x(q);
    return r;
  }

  // P + Q with Q affine (Z2 = 1), EFD "madd-2007-bl". Cost 7M + 4S.
  //   Z1Z1 = Z1^2, U2 = X2 Z1Z1, S2 = Y2 Z1 Z1Z1
  //   H = U2 - X1, HH = H^2, I = 4 HH, J = H I
  //   r = 2 (S2 - Y1), V = X1 I
  //   X3 = r^2 - J - 2V
  //   Y3 = r (V - X3) - 2 Y1 J
  //   Z3 = (Z1 + H)^2 - Z1Z1 - HH              (= 2 Z1 H)
  // The formula alone, as add_unchecked: right when P is not O, Q is not O
  // and P != ±Q; otherwise Z3 = 2 Z1 H = 0.
  [[gnu::always_inline]] jacobian_t add_mixed_unchecked(const affine_type& q) const {
    const field_t z1z1 = z.sqr();
    const field_t u2 = q.x * z1z1;
    const field_t s2 = q.y * z * z1z1;
    const field_t h = u2 - x;
    const field_t rr = (s2 - y).dbl();
    const field_t hh = h.sqr();
    const field_t i = hh.dbl().dbl();
    const field_t j = h * i;
    const field_t v = x * i;
    jacobian_t r;
    r.x = rr.sqr() - j - v.dbl();
    r.y = rr * (v - r.x) - (y * j).dbl();
    r.z = (z + h).sqr() - z1z1 - hh;
    return r;
  }

  // P + Q (Q affine) for all inputs, as add.
  jacobian_t add_mixed(const affine_type& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    const jacobian_t r = add_mixed_unchecked(q);
    if (r.is_infinity()) [[unlikely]]
      return sum_of_same_x(from_affine(q));
    return r;
  }

  // P + Q for finite points with the same x: 2P when P = Q, else O. Rare
  // (small-order points, or a sum that meets itself): out of line, so the
  // additions stay small enough for the compiler to inline their field
  // operations.
  [[gnu::noinline, gnu::cold]] jacobian_t sum_of_same_x(const jacobian_t& q) const {
    return *this == q ? dbl() : infinity();
  }

  jacobian_t operator+(const jacobian_t& q) const { return add(q); }
  jacobian_t operator-(const jacobian_t& q) const { return add(q.neg()); }
  jacobian_t& operator+=(const jacobian_t& q) { return *this = add(q); }
  jacobian_t& operator+=(const affine_type& q) { return *this = add_mixed(q); }

  // (X / Z^2, Y / Z^3): 1 inversion + 3M + 1S.
  affine_type to_affine() const {
    if (is_infinity()) return affine_type::infinity();
    const field_t zi = z.inverse();
    const field_t zi2 = zi.sqr();
    return affine_type{x * zi2, y * zi2 * zi};
  }

  // Many points to affine with one inversion (Montgomery's trick, "Speeding
  // the Pollard and elliptic curve methods", 1987): with prefix products
  // c_i = z_0 ... z_i, one inversion of c_{n-1} yields every z_i^-1 walking
  // back (z_i^-1 = c_{i-1} c_i^-1, c_{i-1}^-1 = z_i c_i^-1). Cost per point
  // 3M for the trick + 3M + 1S for the coordinates. Infinities are skipped
  // (their z = 0 would poison the product) and come out as x = y = 0.
  static void batch_to_affine(std::span<const jacobian_t> in, std::span<affine_type> out) {
    if (in.size() != out.size()) throw std::runtime_error("ec: batch_to_affine: input and output spans differ in size");
    std::vector<field_t> prefix(in.size());
    field_t acc = field_t::one();
    for (size_t i = 0; i < in.size(); ++i) {
      prefix[i] = acc;  // product of the non-zero z before i
      if (!in[i].is_infinity()) acc = acc * in[i].z;
    }
    field_t inv = acc.inverse();  // inverse of the product of all non-zero z
    for (size_t k = in.size(); k-- > 0;) {
      const jacobian_t& p = in[k];
      if (p.is_infinity()) {
        out[k] = affine_type::infinity();
        continue;
      }
      const field_t zi = inv * prefix[k];  // z_k^-1
      inv = inv * p.z;                     // drop z_k from the running inverse
      const field_t zi2 = zi.sqr();
      out[k] = affine_type{p.x * zi2, p.y * zi2 * zi};
    }
  }

  // Projective equality: X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3
  // (4M + 2S); all infinities are equal.
  bool operator==(const jacobian_t& q) const {
    if (is_infinity() || q.is_infinity()) return is_infinity() && q.is_infinity();
    const field_t z1z1 = z.sqr();
    const field_t z2z2 = q.z.sqr();
    if (!(x * z2z2 == q.x * z1z1)) return false;
    return y * q.z * z2z2 == q.y * z * z1z1;
  }
  bool operator!=(const jacobian_t& q) const { return !(*this == q); }
  bool operator==(const affine_type& q) const { return *this == from_affine(q); }
};

using g1_jacobian_t = jacobian_t<g1_params>;
using g2_jacobian_t = jacobian_t<g2_params>;

}  // namespace starzk
