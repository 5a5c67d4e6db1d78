// Micro-benchmarks of the BLS12-381 pairing on one CPU core: the Miller
// loop, the final exponentiation (and its hard part alone), one full
// pairing, and the 4-pair multi-pairing of a Groth16 verification (one shared
// Miller loop, one final exponentiation), with G2 points prepared or not.
// The 4 single pairings are timed too, so the saving of the shared loop and
// single exponentiation is visible side by side.
//
//   build-<name>/bench/pairing/bench_pairing [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "pairing/pairing.hpp"

namespace starzk {
namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 g(0xbe4c'9a12ull);
  return g;
}
g1_affine_t random_g1() { return mul(g1_affine_t::generator(), fr_t::random(rng())).to_affine(); }
g2_affine_t random_g2() { return mul(g2_affine_t::generator(), fr_t::random(rng())).to_affine(); }

void BM_miller_loop(benchmark::State& st) {
  const g1_affine_t p = random_g1();
  const g2_affine_t q = random_g2();
  for (auto _ : st) benchmark::DoNotOptimize(miller_loop(p, q));
}
BENCHMARK(BM_miller_loop)->Unit(benchmark::kMicrosecond);

void BM_miller_loop_prepared(benchmark::State& st) {
  const g1_affine_t p = random_g1();
  const g2_prepared_t q = g2_prepared_t::prepare(random_g2());
  for (auto _ : st)
    benchmark::DoNotOptimize(multi_miller_loop(std::span(&p, 1), std::span<const g2_prepared_t>(&q, 1)));
}
BENCHMARK(BM_miller_loop_prepared)->Unit(benchmark::kMicrosecond);

void BM_g2_prepare(benchmark::State& st) {
  const g2_affine_t q = random_g2();
  for (auto _ : st) benchmark::DoNotOptimize(g2_prepared_t::prepare(q));
}
BENCHMARK(BM_g2_prepare)->Unit(benchmark::kMicrosecond);

void BM_final_exponentiation(benchmark::State& st) {
  const fp12_t f = miller_loop(random_g1(), random_g2());
  for (auto _ : st) benchmark::DoNotOptimize(final_exponentiation(f));
}
BENCHMARK(BM_final_exponentiation)->Unit(benchmark::kMicrosecond);

void BM_final_exponentiation_hard(benchmark::State& st) {
  const fp12_t m = final_exponentiation_easy(miller_loop(random_g1(), random_g2()));
  for (auto _ : st) benchmark::DoNotOptimize(final_exponentiation_hard(m));
}
BENCHMARK(BM_final_exponentiation_hard)->Unit(benchmark::kMicrosecond);

void BM_pairing(benchmark::State& st) {
  const g1_affine_t p = random_g1();
  const g2_affine_t q = random_g2();
  for (auto _ : st) benchmark::DoNotOptimize(pairing(p, q));
}
BENCHMARK(BM_pairing)->Unit(benchmark::kMicrosecond);

struct four_pairs_t {
  std::vector<g1_affine_t> ps;
  std::vector<g2_affine_t> qs;
  four_pairs_t() {
    for (int i = 0; i < 4; ++i) {
      ps.push_back(random_g1());
      qs.push_back(random_g2());
    }
  }
};

void BM_multi_pairing_4(benchmark::State& st) {
  const four_pairs_t in;
  for (auto _ : st) benchmark::DoNotOptimize(multi_pairing(in.ps, in.qs));
}
BENCHMARK(BM_multi_pairing_4)->Unit(benchmark::kMicrosecond);

// Groth16 with a fixed key: 3 of the 4 G2 points (β, γ, δ) prepared once;
// B is prepared per proof inside the loop, as a verifier would.
void BM_multi_pairing_4_prepared(benchmark::State& st) {
  const four_pairs_t in;
  std::vector<g2_prepared_t> prepared;
  for (const g2_affine_t& q : in.qs) prepared.push_back(g2_prepared_t::prepare(q));
  for (auto _ : st) {
    prepared[0] = g2_prepared_t::prepare(in.qs[0]);
    benchmark::DoNotOptimize(
        multi_pairing(std::span<const g1_affine_t>(in.ps), std::span<const g2_prepared_t>(prepared)));
  }
}
BENCHMARK(BM_multi_pairing_4_prepared)->Unit(benchmark::kMicrosecond);

void BM_four_single_pairings(benchmark::State& st) {
  const four_pairs_t in;
  for (auto _ : st) {
    fp12_t acc = fp12_t::one();
    for (int i = 0; i < 4; ++i) acc *= pairing(in.ps[i], in.qs[i]);
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(BM_four_single_pairings)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace starzk

BENCHMARK_MAIN();
