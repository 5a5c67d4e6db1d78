// Device Fp2 = Fp[u]/(u^2 + 1) over the device Fp (for the G2 MSM to come).
// Same bytes as the host fp2_t {c0, c1} (96 bytes). Formulas as src/ff/fp2.hpp:
//   mul: Karatsuba, t0 = a0 b0, t1 = a1 b1,
//        c0 = t0 - t1, c1 = (a0 + a1)(b0 + b1) - t0 - t1      3M + 5A
//   sqr: c0 = (a0 + a1)(a0 - a1), c1 = 2 a0 a1                 2M + 3A
//   inverse: (a0 - a1 u) / (a0^2 + a1^2)                        1I + 2S + 2M
#pragma once

#include "cuda/field.cuh"

namespace starzk::gpu {

struct alignas(8) dev_fp2_t {
  dev_fp_t c0, c1;

  static SZK_D dev_fp2_t zero() { return {dev_fp_t::zero(), dev_fp_t::zero()}; }
  static SZK_D dev_fp2_t one() { return {dev_fp_t::one(), dev_fp_t::zero()}; }
  SZK_D bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  SZK_D bool operator==(const dev_fp2_t& b) const { return c0 == b.c0 && c1 == b.c1; }

  friend SZK_D dev_fp2_t operator+(const dev_fp2_t& a, const dev_fp2_t& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend SZK_D dev_fp2_t operator-(const dev_fp2_t& a, const dev_fp2_t& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  SZK_D dev_fp2_t operator-() const { return {-c0, -c1}; }
  SZK_D dev_fp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }
  friend SZK_D dev_fp2_t operator*(const dev_fp2_t& a, const dev_fp2_t& b) {
    const dev_fp_t t0 = a.c0 * b.c0;
    const dev_fp_t t1 = a.c1 * b.c1;
    const dev_fp_t s = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {t0 - t1, s - t0 - t1};
  }
  SZK_D dev_fp2_t sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  SZK_D dev_fp2_t inverse() const {
    const dev_fp_t ni = (c0.sqr() + c1.sqr()).inverse();
    return {c0 * ni, -(c1 * ni)};
  }
};
static_assert(sizeof(dev_fp2_t) == 96, "device Fp2 must match the host fp2_t");

}  // namespace starzk::gpu
