// Device Fp2 = Fp[u]/(u^2 + 1) over the device Fp, for the G2 MSM and the G2
// fixed-base table. Same bytes as the host fp2_t {c0, c1} (96 bytes).
// Formulas as src/ff/fp2.hpp:
//   mul: Karatsuba, t0 = a0 b0, t1 = a1 b1,
//        c0 = t0 - t1, c1 = (a0 + a1)(b0 + b1) - t0 - t1      3M + 5A
//   sqr: c0 = (a0 + a1)(a0 - a1), c1 = 2 a0 a1                 2M + 3A
//   inverse: (a0 - a1 u) / (a0^2 + a1^2)                        1I + 2S + 2M
//   conjugate (the Frobenius a^p): a0 - a1 u; pow as fp2_t::pow.
//
// mul and sqr are each one out-of-line function with their Fp products in
// line, so a G2 formula makes ~10 calls (one per Fp2 product) instead of ~28
// (one per Fp product). On the H200 that made the G2 MSM 2.3x as fast (2^24
// random: 940 -> 412 ms; docs/benchmarks.md). The operands go in and the
// result comes out by value: an earlier form that passed references (the
// result written through one) built a wrong G2 comb table in
// CudaFixedBase.DeviceTableEqualsHostTable while every MSM test passed; the
// by-value form passes them all. Everything in line (the level-1 kernel
// over dev_fp_fast_t) was measured too: no faster, 255 registers and spills.
#pragma once

#include "cuda/field.cuh"

namespace starzk::gpu {

struct alignas(8) dev_fp2_t {
  dev_fp_t c0, c1;

  static SZK_D dev_fp2_t zero() { return {dev_fp_t::zero(), dev_fp_t::zero()}; }
  static SZK_D dev_fp2_t one() { return {dev_fp_t::one(), dev_fp_t::zero()}; }
  SZK_D bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  SZK_D bool operator==(const dev_fp2_t& b) const { return c0 == b.c0 && c1 == b.c1; }
  SZK_D bool operator!=(const dev_fp2_t& b) const { return !(*this == b); }
  SZK_D bool is_canonical() const { return c0.is_canonical() && c1.is_canonical(); }

  friend SZK_D dev_fp2_t operator+(const dev_fp2_t& a, const dev_fp2_t& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend SZK_D dev_fp2_t operator-(const dev_fp2_t& a, const dev_fp2_t& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  SZK_D dev_fp2_t operator-() const { return {-c0, -c1}; }
  SZK_D dev_fp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }
  SZK_D dev_fp2_t conjugate() const { return {c0, -c1}; }
  friend SZK_D dev_fp2_t operator*(const dev_fp2_t& a, const dev_fp2_t& b) { return mul_outlined(a, b); }
  SZK_D dev_fp2_t sqr() const { return sqr_outlined(*this); }
  SZK_D dev_fp2_t inverse() const {
    const dev_fp_t ni = (c0.sqr() + c1.sqr()).inverse();
    return {c0 * ni, -(c1 * ni)};
  }
  // The same with the norm inverted by binary Euclid (field.cuh): one
  // thread's inversion, as batch_inverse.cuh's leaves take it.
  SZK_D dev_fp2_t inverse_binary() const {
    const dev_fp_t ni = (c0.sqr() + c1.sqr()).inverse_binary();
    return {c0 * ni, -(c1 * ni)};
  }

  // a^e for e given as 12 32-bit limbs, left to right (one S per bit, one M
  // per set bit), as the host fp2_t::pow.
  SZK_D dev_fp2_t pow_limbs(const uint32_t* e) const {
    dev_fp2_t r = one();
    for (int i = 11; i >= 0; --i) {
      const uint32_t w = e[i];
      for (int b = 31; b >= 0; --b) {
        r = r.sqr();
        if ((w >> b) & 1) r = r * *this;
      }
    }
    return r;
  }

  static __device__ __noinline__ dev_fp2_t mul_outlined(dev_fp2_t a, dev_fp2_t b) {
    const dev_fp_t t0 = dev_fp_t::mul_inline(a.c0, b.c0);
    const dev_fp_t t1 = dev_fp_t::mul_inline(a.c1, b.c1);
    const dev_fp_t s = dev_fp_t::mul_inline(a.c0 + a.c1, b.c0 + b.c1);
    return {t0 - t1, s - t0 - t1};
  }
  static __device__ __noinline__ dev_fp2_t sqr_outlined(dev_fp2_t a) {
    return {dev_fp_t::mul_inline(a.c0 + a.c1, a.c0 - a.c1), dev_fp_t::mul_inline(a.c0, a.c1).dbl()};
  }
};
static_assert(sizeof(dev_fp2_t) == 96, "device Fp2 must match the host fp2_t");

}  // namespace starzk::gpu
