// Helpers of the device MSM tests written once over the curve (G1, G2),
// beside the host entry points (templates over the curve,
// cuda/starzk_cuda_host.hpp): random points of order r, bases with repeats
// and O, scalar mixes (zeros, ones, r - 1, boolean-heavy), and comparison
// as group elements.
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include "gpu_test_util.hpp"
#include "msm/pippenger.hpp"

namespace starzk::gpu::test {

// A random point of order r: x random until x^3 + b is a square, then the
// cofactor cleared (G1 h1, G2 h2: src/ec/curve.hpp).
template <class P>
jacobian_t<P> random_point(std::mt19937_64& rng) {
  using field_t = typename P::field_t;
  for (;;) {
    const field_t x = field_t::random(rng);
    field_t y;
    if (!(x.sqr() * x + P::b()).sqrt(y)) continue;
    const jacobian_t<P> q = mul_limbs(affine_t<P>{x, y}, std::span<const uint64_t>(P::cofactor));
    if (!q.is_infinity()) return q;
  }
}

// n bases cycling through `distinct` points Q + k·R (one cofactor clearing
// per curve point, not per base); every inf_every-th base, from index 3, is O.
template <class P>
std::vector<affine_t<P>> make_bases(std::mt19937_64& rng, size_t n, size_t distinct = 0, size_t inf_every = 0) {
  if (distinct == 0 || distinct > n) distinct = n;
  const jacobian_t<P> q = random_point<P>(rng);
  const affine_t<P> r = random_point<P>(rng).to_affine();
  std::vector<jacobian_t<P>> jac(distinct);
  for (size_t k = 0; k < distinct; ++k) jac[k] = k == 0 ? q : jac[k - 1].add_mixed(r);
  std::vector<affine_t<P>> pts(distinct), out(n);
  jacobian_t<P>::batch_to_affine(jac, pts);
  for (size_t i = 0; i < n; ++i) out[i] = pts[i % distinct];
  if (inf_every)
    for (size_t i = 3; i < n; i += inf_every) out[i] = affine_t<P>::infinity();
  return out;
}

// Scalars: each is 0 with probability zero_pct %, one with one_pct %, r-1
// with minus_one_pct %, otherwise uniform in Fr.
struct mix_t {
  unsigned zero_pct = 0, one_pct = 0, minus_one_pct = 0;
};
constexpr mix_t random_mix{}, all_zero{100, 0, 0}, all_one{0, 100, 0}, all_minus_one{0, 0, 100},
    boolean_heavy{45, 45, 0};

inline std::vector<fr_t> make_scalars(std::mt19937_64& rng, size_t n, mix_t m) {
  std::vector<fr_t> s(n);
  for (auto& x : s) {
    const unsigned u = unsigned(rng() % 100);
    if (u < m.zero_pct)
      x = fr_t::zero();
    else if (u < m.zero_pct + m.one_pct)
      x = fr_t::one();
    else if (u < m.zero_pct + m.one_pct + m.minus_one_pct)
      x = -fr_t::one();
    else
      x = fr_t::random(rng);
  }
  return s;
}

template <class P>
bool same(const xyzz_t<P>& got, const jacobian_t<P>& want) {
  return got.to_affine() == want.to_affine();
}
template <class P>
bool same(const jacobian_t<P>& got, const jacobian_t<P>& want) {
  return got.to_affine() == want.to_affine() && got.is_infinity() == want.is_infinity();
}

// One device MSM (msm_host, `tune`) of fresh bases (`distinct` of them
// repeated, O every `inf_every`-th; make_bases) and scalars of mix `m`
// against the host Pippenger.
template <class P>
void check_msm(std::mt19937_64& rng, size_t n, mix_t m, const msm_tuning_t& tune = {}, size_t distinct = 0,
               size_t inf_every = 0) {
  const auto bases = make_bases<P>(rng, n, distinct, inf_every);
  const auto s = make_scalars(rng, n, m);
  const xyzz_t<P> got = msm_host<P>(bases, s, tune);
  const jacobian_t<P> want = msm_pippenger<P>(std::span<const affine_t<P>>(bases), s);
  EXPECT_TRUE(same<P>(got, want)) << P::name << " n=" << n << " mix=" << m.zero_pct << "/" << m.one_pct << "/"
                                  << m.minus_one_pct << " c=" << tune.window_bits << " chunk=" << tune.chunk
                                  << " ways=" << tune.fold_ways << " distinct=" << distinct
                                  << " inf_every=" << inf_every;
}

}  // namespace starzk::gpu::test
