// The rows of the device Montgomery product (field.cuh, dev_mont_t::step):
// one word bi of b times the even or odd words of a (or of the modulus),
// each row one unbroken PTX carry chain of mul/mad lo-hi pairs. A pair
// a[j]·bi fills words j and j+1 of its accumulator, and the pairs of one
// parity never overlap, so no row needs a carry word of its own; the
// carry out of a row stays in the condition code for the next statement.
// Every statement is asm volatile, so the compiler keeps the chain in
// order and inserts nothing between the statements that would clobber CC.
// N: the limb count (Fp 12, Fr 8), even.
#pragma once

#include <cstdint>

#include "cuda/common.cuh"

namespace starzk::gpu {

template <int N>
struct mont_rows_t {
  static_assert(N % 2 == 0, "the even/odd split needs an even limb count");

  // acc[j], acc[j+1] = a[j]·bi for even j: a fresh row, no carries needed.
  static SZK_D void mul_row(uint32_t* acc, const uint32_t* a, uint32_t bi) {
#pragma unroll
    for (int j = 0; j < N; j += 2)
      asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
                   : "=r"(acc[j]), "=r"(acc[j + 1])
                   : "r"(a[j]), "r"(bi));
  }
  // acc += a_even·bi as one chain started fresh; the carry out stays in CC.
  static SZK_D void mad_row(uint32_t* acc, const uint32_t* a, uint32_t bi) {
    asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                 : "+r"(acc[0]), "+r"(acc[1])
                 : "r"(a[0]), "r"(bi));
#pragma unroll
    for (int j = 2; j < N; j += 2)
      asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                   : "+r"(acc[j]), "+r"(acc[j + 1])
                   : "r"(a[j]), "r"(bi));
  }
  // odd = (odd >> 64) + a_odd·bi + CC: the accumulator whose word k weighed
  // 2^(32(k-1)) moves down two words while the new row is added; the carry
  // in (from even[0] += odd[1]) enters at the bottom.
  static SZK_D void mad_row_shift(uint32_t* odd, const uint32_t* a, uint32_t bi) {
#pragma unroll
    for (int j = 0; j < N - 2; j += 2)
      asm volatile("madc.lo.cc.u32 %0, %2, %3, %4; madc.hi.cc.u32 %1, %2, %3, %5;"
                   : "=r"(odd[j]), "=r"(odd[j + 1])
                   : "r"(a[j]), "r"(bi), "r"(odd[j + 2]), "r"(odd[j + 3]));
    asm volatile("madc.lo.cc.u32 %0, %2, %3, 0; madc.hi.u32 %1, %2, %3, 0;"
                 : "=r"(odd[N - 2]), "=r"(odd[N - 1])
                 : "r"(a[N - 2]), "r"(bi));
  }
  // mad_row over m with its first pair given as words (lo0, hi0) = m_0·q:
  // two adds instead of two multiply-adds; the rest as mad_row.
  static SZK_D void mad_row_head(uint32_t* acc, const uint32_t* m, uint32_t q, uint32_t lo0, uint32_t hi0) {
    asm volatile("add.cc.u32 %0, %0, %2; addc.cc.u32 %1, %1, %3;" : "+r"(acc[0]), "+r"(acc[1]) : "r"(lo0), "r"(hi0));
#pragma unroll
    for (int j = 2; j < N; j += 2)
      asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                   : "+r"(acc[j]), "+r"(acc[j + 1])
                   : "r"(m[j]), "r"(q));
  }
};

}  // namespace starzk::gpu
