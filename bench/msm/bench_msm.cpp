// Benchmarks of the CPU MSM (starzk_msm) on all cores:
//   bm_g1_msm_random/16/1    Pippenger, 2^16 G1 bases, uniform scalars,
//                            affine buckets (/0: XYZZ buckets; also 2^18);
//   bm_g1_split_msm/16       prep_msm + split_msm, 2^16 G1 bases, scalars
//                            45% zero, 45% one, 10% uniform (Filecoin-like);
//   bm_g1_prep_msm/16        the classification alone;
//   bm_g2_msm_random/14/1    Pippenger, 2^14 G2 bases (/0: XYZZ buckets).
// Bases are a seeded random walk of subgroup points (setup not timed).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "msm/pippenger.hpp"
#include "msm/prep_msm.hpp"

namespace starzk {
namespace {

template <class P>
std::vector<affine_t<P>> bases(size_t n) {
  using jac = jacobian_t<P>;
  std::mt19937_64 g(11);
  const jac step[2] = {mul(affine_t<P>::generator(), fr_t::random(g)), mul(affine_t<P>::generator(), fr_t::random(g))};
  std::vector<jac> pts(n);
  jac cur = step[0];
  for (size_t i = 0; i < n; ++i) pts[i] = cur = cur.add(step[g() & 1]);
  std::vector<affine_t<P>> out(n);
  jac::batch_to_affine(pts, out);
  return out;
}

std::vector<fr_t> scalars(size_t n, bool boolean_heavy) {
  std::mt19937_64 g(12);
  std::vector<fr_t> s(n);
  for (auto& x : s) {
    const unsigned p = unsigned(g() % 100);
    x = !boolean_heavy || p >= 90 ? fr_t::random(g) : (p < 45 ? fr_t::zero() : fr_t::one());
  }
  return s;
}

// Args: log2 n, then 1 for affine buckets (the default) or 0 for XYZZ ones.
template <class P>
void bm_msm_random(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto b = bases<P>(n);
  const auto s = scalars(n, false);
  msm_config_t cfg;
  cfg.affine_buckets = state.range(1) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(msm_pippenger<P>(b, s, cfg));
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}
BENCHMARK(bm_msm_random<g1_params>)
    ->Name("bm_g1_msm_random")
    ->ArgNames({"log2n", "affine"})
    ->ArgsProduct({{16, 18}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm_random<g2_params>)
    ->Name("bm_g2_msm_random")
    ->ArgNames({"log2n", "affine"})
    ->ArgsProduct({{14}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void bm_g1_split_msm(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto b = bases<g1_params>(n);
  const auto s = scalars(n, true);
  for (auto _ : state) {
    const prep_msm_t prep = prep_msm(s);
    benchmark::DoNotOptimize(split_msm<g1_params>(b, prep));
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}
BENCHMARK(bm_g1_split_msm)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();

void bm_g1_prep_msm(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto s = scalars(n, true);
  for (auto _ : state) benchmark::DoNotOptimize(prep_msm(s).tail_index.size());
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}
BENCHMARK(bm_g1_prep_msm)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace starzk
