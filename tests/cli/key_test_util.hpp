// What the key tests share: a point on the curve outside the prime-order
// subgroup, to plant in a key that must then be refused.
#pragma once

#include <cstdint>

#include "ec/subgroup.hpp"

namespace starzk::test {

// The G1 point of least x = 1, 2, ... on y^2 = x^3 + 4 that is not in G1
// (almost every curve point is not: the cofactor is ~2^126).
inline g1_affine_t g1_outside_subgroup() {
  for (uint64_t x = 1;; ++x) {
    g1_affine_t p{fp_t::from_u64(x), fp_t::zero()};
    if (!(p.x * p.x * p.x + fp_t::from_u64(4)).sqrt(p.y)) continue;
    if (!p.is_in_subgroup()) return p;
  }
}

}  // namespace starzk::test
