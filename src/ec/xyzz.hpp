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
// 2008), with a = 0, written once for host and device in
// ec/xyzz_formulas.hpp.
#pragma once

#include "ec/jacobian.hpp"
#include "ec/xyzz_formulas.hpp"

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

  // 2P (6M + 3S), P + Q (12M + 2S) and P + Q with Q affine (8M + 2S; 4M +
  // 2S when P == Q): the formulas and their derivations are in
  // ec/xyzz_formulas.hpp, shared with the device's points (cuda/point.cuh).
  xyzz_t dbl() const { return ec::xyzz_dbl(*this); }
  xyzz_t add(const xyzz_t& q) const { return ec::xyzz_add(*this, q); }
  xyzz_t add_mixed(const affine_type& q) const { return ec::xyzz_add_mixed(*this, q); }

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
