// Helpers shared by the GPU tests: the skip rule (no CUDA device -> GTEST_SKIP),
// a seeded generator whose seed is printed (STARZK_SEED=... replays a run),
// and G1 test points built from the host headers only (src/ec templates).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "cuda/starzk_cuda_host.hpp"
#include "ec/scalar_mul.hpp"

namespace starzk::gpu::test {

#define SZK_REQUIRE_GPU()                                                     \
  do {                                                                        \
    if (!::starzk::gpu::device_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

inline uint64_t test_seed() {
  if (const char* s = std::getenv("STARZK_SEED")) return std::strtoull(s, nullptr, 0);
  return std::random_device{}() ^ (uint64_t(std::random_device{}()) << 32);
}

// A generator seeded freshly per test; the seed goes to the test log.
inline std::mt19937_64 seeded_rng() {
  const uint64_t seed = test_seed();
  std::printf("[ seed     ] STARZK_SEED=0x%016llx\n", (unsigned long long)seed);
  return std::mt19937_64(seed);
}

// A random point of G1: a random x with x^3 + 4 a square, then the cofactor
// h1 = (x-1)^2/3 cleared (so the point has order r and scalars act mod r).
inline g1_jacobian_t random_g1(std::mt19937_64& rng) {
  const fp_t b = fp_t::from_u64(4);
  for (;;) {
    const fp_t x = fp_t::random(rng);
    fp_t y;
    if (!(x.sqr() * x + b).sqrt(y)) continue;
    const g1_affine_t p{x, y};
    const g1_jacobian_t q = mul_limbs(p, std::span<const uint64_t>(g1_params::cofactor));
    if (!q.is_infinity()) return q;
  }
}

// P_i = Q + i·R (affine), so sum s_i P_i = (sum s_i) Q + (sum i s_i) R: an
// oracle that shares nothing with Pippenger. Entries listed in `inf` are O.
struct g1_progression_t {
  g1_jacobian_t q, r;
  std::vector<g1_affine_t> points;
  std::vector<bool> is_inf;

  g1_progression_t(size_t n, std::mt19937_64& rng, size_t inf_every = 0) : q(random_g1(rng)), r(random_g1(rng)) {
    std::vector<g1_jacobian_t> jac(n);
    const g1_affine_t r_aff = r.to_affine();
    g1_jacobian_t acc = q;
    for (size_t i = 0; i < n; ++i) {
      jac[i] = acc;
      acc = acc.add_mixed(r_aff);
    }
    points.resize(n);
    g1_jacobian_t::batch_to_affine(jac, points);
    is_inf.assign(n, false);
    if (inf_every)
      for (size_t i = 3 % n; i < n; i += inf_every) points[i] = g1_affine_t::infinity(), is_inf[i] = true;
  }

  // sum over i of w_i·P_i (w_i = scalars, entries with mask[i] false dropped).
  g1_jacobian_t expected(const std::vector<fr_t>& s, const std::vector<bool>* mask = nullptr) const {
    fr_t sum = fr_t::zero(), wsum = fr_t::zero();
    for (size_t i = 0; i < s.size(); ++i) {
      if (is_inf[i] || (mask && !(*mask)[i])) continue;
      sum += s[i];
      wsum += s[i] * fr_t::from_u64(i);
    }
    return mul(q.to_affine(), sum).add(mul(r.to_affine(), wsum));
  }
};

inline bool same_point(const g1_xyzz_t& got, const g1_jacobian_t& want) {
  return got == g1_xyzz_t::from_jacobian(want);
}

}  // namespace starzk::gpu::test
