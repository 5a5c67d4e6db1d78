// fp_t: the BLS12-381 base field F_p, p a 381-bit prime (the curve
// coordinates live here; Fp2/Fp6/Fp12 are built on top of it).
//
//   p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624
//         1eabfffeb153ffffb9feffffffffaaab
//   (draft-irtf-cfrg-pairing-friendly-curves, BLS12-381 section;
//    p = (x-1)^2 (x^4 - x^2 + 1)/3 + x with x = -0xd201000000010000)
//
// Layout: uint64_t l[6], little-endian limbs, Montgomery form a·2^384 mod p,
// 48 bytes. The CUDA device type holds the same 48 bytes as uint32_t[12]
// (limb 2i is the low half of l[i]), so host arrays copy to the device as is.
// p ≡ 3 (mod 4): square roots are one exponentiation (mont_t::sqrt).
#pragma once

#include <type_traits>

#include "ff/mont.hpp"

namespace starzk {

struct fp_params {
  static constexpr size_t n_limbs = 6;
  static constexpr std::array<uint64_t, 6> modulus = {0xb9feffffffffaaabull, 0x1eabfffeb153ffffull,
                                                      0x6730d2a0f6b0f624ull, 0x64774b84f38512bfull,
                                                      0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull};
  static constexpr const char* name = "fp_t";
  static constexpr unsigned two_adicity = 1;  // p - 1 = 2 · odd
  static constexpr uint64_t root_generator = 0;
  static constexpr uint64_t coset_generator = 0;
};

using fp_t = mont_t<fp_params>;

static_assert(sizeof(fp_t) == 48, "fp_t must be 48 bytes (device type: uint32_t[12])");
static_assert(alignof(fp_t) == 8);
static_assert(std::is_trivially_copyable_v<fp_t> && std::is_standard_layout_v<fp_t>);
static_assert(fp_t::modulus_bits == 381);

}  // namespace starzk
