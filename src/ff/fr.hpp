// fr_t: the BLS12-381 scalar field F_r (the group order; witnesses, QAP
// polynomials and MSM scalars live here).
//
//   r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
//   (draft-irtf-cfrg-pairing-friendly-curves; r = x^4 - x^2 + 1)
//
// Layout: uint64_t l[4], little-endian limbs, Montgomery form a·2^256 mod r,
// 32 bytes. The CUDA device type holds the same bytes as uint32_t[8].
//
// r - 1 = 2^32 · t with t odd (two-adicity 32), so NTT domains go up to 2^32.
// Two conventions for the 2^k-th roots of unity exist and they differ:
//   snarkjs / ffjavascript: w_{2^k} = 5^((r-1)/2^k), 5 being the smallest
//     quadratic non-residue ("nqr"; F1Field sets w[s] = nqr^t and squares
//     down). fr_t::root_of_unity(k). The .zkey H query is built on these.
//   bellman / blstrs / arkworks: ROOT_OF_UNITY = 7^t with GENERATOR = 7 (a
//     generator of F_r^*, also the coset shift of the QAP), and
//     w_{2^k} = ROOT_OF_UNITY^(2^(32-k)) = 7^((r-1)/2^k).
//     fr_t::bellman_root_of_unity(k), fr_t::multiplicative_generator() = 7.
// They agree for k <= 2 (w_2 = -1 and, by chance, the same w_4) and
// differ from k = 3 on; tests/ff pins both at k = 32.
#pragma once

#include <type_traits>

#include "ff/mont.hpp"

namespace starzk {

struct fr_params {
  static constexpr size_t n_limbs = 4;
  static constexpr std::array<uint64_t, 4> modulus = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                                      0x3339d80809a1d805ull, 0x73eda753299d7d48ull};
  static constexpr const char* name = "fr_t";
  static constexpr unsigned two_adicity = 32;
  static constexpr uint64_t root_generator = 5;   // snarkjs nqr
  static constexpr uint64_t coset_generator = 7;  // bellman GENERATOR
};

using fr_t = mont_t<fr_params>;

static_assert(sizeof(fr_t) == 32, "fr_t must be 32 bytes (device type: uint32_t[8])");
static_assert(alignof(fr_t) == 8);
static_assert(std::is_trivially_copyable_v<fr_t> && std::is_standard_layout_v<fr_t>);
static_assert(fr_t::modulus_bits == 255);

}  // namespace starzk
