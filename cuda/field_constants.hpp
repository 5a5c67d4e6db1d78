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

#define SZK_FP_MOD                                                                                            \
  0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84, 0x434bacd7, \
      0x4b1ba7b6, 0x397fe69a, 0x1a0111ea
#define SZK_FP_ONE                                                                                            \
  0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853, 0xa256ec6d, \
      0x5c071a97, 0xfa80e493, 0x15f65ec3
#define SZK_FP_R2                                                                                             \
  0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c, 0x939d83c0, 0x67eb88a9, 0xb519952d, \
      0x9a793e85, 0x92cae3aa, 0x11988fe5
#define SZK_FP_MM2                                                                                            \
  0xffffaaa9, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84, 0x434bacd7, \
      0x4b1ba7b6, 0x397fe69a, 0x1a0111ea
#define SZK_FP_M0 0xfffcfffdu

// Curve constants of the key checks (cuda/key_check_math.cuh), Fp limbs in
// Montgomery form, the values of src/ec/curve.cpp (documented in curve.hpp):
//   FOUR       4: b of G1; b' = 4 + 4u of G2 is (FOUR, FOUR).
//   BETA       the cube root of unity of phi(x, y) = (beta x, y) on G1.
//   PSI_CX_C1  psi_cx = 0 + PSI_CX_C1·u and psi_cy = PSI_CY_C0 + PSI_CY_C1·u,
//   PSI_CY_*   the coefficients of psi(x, y) = (conj(x) cx, conj(y) cy) on G2.
// and plain integers (exponents and a bound), derived from p:
//   P_PLUS_1_DIV_4   (p+1)/4: the Fp square root a^((p+1)/4)
//   P_MINUS_3_DIV_4  (p-3)/4, P_MINUS_1_DIV_2 (p-1)/2: the Fp2 square root
//                    (src/ff/fp2.cpp); (p-1)/2 also bounds the "smaller"
//                    half of Fp for the zcash sort flag.
#define SZK_FP_FOUR                                                                                           \
  0x000cfff3, 0xaa270000, 0xfc34000a, 0x53cc0032, 0x6b0a807f, 0x478fe97a, 0xe6ba24d7, 0xb1d37ebe, 0xbf78ab2f, \
      0x8ec9733b, 0x3d83de7e, 0x09d64551
#define SZK_FP_BETA                                                                                           \
  0x798a64e8, 0x30f1361b, 0x7ece5a2a, 0xf3b8ddab, 0xc61577f7, 0x16a8ca3a, 0x74fd029b, 0xc26a2ff8, 0x60701c6e, \
      0x3636b766, 0x241b6160, 0x051ba4ab
#define SZK_FP_PSI_CX_C1                                                                                      \
  0x867545c3, 0x890dc9e4, 0x3285a5d5, 0x2af32253, 0x309b7e2c, 0x50880866, 0x7e881024, 0xa20d1b8c, 0xe2db9068, \
      0x14e4f04f, 0x1564853a, 0x14e56d3f
#define SZK_FP_PSI_CY_C0                                                                                      \
  0xa55c9ad1, 0x3e2f585d, 0x86c18183, 0x4294213d, 0x8b623732, 0x382844c8, 0x19103e18, 0x92ad2afd, 0xac7cf0b9, \
      0x1d794e4f, 0x7d825ec8, 0x0bd592fc
#define SZK_FP_PSI_CY_C1                                                                                      \
  0x5aa30fda, 0x7bcfa7a2, 0x2a927e7c, 0xdc17dec1, 0x6b4ebef1, 0x2f088dd8, 0xda74d4a7, 0xd1ca2087, 0x96cebc1d, \
      0x2da25966, 0xbbfd87d2, 0x0e2b7eed
#define SZK_FP_P_PLUS_1_DIV_4                                                                                 \
  0xffffeaab, 0xee7fbfff, 0xac54ffff, 0x07aaffff, 0x3dac3d89, 0xd9cc34a8, 0x3ce144af, 0xd91dd2e1, 0x90d2eb35, \
      0x92c6e9ed, 0x8e5ff9a6, 0x0680447a
#define SZK_FP_P_MINUS_3_DIV_4                                                                                \
  0xffffeaaa, 0xee7fbfff, 0xac54ffff, 0x07aaffff, 0x3dac3d89, 0xd9cc34a8, 0x3ce144af, 0xd91dd2e1, 0x90d2eb35, \
      0x92c6e9ed, 0x8e5ff9a6, 0x0680447a
#define SZK_FP_P_MINUS_1_DIV_2                                                                                \
  0xffffd555, 0xdcff7fff, 0x58a9ffff, 0x0f55ffff, 0x7b587b12, 0xb3986950, 0x79c2895f, 0xb23ba5c2, 0x21a5d66b, \
      0x258dd3db, 0x1cbff34d, 0x0d0088f5

#define SZK_FR_MOD 0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753
#define SZK_FR_ONE 0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa, 0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159
#define SZK_FR_R2 0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb, 0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9
#define SZK_FR_MM2 0xffffffff, 0xfffffffe, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753
#define SZK_FR_M0 0xffffffffu

namespace starzk::gpu::consts {
inline constexpr uint32_t fp_mod[12] = {SZK_FP_MOD};
inline constexpr uint32_t fp_one[12] = {SZK_FP_ONE};
inline constexpr uint32_t fp_r2[12] = {SZK_FP_R2};
inline constexpr uint32_t fp_m0 = SZK_FP_M0;
inline constexpr uint32_t fp_four[12] = {SZK_FP_FOUR};
inline constexpr uint32_t fp_beta[12] = {SZK_FP_BETA};
inline constexpr uint32_t fp_psi_cx_c1[12] = {SZK_FP_PSI_CX_C1};
inline constexpr uint32_t fp_psi_cy_c0[12] = {SZK_FP_PSI_CY_C0};
inline constexpr uint32_t fp_psi_cy_c1[12] = {SZK_FP_PSI_CY_C1};
inline constexpr uint32_t fp_p_plus_1_div_4[12] = {SZK_FP_P_PLUS_1_DIV_4};
inline constexpr uint32_t fp_p_minus_3_div_4[12] = {SZK_FP_P_MINUS_3_DIV_4};
inline constexpr uint32_t fp_p_minus_1_div_2[12] = {SZK_FP_P_MINUS_1_DIV_2};
inline constexpr uint32_t fr_mod[8] = {SZK_FR_MOD};
inline constexpr uint32_t fr_one[8] = {SZK_FR_ONE};
inline constexpr uint32_t fr_r2[8] = {SZK_FR_R2};
inline constexpr uint32_t fr_m0 = SZK_FR_M0;
}  // namespace starzk::gpu::consts
