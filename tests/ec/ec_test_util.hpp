// Shared helpers for the tests/ec suite: seeded random points and scalars,
// points on the curve but (almost surely) outside the subgroup, hex helpers.
//
// Random subgroup points are [s] G for a random scalar s. Random curve points
// are built from a random x with x^3 + b a square; the curve group has order
// h r with h > 2^125, so such a point lies in the subgroup with probability
// about 1/h: tests assert it is not (checked by the slow [r] P test), they do
// not assume it.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "ec/subgroup.hpp"

namespace starzk::test {

inline std::mt19937_64& rng() {
  static std::mt19937_64 g(0x5eed'ec'2024ull);
  return g;
}

inline fr_t random_scalar() { return fr_t::random(rng()); }

template <class P>
affine_t<P> random_subgroup_point() {
  return mul(affine_t<P>::generator(), random_scalar()).to_affine();
}

template <class P>
affine_t<P> random_curve_point() {
  using field_t = typename P::field_t;
  for (;;) {
    const field_t x = field_t::random(rng());
    field_t y;
    if ((x.sqr() * x + P::b()).sqrt(y)) return affine_t<P>{x, y};
  }
}

inline std::string to_hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

inline std::vector<uint8_t> from_hex(const std::string& h) {
  std::vector<uint8_t> out(h.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(std::stoi(h.substr(2 * i, 2), nullptr, 16));
  return out;
}

}  // namespace starzk::test
