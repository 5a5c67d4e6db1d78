// Micro-benchmarks of the CPU field arithmetic: F_p mul/sqr/inverse, F_r mul,
// F_p2 mul, F_p12 mul. Each loop feeds its result back as an operand so the
// measured time is the latency of one dependent operation. Every benchmark
// runs twice, /mulx:0 on the portable C++ product and /mulx:1 on the
// mulx/adcx/adox one (ff/mulx.hpp; the same as /mulx:0 on a CPU without
// BMI2/ADX), so both paths are measured in the same run.
#include <benchmark/benchmark.h>

#include <random>

#include "ff/ff.hpp"

namespace starzk {
namespace {

// Arg 0: portable product, 1: mulx (where the CPU has it).
void pick_path(benchmark::State& state) {
  const bool fast = ff_path::set_fast(state.range(0) != 0);
  state.SetLabel(fast ? "mulx" : "portable");
}

template <class T>
void bench_mul(benchmark::State& state) {
  pick_path(state);
  std::mt19937_64 rng(1);
  T a = T::random(rng);
  const T b = T::random(rng);
  for (auto _ : state) {
    a = a * b;
    benchmark::DoNotOptimize(a);
  }
}

// Throughput: 8 independent products per iteration (as in a batch of
// point additions or NTT butterflies); the counter "per_mul" is the CPU
// time of one product when the core overlaps them.
template <class T>
void bench_mul_x8(benchmark::State& state) {
  pick_path(state);
  std::mt19937_64 rng(4);
  T a[8];
  for (auto& x : a) x = T::random(rng);
  const T b = T::random(rng);
  for (auto _ : state) {
    for (auto& x : a) x = x * b;
    benchmark::DoNotOptimize(a);
  }
  state.counters["per_mul"] =
      benchmark::Counter(8, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void bm_fp_mul(benchmark::State& s) { bench_mul<fp_t>(s); }
void bm_fp_mul_x8(benchmark::State& s) { bench_mul_x8<fp_t>(s); }
void bm_fr_mul_x8(benchmark::State& s) { bench_mul_x8<fr_t>(s); }
void bm_fr_mul(benchmark::State& s) { bench_mul<fr_t>(s); }
void bm_fp2_mul(benchmark::State& s) { bench_mul<fp2_t>(s); }
void bm_fp12_mul(benchmark::State& s) { bench_mul<fp12_t>(s); }

void bm_fp_sqr(benchmark::State& state) {
  pick_path(state);
  std::mt19937_64 rng(2);
  fp_t a = fp_t::random(rng);
  for (auto _ : state) {
    a = a.sqr();
    benchmark::DoNotOptimize(a);
  }
}

void bm_fp_inverse(benchmark::State& state) {
  pick_path(state);
  std::mt19937_64 rng(3);
  fp_t a = fp_t::random(rng);
  for (auto _ : state) {
    a = a.inverse() + fp_t::one();  // + 1 keeps a nonzero with overwhelming odds
    benchmark::DoNotOptimize(a);
  }
}

BENCHMARK(bm_fp_mul)->ArgName("mulx")->Arg(0)->Arg(1);
BENCHMARK(bm_fp_mul_x8)->ArgName("mulx")->Arg(0)->Arg(1);
BENCHMARK(bm_fr_mul_x8)->ArgName("mulx")->Arg(0)->Arg(1);
BENCHMARK(bm_fp_sqr)->ArgName("mulx")->Arg(0)->Arg(1);
BENCHMARK(bm_fp_inverse)->ArgName("mulx")->Arg(0)->Arg(1);
BENCHMARK(bm_fr_mul)->ArgName("mulx")->Arg(0)->Arg(1);
BENCHMARK(bm_fp2_mul)->ArgName("mulx")->Arg(0)->Arg(1);
BENCHMARK(bm_fp12_mul)->ArgName("mulx")->Arg(0)->Arg(1);

}  // namespace
}  // namespace starzk
