// Shared helpers for tests/msm: seeded random subgroup points (a random walk
// of additions over a small table of [s]G, made affine in one batch: cheap,
// and every point is in the subgroup), random scalars, and the oracle sums
// built on ec's msm_naive (one term at a time, so the prefix sums give the
// expected value for every prefix length in one pass).
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "ec/scalar_mul.hpp"

namespace starzk::test {

template <class P>
std::vector<affine_t<P>> random_bases(std::mt19937_64& g, size_t n) {
  using jac = jacobian_t<P>;
  std::array<jac, 8> table;
  for (auto& t : table) t = mul(affine_t<P>::generator(), fr_t::random(g));
  std::vector<jac> pts(n);
  jac cur = table[0];
  for (size_t i = 0; i < n; ++i) {
    cur = cur.add(table[g() % table.size()]);
    if (g() % 4 == 0) cur = cur.dbl();
    pts[i] = cur;
  }
  std::vector<affine_t<P>> out(n);
  jac::batch_to_affine(pts, out);
  return out;
}

inline std::vector<fr_t> random_scalars(std::mt19937_64& g, size_t n) {
  std::vector<fr_t> s(n);
  for (auto& x : s) x = fr_t::random(g);
  return s;
}

// expect[m] = Σ_{i < m} s_i P_i for m = 0..n, each term by msm_naive.
template <class P>
std::vector<jacobian_t<P>> naive_prefix_sums(const std::vector<affine_t<P>>& bases, const std::vector<fr_t>& s) {
  std::vector<jacobian_t<P>> out(bases.size() + 1, jacobian_t<P>::infinity());
  for (size_t i = 0; i < bases.size(); ++i)
    out[i + 1] = out[i].add(msm_naive<P>(std::span(&bases[i], 1), std::span(&s[i], 1)));
  return out;
}

// The sizes the MSM tests sweep: 0, 1, 2, 3, and 2^k, 2^k + 1 up to max.
inline std::vector<size_t> edge_sizes(size_t max) {
  std::vector<size_t> v = {0, 1, 2, 3};
  for (size_t p = 4; p <= max; p *= 2) {
    v.push_back(p);
    if (p + 1 <= max) v.push_back(p + 1);
  }
  return v;
}

}  // namespace starzk::test
