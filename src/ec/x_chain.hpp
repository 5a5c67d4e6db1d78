// The fixed addition chain of |x|, x = -0xd201000000010000 the BLS
// parameter: [|x|] P for any point type, written once for the scalar
// checks (ec/subgroup.cpp) and the 8-lane ones (ec/subgroup_x8.cpp).
//
// |x| has its bits set at 63, 62, 60, 57, 48 and 16. Left to right over
// the set bits: acc = P stands for the top bit; from one set bit b' to the
// next b, double b' - b times and add P; after the last set bit (16),
// double 16 times:
//   acc = P;  [2]acc + P;  [4]acc + P;  [8]acc + P;  [2^9]acc + P;
//   [2^32]acc + P;  [2^16]acc
// 63 doublings and 5 additions, the same sequence for every point: no
// per-bit branching, so eight points can walk it in lock step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

#include "ec/curve.hpp"

namespace starzk {

inline constexpr int x_abs_bits[] = {63, 62, 60, 57, 48, 16};

constexpr uint64_t x_abs_of_bits() {
  uint64_t v = 0;
  for (int b : x_abs_bits) v |= uint64_t(1) << b;
  return v;
}
static_assert(x_abs_of_bits() == bls_x_abs, "the chain must spell |x|");

// [|x|] P: `start` is P in the accumulator's form (Jacobian), `p` the
// point added at each set bit (affine or Jacobian) and add(acc, p) the
// addition to use (complete for the scalar checks, the branch-free formula
// for the 8-lane ones).
template <class J, class Base, class Add, class DblN>
J x_abs_chain(const J& start, const Base& p, Add&& add, DblN&& dbl_n) {
  J acc = start;
  for (size_t k = 1; k < std::size(x_abs_bits); ++k) {
    acc = dbl_n(acc, unsigned(x_abs_bits[k - 1] - x_abs_bits[k]));
    acc = add(acc, p);
  }
  return dbl_n(acc, unsigned(x_abs_bits[std::size(x_abs_bits) - 1]));
}
template <class J, class Base, class Add>
J x_abs_chain(const J& start, const Base& p, Add&& add) {
  return x_abs_chain(start, p, add, [](const J& a, unsigned n) { return a.dbl_n(n); });
}

}  // namespace starzk
