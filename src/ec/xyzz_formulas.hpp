// The XYZZ point formulas, written once for the host (src/ec/xyzz.hpp) and
// the device (cuda/point.cuh).
//
// (X, Y, ZZ, ZZZ) with ZZ^3 = ZZZ^2 stands for the affine point
// (X / ZZ, Y / ZZZ); ZZ = 0 is the point at infinity. Formulas from the
// EFD, hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html (Sutherland 2008),
// with a = 0:
//   dbl-2008-s-1                               6M + 3S
//   add-2008-s   (two XYZZ points)            12M + 2S
//   madd-2008-s  (an affine point)             8M + 2S
//   mdbl-2008-s-1 (double an affine point)     4M + 2S
// They are incomplete (P == Q gives ZZ3 = 0), so the equal and opposite
// cases are dispatched before the general formula.
//
// Templates over the point type: P has members x, y, zz, zzz of one field
// type and static infinity() / from_affine(a); an affine A has x, y and
// is_infinity(). The field needs +, -, *, unary -, dbl(), sqr(), is_zero().
// Under nvcc they are __host__ __device__, so the host types (fp_t, fp2_t)
// and the device types (dev_fp_t, dev_fp2_t: 32-bit limbs, PTX products)
// run the same steps; a translation unit compiles only the side that calls
// them.
#pragma once

#if defined(__CUDACC__)
#define STARZK_EC_FN __host__ __device__ __forceinline__
#define STARZK_EC_EXEC_CHECK _Pragma("nv_exec_check_disable")
#else
// Always in line: a member such as xyzz_t::add_mixed then holds the whole
// formula, as if written there (the compiler's own choice of what to put in
// line in the MSM loops stays what it was).
#define STARZK_EC_FN inline __attribute__((always_inline))
#define STARZK_EC_EXEC_CHECK
#endif

namespace starzk::ec {

// 2P, dbl-2008-s-1 (a = 0):
//   U = 2 Y1, V = U^2, W = U V, S = X1 V, M = 3 X1^2
//   X3 = M^2 - 2 S, Y3 = M (S - X3) - W Y1, ZZ3 = V ZZ1, ZZZ3 = W ZZZ1
// O doubles to O (ZZ1 = 0 gives ZZ3 = 0).
STARZK_EC_EXEC_CHECK
template <class P>
STARZK_EC_FN P xyzz_dbl(const P& p) {
  const auto u = p.y.dbl();
  const auto v = u.sqr();
  const auto w = u * v;
  const auto s = p.x * v;
  const auto x2 = p.x.sqr();
  const auto m = x2.dbl() + x2;
  P r;
  r.x = m.sqr() - s.dbl();
  r.y = m * (s - r.x) - w * p.y;
  r.zz = v * p.zz;
  r.zzz = w * p.zzz;
  return r;
}

// P + Q, add-2008-s:
//   U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1
//   P = U2 - U1, R = S2 - S1, PP = P^2, PPP = P PP, Q = U1 PP
//   X3 = R^2 - PPP - 2 Q, Y3 = R (Q - X3) - S1 PPP
//   ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP
// P = 0: the same x, so double (R = 0) or cancel (R != 0).
STARZK_EC_EXEC_CHECK
template <class P>
STARZK_EC_FN P xyzz_add(const P& p, const P& q) {
  if (p.zz.is_zero()) return q;
  if (q.zz.is_zero()) return p;
  const auto u1 = p.x * q.zz;
  const auto u2 = q.x * p.zz;
  const auto s1 = p.y * q.zzz;
  const auto s2 = q.y * p.zzz;
  const auto pd = u2 - u1;
  const auto rr = s2 - s1;
  if (pd.is_zero()) return rr.is_zero() ? xyzz_dbl(p) : P::infinity();
  const auto pp = pd.sqr();
  const auto ppp = pd * pp;
  const auto qq = u1 * pp;
  P r;
  r.x = rr.sqr() - ppp - qq.dbl();
  r.y = rr * (qq - r.x) - s1 * ppp;
  r.zz = p.zz * q.zz * pp;
  r.zzz = p.zzz * q.zzz * ppp;
  return r;
}

// P + Q with Q affine (ZZ2 = ZZZ2 = 1), madd-2008-s:
//   U2 = X2 ZZ1, S2 = Y2 ZZZ1, P = U2 - X1, R = S2 - Y1
//   PP = P^2, PPP = P PP, Q = X1 PP
//   X3 = R^2 - PPP - 2 Q, Y3 = R (Q - X3) - Y1 PPP
//   ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP
// When P == Q (P = R = 0), mdbl-2008-s-1 on Q:
//   U = 2 Y2, V = U^2, W = U V, S = X2 V, M = 3 X2^2
//   X3 = M^2 - 2 S, Y3 = M (S - X3) - W Y2, ZZ3 = V, ZZZ3 = W
STARZK_EC_EXEC_CHECK
template <class P, class A>
STARZK_EC_FN P xyzz_add_mixed(const P& p, const A& q) {
  if (q.is_infinity()) return p;
  if (p.zz.is_zero()) return P::from_affine(q);
  const auto u2 = q.x * p.zz;
  const auto s2 = q.y * p.zzz;
  const auto pd = u2 - p.x;
  const auto rr = s2 - p.y;
  P r;
  if (pd.is_zero()) {
    if (!rr.is_zero()) return P::infinity();
    const auto u = q.y.dbl();
    const auto v = u.sqr();
    const auto w = u * v;
    const auto s = q.x * v;
    const auto x2 = q.x.sqr();
    const auto m = x2.dbl() + x2;
    r.x = m.sqr() - s.dbl();
    r.y = m * (s - r.x) - w * q.y;
    r.zz = v;
    r.zzz = w;
    return r;
  }
  const auto pp = pd.sqr();
  const auto ppp = pd * pp;
  const auto qq = p.x * pp;
  r.x = rr.sqr() - ppp - qq.dbl();
  r.y = rr * (qq - r.x) - p.y * ppp;
  r.zz = p.zz * pp;
  r.zzz = p.zzz * ppp;
  return r;
}

}  // namespace starzk::ec
