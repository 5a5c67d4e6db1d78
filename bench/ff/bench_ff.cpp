// Micro-benchmarks of the CPU field arithmetic: F_p mul/sqr/inverse, F_r mul,
// F_p2 mul, F_p12 mul. Each loop feeds its result back as an operand so the
// measured time is the latency of one dependent operation.
#include <benchmark/benchmark.h>

#include <random>

#include "ff/ff.hpp"

namespace starzk {
namespace {

template <class T>
void bench_mul(benchmark::State& state) {
  std::mt19937_64 rng(1);
  T a = T::random(rng);
  const T b = T::random(rng);
  for (auto _ : state) {
    a = a * b;
    benchmark::DoNotOptimize(a);
  }
}

void bm_fp_mul(benchmark::State& s) { bench_mul<fp_t>(s); }
void bm_fr_mul(benchmark::State& s) { bench_mul<fr_t>(s); }
void bm_fp2_mul(benchmark::State& s) { bench_mul<fp2_t>(s); }
void bm_fp12_mul(benchmark::State& s) { bench_mul<fp12_t>(s); }

void bm_fp_sqr(benchmark::State& state) {
  std::mt19937_64 rng(2);
  fp_t a = fp_t::random(rng);
  for (auto _ : state) {
    a = a.sqr();
    benchmark::DoNotOptimize(a);
  }
}

void bm_fp_inverse(benchmark::State& state) {
  std::mt19937_64 rng(3);
  fp_t a = fp_t::random(rng);
  for (auto _ : state) {
    a = a.inverse() + fp_t::one();  // + 1 keeps a nonzero with overwhelming odds
    benchmark::DoNotOptimize(a);
  }
}

BENCHMARK(bm_fp_mul);
BENCHMARK(bm_fp_sqr);
BENCHMARK(bm_fp_inverse);
BENCHMARK(bm_fr_mul);
BENCHMARK(bm_fp2_mul);
BENCHMARK(bm_fp12_mul);

}  // namespace
}  // namespace starzk
