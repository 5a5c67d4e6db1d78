// Benchmarks of the CPU NTT (starzk_ntt): forward transform at 2^16 and 2^20
// on all cores, the inverse at 2^20, and one full H phase per convention at
// 2^16 (7 resp. 6 transforms of three vectors), and the bit-reversal
// permutation alone at 2^14, 2^16 and 2^20. Items/s counts butterflies
// for the transforms: (n/2)·log2(n) per call.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ntt/h_phase.hpp"
#include "ntt/ntt.hpp"

namespace starzk {
namespace {

std::vector<fr_t> random_vector(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<fr_t> v(n);
  for (auto& x : v) x = fr_t::random(g);
  return v;
}

void bm_ntt(benchmark::State& state) {
  const unsigned k = unsigned(state.range(0));
  const domain_t d(k);
  auto v = random_vector(d.size(), 1);
  for (auto _ : state) {
    ntt(v, d);
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(d.size() / 2) * k);
}
BENCHMARK(bm_ntt)->Arg(16)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();

void bm_intt(benchmark::State& state) {
  const unsigned k = unsigned(state.range(0));
  const domain_t d(k);
  auto v = random_vector(d.size(), 2);
  for (auto _ : state) {
    intt(v, d);
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(d.size() / 2) * k);
}
BENCHMARK(bm_intt)->Arg(16)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();

void bm_bit_reverse(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  auto v = random_vector(n, 5);
  for (auto _ : state) {
    bit_reverse_permute(v);
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}
BENCHMARK(bm_bit_reverse)->Arg(14)->Arg(16)->Arg(20)->Unit(benchmark::kMicrosecond)->UseRealTime();

template <bool snarkjs>
void bm_h_phase(benchmark::State& state) {
  const unsigned k = unsigned(state.range(0));
  const size_t n = size_t(1) << k;
  const auto a0 = random_vector(n, 3), b0 = random_vector(n, 4);
  std::vector<fr_t> c0(n);
  for (size_t i = 0; i < n; ++i) c0[i] = a0[i] * b0[i];
  const domain_t d(k, snarkjs ? root_convention_t::snarkjs : root_convention_t::bellman);
  for (auto _ : state) {
    state.PauseTiming();
    auto a = a0, b = b0, c = c0;
    state.ResumeTiming();
    if constexpr (snarkjs)
      h_phase_snarkjs(a, b, c, d);
    else
      h_phase_bellman(a, b, c, d);
    benchmark::DoNotOptimize(a.data());
  }
}
BENCHMARK(bm_h_phase<false>)->Name("bm_h_phase_bellman")->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(bm_h_phase<true>)->Name("bm_h_phase_snarkjs")->Arg(14)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace starzk
