// Extended Jacobian "XYZZ" points (X, Y, ZZ, ZZZ): the MSM bucket type.
//
// (X, Y, ZZ, ZZZ) with ZZ^3 = ZZZ^2 stands for the affine point
// (X / ZZ, Y / ZZZ); ZZ = ZZZ = 0 is the point at infinity. Keeping ZZ and
// ZZZ (Z^2 and Z^3 of a Jacobian point, without Z itself) gives a mixed
// addition of 8M + 2S (Jacobian: 7M + 4S) and a general one of 12M + 2S
// (Jacobian: 11M + 5S), with shorter dependency chains and fewer
// temporaries: the usual Pippenger bucket form (sppark's xyzz_t), on the CPU
// here and in the CUDA kernels.
//
// Formulas: EFD, hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html (Sutherland
// 2008), with a = 0. As with Jacobian, the formulas are incomplete (they
// return ZZ3 = 0 for P == Q), so equal and opposite inputs are dispatched
// before the general formula.
#pragma once

#include "ec/jacobian.hpp"

namespace starzk {

template <class P>
struct xyzz_t {
  using params_t = P;
  using field_t = typename P::field_t;
  using affine_type = affine_t<P>;
  using jacobian_type = jacobian_t<P>;

  field_t x, y, zz, zzz;

  static xyzz_t infinity() { return xyzz_t{field_t::one(), field_t::one(), field_t::zero(), field_t::zero()}; }
  static xyzz_t from_affine(const affine_type& a) {
    if (a.is_infinity()) return infinity();
    return xyzz_t{a.x, a.y, field_t::one(), field_t::one()};
  }
  // (X : Y : Z) -> (X, Y, Z^2, Z^3): 1M + 1S.
  static xyzz_t from_jacobian(const jacobian_type& j) {
    if (j.is_infinity()) return infinity();
    const field_t z2 = j.z.sqr();
    return xyzz_t{j.x, j.y, z2, z2 * j.z};
  }

  bool is_infinity() const { return zz.is_zero(); }

  xyzz_t neg() const { return xyzz_t{x, -y, zz, zzz}; }
  xyzz_t operator-() const { return neg(); }

  // 2P, EFD "dbl-2008-s-1", a = 0. Cost 6M + 3S (6M + 4S when a != 0).
  //   U = 2 Y1, V = U^2, W = U V, S = X1 V
  //   M = 3 X1^2            (+ a ZZ1^2, zero here)
  //   X3 = M^2 - 2 S
  //   Y3 = M (S - X3) - W Y1
  //   ZZ3 = V ZZ1, ZZZ3 = W ZZZ1
  // O doubles to O (ZZ1 = 0 gives ZZ3 = 0).
  xyzz_t dbl() const {
    const field_t u = y.dbl();
    const field_t v = u.sqr();
    const field_t w = u * v;
    const field_t s = x * v;
    const field_t x2 = x.sqr();
    const field_t m = x2.dbl() + x2;
    xyzz_t r;
    r.x = m.sqr() - s.dbl();
    r.y = m * (s - r.x) - w * y;
    r.zz = v * zz;
    r.zzz = w * zzz;
    return r;
  }

  // P + Q, EFD "add-2008-s". Cost 12M + 2S.
  //   U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1
  //   P = U2 - U1, R = S2 - S1
  //   PP = P^2, PPP = P PP, Q = U1 PP
  //   X3 = R^2 - PPP - 2 Q
  //   Y3 = R (Q - X3) - S1 PPP
  //   ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP
  // P = 0: same x, so double (R = 0) or cancel (R != 0).
  xyzz_t add(const xyzz_t& q) const {
    if (is_infinity()) return q;
    if (q.is_infinity()) return *this;
    const field_t u1 = x * q.zz;
    const field_t u2 = q.x * zz;
    const field_t s1 = y * q.zzz;
    const field_t s2 = q.y * zzz;
    const field_t p = u2 - u1;
    const field_t rr = s2 - s1;
    if (p.is_zero()) return rr.is_zero() ? dbl() : infinity();
    const field_t pp = p.sqr();
    const field_t ppp = p * pp;
    const field_t qq = u1 * pp;
    xyzz_t r;
    r.x = rr.sqr() - ppp - qq.dbl();
    r.y = rr * (qq - r.x) - s1 * ppp;
    r.zz = zz * q.zz * pp;
    r.zzz = zzz * q.zzz * ppp;
    return r;
  }

  // P + Q with Q affine (ZZ2 = ZZZ2 = 1), EFD "madd-2008-s". Cost 8M + 2S.
  //   U2 = X2 ZZ1, S2 = Y2 ZZZ1
  //   P = U2 - X1, R = S2 - Y1
  //   PP = P^2, PPP = P PP, Q = X1 PP
  //   X3 = R^2 - PPP - 2 Q
  //   Y3 = R (Q - X3) - Y1 PPP
  //   ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP
  // When P == Q (P = R = 0) the affine doubling EFD "mdbl-2008-s-1" is used:
  //   U = 2 Y2, V = U^2, W = U V, S = X2 V, M = 3 X2^2
  //   X3 = M^2 - 2 S, Y3 = M (S - X3) - W Y2, ZZ3 = V, ZZZ3 = W   (4M + 2S)
  xyzz_t add_mixed(const affine_type& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    const field_t u2 = q.x * zz;
    const field_t s2 = q.y * zzz;
    const field_t p = u2 - x;
    const field_t rr = s2 - y;
    if (p.is_zero()) {
      if (!rr.is_zero()) return infinity();
      const field_t u = q.y.dbl();
      const field_t v = u.sqr();
      const field_t w = u * v;
      const field_t s = q.x * v;
      const field_t x2 = q.x.sqr();
      const field_t m = x2.dbl() + x2;
      xyzz_t r;
      r.x = m.sqr() - s.dbl();
      r.y = m * (s - r.x) - w * q.y;
      r.zz = v;
      r.zzz = w;
      return r;
    }
    const field_t pp = p.sqr();
    const field_t ppp = p * pp;
    const field_t qq = x * pp;
    xyzz_t r;
    r.x = rr.sqr() - ppp - qq.dbl();
    r.y = rr * (qq - r.x) - y * ppp;
    r.zz = zz * pp;
    r.zzz = zzz * ppp;
    return r;
  }

  xyzz_t operator+(const xyzz_t& q) const { return add(q); }
  xyzz_t& operator+=(const xyzz_t& q) { return *this = add(q); }
  xyzz_t& operator+=(const affine_type& q) { return *this = add_mixed(q); }

  // To Jacobian without an inversion. Since ZZ = z^2 and ZZZ = z^3 for
  // z = ZZZ / ZZ, take the Jacobian Z = z ZZ = ZZZ; then Z^2 = ZZ^3 and
  // Z^3 = ZZZ^3, so X_J = (X / ZZ) ZZ^3 = X ZZ^2 and Y_J = (Y / ZZZ) ZZZ^3
  // = Y ZZZ^2. Cost 2M + 2S.
  jacobian_type to_jacobian() const {
    if (is_infinity()) return jacobian_type::infinity();
    return jacobian_type{x * zz.sqr(), y * zzz.sqr(), zzz};
  }

  // Many points to affine with one inversion: each to Jacobian (above, no
  // inversion), then jacobian_t::batch_to_affine. Infinities come out as
  // x = y = 0; spans of different sizes are an error.
  static void batch_to_affine(std::span<const xyzz_t> in, std::span<affine_type> out) {
    if (in.size() != out.size()) throw std::runtime_error("ec: batch_to_affine: input and output spans differ in size");
    std::vector<jacobian_type> jac(in.size());
    for (size_t i = 0; i < in.size(); ++i) jac[i] = in[i].to_jacobian();
    jacobian_type::batch_to_affine(jac, out);
  }

  // (X / ZZ, Y / ZZZ) with one inversion: t = (ZZ ZZZ)^-1, then
  // ZZ^-1 = t ZZZ and ZZZ^-1 = t ZZ. Cost 1I + 5M.
  affine_type to_affine() const {
    if (is_infinity()) return affine_type::infinity();
    const field_t t = (zz * zzz).inverse();
    return affine_type{x * (t * zzz), y * (t * zz)};
  }

  // Equality of the represented points: X1 ZZ2 == X2 ZZ1, Y1 ZZZ2 == Y2 ZZZ1.
  bool operator==(const xyzz_t& q) const {
    if (is_infinity() || q.is_infinity()) return is_infinity() && q.is_infinity();
    return x * q.zz == q.x * zz && y * q.zzz == q.y * zzz;
  }
  bool operator!=(const xyzz_t& q) const { return !(*this == q); }
};

using g1_xyzz_t = xyzz_t<g1_params>;
using g2_xyzz_t = xyzz_t<g2_params>;

}  // namespace starzk
