// Scalar multiplication [k] P on G1 and G2, and the naive multi-scalar sum.
//
// Three levels, from the simplest (the oracles) to the one the prover uses:
//   mul_limbs: left-to-right double-and-add over any little-endian limb
//     string (cofactors, r, the BLS parameter): one doubling per bit and one
//     addition per set bit.
//   mul: fixed 4-bit windows over the canonical 255-bit scalar. A table of
//     [1]P .. [15]P is built (14 additions) and made affine with a single
//     inversion, then each window costs 4 doublings and at most one mixed
//     addition: about 252 dbl + 64 madd against 255 dbl + ~128 add for
//     double-and-add.
//   msm_naive: sum of s_i P_i with one mul_limbs per term. Slow on purpose;
//     it shares no code with the Pippenger MSMs it checks.
// None of these is constant-time (see jacobian.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "ec/jacobian.hpp"
#include "ff/fr.hpp"

namespace starzk {

namespace detail {
// Double-and-add from the top bit down; Base is an affine point (mixed
// additions, 7M + 4S) or a Jacobian one (11M + 5S).
template <class P, class Base>
jacobian_t<P> double_and_add(const Base& p, std::span<const uint64_t> k) {
  jacobian_t<P> acc = jacobian_t<P>::infinity();
  for (size_t i = k.size(); i-- > 0;) {
    for (int b = 63; b >= 0; --b) {
      if (!acc.is_infinity()) acc = acc.dbl();
      if ((k[i] >> b) & 1) acc += p;
    }
  }
  return acc;
}
}  // namespace detail

// [k] P for k = sum k[i] 2^(64 i), by double-and-add.
template <class P>
jacobian_t<P> mul_limbs(const jacobian_t<P>& p, std::span<const uint64_t> k) {
  return detail::double_and_add<P>(p, k);
}

template <class P>
jacobian_t<P> mul_limbs(const affine_t<P>& p, std::span<const uint64_t> k) {
  return detail::double_and_add<P>(p, k);
}

template <class P>
jacobian_t<P> mul_u64(const jacobian_t<P>& p, uint64_t k) {
  return mul_limbs(p, std::span<const uint64_t>(&k, 1));
}

template <class P>
jacobian_t<P> mul_u64(const affine_t<P>& p, uint64_t k) {
  return mul_limbs(p, std::span<const uint64_t>(&k, 1));
}

// [s] P with 4-bit fixed windows (see the file comment). The scalar is read
// in canonical form (0 <= s < r), so [r-1] P = -P and [0] P = O.
template <class P>
jacobian_t<P> mul(const affine_t<P>& p, const fr_t& s) {
  using jac = jacobian_t<P>;
  using aff = affine_t<P>;
  constexpr int window = 4;
  constexpr int table_size = 1 << window;  // entries 0..15, entry 0 unused
  if (p.is_infinity()) return jac::infinity();

  // table[i] = [i] P for i = 1..15, made affine with one inversion.
  std::array<jac, table_size - 1> jt;
  jt[0] = jac::from_affine(p);
  for (int i = 1; i < table_size - 1; ++i) jt[i] = jt[i - 1].add_mixed(p);
  std::array<aff, table_size - 1> table;
  jac::batch_to_affine(std::span<const jac>(jt), std::span<aff>(table));

  const std::array<uint64_t, 4> k = s.to_canonical();
  jac acc = jac::infinity();
  for (int w = 256 / window - 1; w >= 0; --w) {
    if (!acc.is_infinity())
      for (int d = 0; d < window; ++d) acc = acc.dbl();
    const int bit = w * window;
    const unsigned digit = static_cast<unsigned>(k[bit / 64] >> (bit % 64)) & (table_size - 1);
    if (digit != 0) acc = acc.add_mixed(table[digit - 1]);
  }
  return acc;
}

template <class P>
jacobian_t<P> mul(const jacobian_t<P>& p, const fr_t& s) {
  return mul(p.to_affine(), s);
}

// sum_i s_i P_i by plain double-and-add per term: the reference the fast
// MSMs are tested against. Throws when the spans differ in length.
template <class P>
jacobian_t<P> msm_naive(std::span<const affine_t<P>> points, std::span<const fr_t> scalars) {
  if (points.size() != scalars.size())
    throw std::runtime_error("ec: msm_naive: " + std::to_string(points.size()) + " points but " +
                             std::to_string(scalars.size()) + " scalars");
  jacobian_t<P> sum = jacobian_t<P>::infinity();
  for (size_t i = 0; i < points.size(); ++i) {
    const std::array<uint64_t, 4> k = scalars[i].to_canonical();
    sum = sum.add(mul_limbs(points[i], std::span<const uint64_t>(k)));
  }
  return sum;
}

}  // namespace starzk
