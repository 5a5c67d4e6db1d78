// The BLS12-381 field constants as 32-bit limbs, for the CUDA field types.
//
// The device fields hold the same bytes as the host fp_t / fr_t (src/ff):
// little-endian, Montgomery form a·R mod m with R = 2^384 (Fp, 12 limbs) and
// R = 2^256 (Fr, 8 limbs) — the host's R = 2^(64·6) equals the device's
// 2^(32·12). The limbs are listed once, as macros, so the same literals
// initialise both the __constant__ arrays the kernels read (field.cuh) and
// the constexpr copies below, which field_constants_check.cpp holds against
// the constants src/ff derives from the modulus at compile time.
//   p = 0x1a0111ea...ffffaaab (draft-irtf-cfrg-pairing-friendly-curves, BLS12-381)
//   r = 0x73eda753...00000001
//   M0 = -m^-1 mod 2^32 (the Montgomery factor of one 32-bit reduction step)
#pragma once

#include <cstdint>

#define SZK_FP_MOD 0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0, \
                   0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea
#define SZK_FP_ONE 0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857, \
                   0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3
#define SZK_FP_R2 0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c, \
                  0x939d83c0, 0x67eb88a9, 0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5
#define SZK_FP_MM2 0xffffaaa9, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0, \
                   0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea
#define SZK_FP_M0 0xfffcfffdu

#define SZK_FR_MOD 0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, \
                   0x299d7d48, 0x73eda753
#define SZK_FR_ONE 0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa, 0xecbc4ff5, 0x998c4fef, \
                   0xacc5056f, 0x1824b159
#define SZK_FR_R2 0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb, 0x7254398f, 0x05d31496, \
                  0x9f59ff11, 0x0748d9d9
#define SZK_FR_MM2 0xffffffff, 0xfffffffe, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, \
                   0x299d7d48, 0x73eda753
#define SZK_FR_M0 0xffffffffu

namespace starzk::gpu::consts {
inline constexpr uint32_t fp_mod[12] = {SZK_FP_MOD};
inline constexpr uint32_t fp_one[12] = {SZK_FP_ONE};
inline constexpr uint32_t fp_r2[12] = {SZK_FP_R2};
inline constexpr uint32_t fp_m0 = SZK_FP_M0;
inline constexpr uint32_t fr_mod[8] = {SZK_FR_MOD};
inline constexpr uint32_t fr_one[8] = {SZK_FR_ONE};
inline constexpr uint32_t fr_r2[8] = {SZK_FR_R2};
inline constexpr uint32_t fr_m0 = SZK_FR_M0;
}  // namespace starzk::gpu::consts
