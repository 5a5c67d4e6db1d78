// Shared helpers for the tests/ec suite: seeded random points and scalars,
// points on the curve but (almost surely) outside the subgroup, points of
// each small prime order of the cofactors, hex helpers.
//
// Random subgroup points are [s] G for a random scalar s. Random curve points
// are built from a random x with x^3 + b a square; the curve group has order
// h r with h > 2^125, so such a point lies in the subgroup with probability
// about 1/h: tests assert it is not (checked by the slow [r] P test), they do
// not assume it.
#pragma once

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "ec/subgroup.hpp"
#include "ff/limbs.hpp"

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

template <class P, class Rng>
affine_t<P> random_curve_point(Rng& g) {
  using field_t = typename P::field_t;
  for (;;) {
    const field_t x = field_t::random(g);
    field_t y;
    if ((x.sqr() * x + P::b()).sqrt(y)) return affine_t<P>{x, y};
  }
}

template <class P>
affine_t<P> random_curve_point() {
  return random_curve_point<P>(rng());
}

// A point of order a power of ell, ell a prime of the cofactor h of P's
// curve group (G1: 3 · 11² · 10177² · 859267² · 52437899²; G2: 13² · 23² ·
// 2713 · 11953 · 262069 · a 448-bit prime): with ell^a the largest power of
// ell dividing h, S = [h / ell^a]([r] R) lies in the ell-part of the group
// for a random curve point R, and is not O for most R. Throws
// std::logic_error where ell does not divide h or [ell^a] S is not O, so a
// wrong prime cannot pass unseen.
template <class P, class Rng>
affine_t<P> torsion_point(uint64_t ell, Rng& g) {
  auto k = P::cofactor;
  uint64_t power = 1;
  for (auto t = k; limbs::div_small(t, ell) == 0; t = k) {
    k = t;
    power *= ell;
  }
  if (power == 1) throw std::logic_error("not a prime of the cofactor: " + std::to_string(ell));
  for (int tries = 0; tries < 64; ++tries) {
    const jacobian_t<P> rr = mul_limbs(random_curve_point<P>(g), std::span<const uint64_t>(group_order_limbs));
    const affine_t<P> s = mul_limbs(rr, std::span<const uint64_t>(k)).to_affine();
    if (s.is_infinity()) continue;
    if (!mul_u64(s, power).is_infinity()) throw std::logic_error("[ell^a] S is not O for ell = " + std::to_string(ell));
    return s;
  }
  throw std::logic_error("no point of order a power of " + std::to_string(ell));
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
