// Frobenius coefficients of the BLS12-381 tower, computed once at first use.
//
// With ξ = u + 1, v^3 = ξ and w^2 = v (so w^6 = ξ), raising the basis
// elements to p^k gives
//   w^(p^k)   = w   · ξ^((p^k - 1)/6)  =: w   · gamma[k]
//   v^(p^k)   = v   · ξ^((p^k - 1)/3)  =  v   · gamma[k]^2
//   v^2^(p^k) = v^2 · ξ^(2(p^k - 1)/3) =  v^2 · gamma[k]^4
// (p ≡ 1 mod 6, so the exponents are integers). The table is built by the
// recurrence (p^k - 1)/6 = p·(p^(k-1) - 1)/6 + (p - 1)/6, i.e.
//   gamma[k] = gamma[k-1]^p · gamma[1] = conj(gamma[k-1]) · gamma[1],
// so only gamma[1] = ξ^((p-1)/6) needs an exponentiation. tests/ff checks
// frobenius_map(k) against x^(p^k) computed by pow.
#pragma once

#include <array>

#include "ff/fp2.hpp"

namespace starzk {

struct frobenius_coeffs_t {
  std::array<fp2_t, 12> w;   // ξ^((p^k-1)/6),  F_p12 (c1 coefficient)
  std::array<fp2_t, 12> v;   // ξ^((p^k-1)/3),  F_p6 (c1 coefficient)
  std::array<fp2_t, 12> v2;  // ξ^(2(p^k-1)/3), F_p6 (c2 coefficient)
};

// Thread-safe lazy initialisation (function-local static).
const frobenius_coeffs_t& frobenius_coeffs();

}  // namespace starzk
