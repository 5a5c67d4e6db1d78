// Device G1/G2 points for the MSM: affine (storage) and XYZZ (buckets),
// templated over the coordinate field, byte-identical to the host affine_t /
// xyzz_t of src/ec (affine: x || y with O = (0, 0); XYZZ: x || y || zz || zzz
// with O <=> zz = 0). The point formulas are the host's
// (src/ec/xyzz_formulas.hpp: dbl-2008-s-1, add-2008-s, madd-2008-s,
// mdbl-2008-s-1 from the EFD, a = 0), compiled for the device; what is the
// device's own is the four-lane schedule of dbl and add below, which makes
// the same products in another order.
#pragma once

#include "cuda/fp2.cuh"
#include "ec/xyzz_formulas.hpp"

namespace starzk::gpu {

template <class F>
struct dev_affine_t {
  F x, y;
  SZK_D bool is_infinity() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct dev_xyzz_t {
  F x, y, zz, zzz;

  static SZK_D dev_xyzz_t infinity() { return {F::one(), F::one(), F::zero(), F::zero()}; }
  SZK_D bool is_infinity() const { return zz.is_zero(); }
  static SZK_D dev_xyzz_t from_affine(const dev_affine_t<F>& a) {
    if (a.is_infinity()) return infinity();
    return {a.x, a.y, F::one(), F::one()};
  }
  SZK_D dev_xyzz_t neg() const { return {x, -y, zz, zzz}; }

  // 2P, P + Q and P + Q with Q affine: the host's formulas
  // (src/ec/xyzz_formulas.hpp), compiled for the device.
  SZK_D dev_xyzz_t dbl() const { return ec::xyzz_dbl(*this); }
  SZK_D dev_xyzz_t add_mixed(const dev_affine_t<F>& q) const { return ec::xyzz_add_mixed(*this, q); }
  SZK_D dev_xyzz_t add(const dev_xyzz_t& q) const { return ec::xyzz_add(*this, q); }

  // [k] P by left-to-right double-and-add: one dbl per bit below the top set
  // bit, one add per set bit (add dispatches the equal and opposite cases,
  // so any P of the curve, of any order, gives the right multiple).
  SZK_D dev_xyzz_t mul_u64(uint64_t k) const {
    dev_xyzz_t acc = infinity();
    for (int b = 63; b >= 0; --b) {
      if (!acc.is_infinity()) acc = acc.dbl();
      if ((k >> b) & 1) acc = acc.add(*this);
    }
    return acc;
  }
  SZK_D dev_xyzz_t mul_u32(uint32_t k) const { return mul_u64(k); }
};

// ---- dbl-2008-s-1 and add-2008-s across four lanes of a warp ----
// For a chain of point operations in one thread (Horner over the windows,
// msm.cu), where each step waits for its products one after the other. The
// products of a step that do not depend on each other run in lanes 0-3 at
// once: every lane picks its operands, makes one product (the same code in
// all four, so no divergence), and the results are exchanged with
// shuffles. dbl waits for 3 products instead of 9, add for 4 instead of
// 14. Montgomery products are fully reduced, so the result is bit for bit
// that of dbl() / add(); all four lanes return it. The four lanes are an
// aligned group of a warp (lanes 4g..4g+3, `lane` = 0-3 within it); a warp
// may run several groups, and all four lanes of a group must call.
template <class F>
SZK_D F lanes4_from(const F& v, int src) {
  static_assert(sizeof(F) % 4 == 0);
  F r;
  const auto* a = reinterpret_cast<const uint32_t*>(&v);
  auto* b = reinterpret_cast<uint32_t*>(&r);
  const unsigned group = 0xfu << (threadIdx.x & 28u);  // this lane's group of four
#pragma unroll
  for (unsigned i = 0; i < sizeof(F) / 4; ++i) b[i] = __shfl_sync(group, a[i], src, 4);
  return r;
}

template <class F>
SZK_D dev_xyzz_t<F> dbl_lanes4(const dev_xyzz_t<F>& p, unsigned lane) {
  const F u = p.y.dbl();
  // 1: V = U^2 (lanes 0, 2, 3), XX = X^2 (lane 1).
  const F a1 = lane == 1 ? p.x : u;
  const F r1 = a1 * a1;
  const F v = lanes4_from(r1, 0), xx = lanes4_from(r1, 1);
  const F m = xx.dbl() + xx;
  // 2: W = U V, S = X V, ZZ3 = V ZZ, M^2.
  const F a2 = lane == 0 ? u : lane == 1 ? p.x : lane == 2 ? p.zz : m;
  const F b2 = lane == 3 ? m : v;
  const F r2 = a2 * b2;
  const F w = lanes4_from(r2, 0), s = lanes4_from(r2, 1);
  dev_xyzz_t<F> r;
  r.zz = lanes4_from(r2, 2);
  r.x = lanes4_from(r2, 3) - s.dbl();
  // 3: ZZZ3 = W ZZZ, W Y, M (S - X3).
  const F a3 = lane == 2 ? m : w;
  const F b3 = lane == 0 ? p.zzz : lane == 1 ? p.y : s - r.x;
  const F r3 = a3 * b3;
  r.zzz = lanes4_from(r3, 0);
  r.y = lanes4_from(r3, 2) - lanes4_from(r3, 1);
  return r;
}

template <class F>
SZK_D dev_xyzz_t<F> add_lanes4(const dev_xyzz_t<F>& p, const dev_xyzz_t<F>& q, unsigned lane) {
  if (p.is_infinity()) return q;
  if (q.is_infinity()) return p;
  // 1: U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1.
  const F a1 = lane == 0 ? p.x : lane == 1 ? q.x : lane == 2 ? p.y : q.y;
  const F b1 = lane == 0 ? q.zz : lane == 1 ? p.zz : lane == 2 ? q.zzz : p.zzz;
  const F r1 = a1 * b1;
  const F u1 = lanes4_from(r1, 0), s1 = lanes4_from(r1, 2);
  const F pd = lanes4_from(r1, 1) - u1;
  const F rr = lanes4_from(r1, 3) - s1;
  if (pd.is_zero()) return rr.is_zero() ? dbl_lanes4(p, lane) : dev_xyzz_t<F>::infinity();
  // 2: PP = P^2, ZZ1 ZZ2, ZZZ1 ZZZ2, R^2.
  const F a2 = lane == 0 ? pd : lane == 1 ? p.zz : lane == 2 ? p.zzz : rr;
  const F b2 = lane == 0 ? pd : lane == 1 ? q.zz : lane == 2 ? q.zzz : rr;
  const F r2 = a2 * b2;
  const F pp = lanes4_from(r2, 0), zz12 = lanes4_from(r2, 1), zzz12 = lanes4_from(r2, 2);
  const F rr2 = lanes4_from(r2, 3);
  // 3: PPP = P PP, Q = U1 PP, ZZ3 = ZZ1 ZZ2 PP.
  const F a3 = lane == 0 ? pd : lane == 1 ? u1 : zz12;
  const F r3 = a3 * pp;
  const F ppp = lanes4_from(r3, 0), qq = lanes4_from(r3, 1);
  dev_xyzz_t<F> r;
  r.zz = lanes4_from(r3, 2);
  r.x = rr2 - ppp - qq.dbl();
  // 4: R (Q - X3), S1 PPP, ZZZ3 = ZZZ1 ZZZ2 PPP.
  const F a4 = lane == 0 ? rr : lane == 1 ? s1 : zzz12;
  const F b4 = lane == 0 ? qq - r.x : ppp;
  const F r4 = a4 * b4;
  r.y = lanes4_from(r4, 0) - lanes4_from(r4, 1);
  r.zzz = lanes4_from(r4, 2);
  return r;
}

using dev_g1_affine_t = dev_affine_t<dev_fp_t>;
using dev_g1_xyzz_t = dev_xyzz_t<dev_fp_t>;
using dev_g2_affine_t = dev_affine_t<dev_fp2_t>;
using dev_g2_xyzz_t = dev_xyzz_t<dev_fp2_t>;
static_assert(sizeof(dev_g1_affine_t) == 96 && sizeof(dev_g1_xyzz_t) == 192);
static_assert(sizeof(dev_g2_affine_t) == 192 && sizeof(dev_g2_xyzz_t) == 384);

}  // namespace starzk::gpu
