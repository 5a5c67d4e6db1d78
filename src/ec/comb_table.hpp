// comb_table.hpp: the table of an 8-bit fixed-base comb, the one layout the
// host (groth16/setup.cpp) and the device (cuda/fixed_base.cu) products use.
//
// For a base G, entry [w·256 + d] = d·2^(8w)·G for the 32 byte positions w
// of a 256-bit scalar and the byte values d < 256 (entry d = 0 is O, stored
// as (0, 0)). Then k·G = Σ_w table[w·256 + byte_w(k)]: at most 32 mixed
// additions and no doubling. Built with 32·255 Jacobian additions, 32·8
// doublings and one batched conversion to affine (a few milliseconds).
#pragma once

#include <vector>

#include "ec/jacobian.hpp"

namespace starzk {

inline constexpr unsigned comb_windows = 32;  // bytes of a 256-bit scalar
inline constexpr unsigned comb_digits = 256;  // entries per window

template <class P>
std::vector<affine_t<P>> comb_table(const affine_t<P>& g) {
  std::vector<jacobian_t<P>> jac(comb_windows * comb_digits);
  jacobian_t<P> base = jacobian_t<P>::from_affine(g);  // 2^(8w)·G
  for (unsigned w = 0; w < comb_windows; ++w) {
    jac[w * comb_digits] = jacobian_t<P>::infinity();
    for (unsigned d = 1; d < comb_digits; ++d) jac[w * comb_digits + d] = jac[w * comb_digits + d - 1].add(base);
    for (int b = 0; b < 8; ++b) base = base.dbl();
  }
  std::vector<affine_t<P>> table(jac.size());
  jacobian_t<P>::batch_to_affine(jac, table);
  return table;
}

}  // namespace starzk
