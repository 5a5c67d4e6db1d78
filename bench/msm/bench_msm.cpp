// Benchmarks of the CPU MSM (starzk_msm) on all cores:
//   bm_g1_msm_random/16/2/1  Pippenger, 2^16 G1 bases, uniform scalars,
//                            affine buckets in IFMA lanes where the CPU has
//                            them (/1/x: one at a time; /0/x: XYZZ
//                            buckets), GLV form (/x/0: 255-bit scalars);
//                            also 2^14, 2^15 and 2^18;
//   bm_g1_msm_window/15/11/2 the same at a fixed window c (here 11), the
//                            lanes on (2) or off (1), for fitting msm_plan;
//   bm_g1_split_msm/16/1     prep_msm + split_msm, 2^16 G1 bases, scalars
//                            45% zero, 45% one, 10% uniform (Filecoin-like),
//                            the tail in the GLV form (/0: 255-bit);
//   bm_g1_prep_msm/16        the classification alone;
//   bm_batch_add_g1/16/2     the sum of the bases whose scalar is 1 (45% of
//                            2^16 G1 bases), in affine buckets in lanes (2),
//                            one at a time (1) or XYZZ additions (0); also
//                            bm_batch_add_g2;
//   bm_g2_msm_random/14/2/1  Pippenger, 2^14 G2 bases (the same flags);
//   bm_g1_msm_tail/10        the default form at 2^10 and 2^12 terms, the
//                            size of a split MSM's tail; also bm_g2_msm_tail.
// Bases are a seeded random walk of subgroup points (setup not timed).
// "CPU" is the CPU time of the whole process (every thread), steadier than
// wall time on a shared machine.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "msm/batch_add.hpp"
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

// Args: log2 n; 2 for affine buckets in lanes (the default), 1 for affine
// buckets one at a time, 0 for XYZZ ones; 1 for the GLV form (the default)
// or 0 for 255-bit scalars.
template <class P>
void bm_msm_random(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto b = bases<P>(n);
  const auto s = scalars(n, false);
  msm_config_t cfg;
  cfg.affine_buckets = state.range(1) != 0;
  cfg.lanes = state.range(1) == 2;
  cfg.glv = state.range(2) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(msm_pippenger<P>(b, s, cfg));
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}

// Args: log2 n, the window c, 2 for the lanes or 1 for one at a time.
void bm_g1_msm_window(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto b = bases<g1_params>(n);
  const auto s = scalars(n, false);
  msm_config_t cfg;
  cfg.window_bits = unsigned(state.range(1));
  cfg.lanes = state.range(2) == 2;
  for (auto _ : state) benchmark::DoNotOptimize(msm_pippenger<g1_params>(b, s, cfg));
}
BENCHMARK(bm_g1_msm_window)
    ->ArgNames({"log2n", "c", "lanes"})
    ->ArgsProduct({{13, 14, 15, 16}, {10, 11, 12, 13, 14, 15}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(bm_msm_random<g1_params>)
    ->Name("bm_g1_msm_random")
    ->ArgNames({"log2n", "affine", "glv"})
    ->ArgsProduct({{14, 15, 16, 18}, {0, 1, 2}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(bm_msm_random<g2_params>)
    ->Name("bm_g2_msm_random")
    ->ArgNames({"log2n", "affine", "glv"})
    ->ArgsProduct({{14}, {0, 1, 2}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

BENCHMARK(bm_msm_random<g1_params>)
    ->Name("bm_g1_msm_tail")
    ->ArgNames({"log2n", "affine", "glv"})
    ->ArgsProduct({{10, 12}, {2}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(bm_msm_random<g2_params>)
    ->Name("bm_g2_msm_tail")
    ->ArgNames({"log2n", "affine", "glv"})
    ->ArgsProduct({{10, 12}, {1, 2}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

void bm_g1_split_msm(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto b = bases<g1_params>(n);
  const auto s = scalars(n, true);
  msm_config_t cfg;
  cfg.glv = state.range(1) != 0;
  for (auto _ : state) {
    const prep_msm_t prep = prep_msm(s);
    benchmark::DoNotOptimize(split_msm<g1_params>(b, prep, cfg));
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}
BENCHMARK(bm_g1_split_msm)
    ->ArgNames({"log2n", "glv"})
    ->ArgsProduct({{16}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

// Args: log2 n; 2 for affine buckets in lanes, 1 one at a time, 0 XYZZ.
template <class P>
void bm_batch_add(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto b = bases<P>(n);
  const prep_msm_t prep = prep_msm(scalars(n, true));
  msm_config_t cfg;
  cfg.affine_buckets = state.range(1) != 0;
  cfg.lanes = state.range(1) == 2;
  for (auto _ : state) benchmark::DoNotOptimize(batch_add<P>(b, prep.ones, cfg));
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(prep.n_one));
}
BENCHMARK(bm_batch_add<g1_params>)
    ->Name("bm_batch_add_g1")
    ->ArgNames({"log2n", "affine"})
    ->ArgsProduct({{16}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(bm_batch_add<g2_params>)
    ->Name("bm_batch_add_g2")
    ->ArgNames({"log2n", "affine"})
    ->ArgsProduct({{16}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

void bm_g1_prep_msm(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto s = scalars(n, true);
  for (auto _ : state) benchmark::DoNotOptimize(prep_msm(s).tail_index.size());
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}
BENCHMARK(bm_g1_prep_msm)->Arg(16)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

}  // namespace
}  // namespace starzk
