// Device Fp2 = Fp[u]/(u^2 + 1) over the device Fp, for the G2 MSM, the G2
// fixed-base table and the G2 key checks. Same bytes as the host fp2_t
// {c0, c1} (96 bytes). The formulas are the host's
// (src/ff/fp2_formulas.hpp: Karatsuba product 3M + 5A, complex squaring
// 2M + 3A, inversion through the norm 1I + 2S + 2M, conjugation as the
// Frobenius), compiled for the device; what is the device's own is where
// the products are made:
//
// mul and sqr are each one out-of-line function with their Fp products in
// line (the formula over dev_fp_mul_inline), so a G2 formula makes ~10
// calls (one per Fp2 product) instead of ~28 (one per Fp product). On the
// H200 that made the G2 MSM 2.3x as fast (2^24 random: 940 -> 412 ms;
// docs/benchmarks.md). The operands go in and the result comes out by
// value: an earlier form that passed references (the result written
// through one) built a wrong G2 comb table in
// CudaFixedBase.DeviceTableEqualsHostTable while every MSM test passed; the
// by-value form passes them all. Everything in line (the level-1 kernel
// over dev_fp_fast_t) was measured too: no faster, 255 registers and spills.
#pragma once

#include "cuda/field.cuh"
#include "ff/fp2_formulas.hpp"

namespace starzk::gpu {

// The Fp product in line, for the Fp2 formulas inside the out-of-line
// mul and sqr below.
struct dev_fp_mul_inline {
  SZK_D dev_fp_t operator()(const dev_fp_t& a, const dev_fp_t& b) const { return dev_fp_t::mul_inline(a, b); }
};
// Fp inversion by binary Euclid (field.cuh): one thread's inversion.
struct dev_fp_inverse_binary {
  SZK_D dev_fp_t operator()(const dev_fp_t& a) const { return a.inverse_binary(); }
};

struct alignas(8) dev_fp2_t {
  dev_fp_t c0, c1;

  static SZK_D dev_fp2_t zero() { return {dev_fp_t::zero(), dev_fp_t::zero()}; }
  static SZK_D dev_fp2_t one() { return {dev_fp_t::one(), dev_fp_t::zero()}; }
  SZK_D bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  SZK_D bool operator==(const dev_fp2_t& b) const { return c0 == b.c0 && c1 == b.c1; }
  SZK_D bool operator!=(const dev_fp2_t& b) const { return !(*this == b); }
  SZK_D bool is_canonical() const { return c0.is_canonical() && c1.is_canonical(); }

  friend SZK_D dev_fp2_t operator+(const dev_fp2_t& a, const dev_fp2_t& b) { return ff::fp2_add(a, b); }
  friend SZK_D dev_fp2_t operator-(const dev_fp2_t& a, const dev_fp2_t& b) { return ff::fp2_sub(a, b); }
  SZK_D dev_fp2_t operator-() const { return ff::fp2_neg(*this); }
  SZK_D dev_fp2_t dbl() const { return ff::fp2_dbl(*this); }
  SZK_D dev_fp2_t conjugate() const { return ff::fp2_conjugate(*this); }
  friend SZK_D dev_fp2_t operator*(const dev_fp2_t& a, const dev_fp2_t& b) { return mul_outlined(a, b); }
  SZK_D dev_fp2_t sqr() const { return sqr_outlined(*this); }
  // The norm inverted by Fermat (dev_fp_t::inverse).
  SZK_D dev_fp2_t inverse() const { return ff::fp2_inverse(*this); }
  // The same with the norm inverted by binary Euclid: one thread's
  // inversion, as batch_inverse.cuh's leaves take it.
  SZK_D dev_fp2_t inverse_binary() const { return ff::fp2_inverse(*this, dev_fp_inverse_binary{}); }

  // a^e for e given as 12 32-bit limbs, left to right (one S per bit, one M
  // per set bit), as the host fp2_t::pow.
  SZK_D dev_fp2_t pow_limbs(const uint32_t* e) const { return ff::fp2_pow(*this, e, 12); }

  // The Karatsuba product and the complex squaring, each out of line with
  // its Fp products in line.
  static __device__ __noinline__ dev_fp2_t mul_outlined(dev_fp2_t a, dev_fp2_t b) {
    return ff::fp2_mul(a, b, dev_fp_mul_inline{});
  }
  static __device__ __noinline__ dev_fp2_t sqr_outlined(dev_fp2_t a) { return ff::fp2_sqr(a, dev_fp_mul_inline{}); }
};
static_assert(sizeof(dev_fp2_t) == 96, "device Fp2 must match the host fp2_t");

}  // namespace starzk::gpu
