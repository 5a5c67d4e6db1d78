// Micro-benchmarks of the BLS12-381 curve layer on the CPU.
//
// What the MSM and the prover lean on: the G1 mixed addition in both bucket
// forms (Jacobian madd-2007-bl, 7M + 4S; XYZZ madd-2008-s, 8M + 2S), the G1
// doubling, the G2 general and mixed additions, scalar multiplication on G1
// and G2 (4-bit windows), and the subgroup checks a key loader runs per
// point. Each loop feeds its result back in, so iterations are dependent and
// the figure is latency per operation. The subgroup checks are timed in
// three forms: the library's (fixed chains of |x|), the generic
// double-and-add form it replaced (mul_u64 over the bits of |x|, kept here
// for the before/after comparison), and the batched entry point over 1024
// points (time per point, one thread), one point at a time and eight at a
// time on AVX-512 IFMA ("_x8"). Run:
//   build/bench/ec/bench_ec --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "ec/subgroup.hpp"
#include "ec/xyzz.hpp"
#include "ff/fp_x8_ifma.hpp"

namespace starzk {
namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 g(42);
  return g;
}

template <class P>
affine_t<P> random_point() {
  return mul(affine_t<P>::generator(), fr_t::random(rng())).to_affine();
}

template <class P>
void bm_add_mixed_jacobian(benchmark::State& st) {
  const affine_t<P> q = random_point<P>();
  jacobian_t<P> acc = jacobian_t<P>::from_affine(random_point<P>()).dbl();
  for (auto _ : st) {
    acc = acc.add_mixed(q);
    benchmark::DoNotOptimize(acc);
  }
}

template <class P>
void bm_add_mixed_xyzz(benchmark::State& st) {
  const affine_t<P> q = random_point<P>();
  xyzz_t<P> acc = xyzz_t<P>::from_jacobian(jacobian_t<P>::from_affine(random_point<P>()).dbl());
  for (auto _ : st) {
    acc = acc.add_mixed(q);
    benchmark::DoNotOptimize(acc);
  }
}

template <class P>
void bm_add_jacobian(benchmark::State& st) {
  const jacobian_t<P> q = jacobian_t<P>::from_affine(random_point<P>()).dbl();
  jacobian_t<P> acc = jacobian_t<P>::from_affine(random_point<P>()).dbl();
  for (auto _ : st) {
    acc = acc.add(q);
    benchmark::DoNotOptimize(acc);
  }
}

template <class P>
void bm_add_xyzz(benchmark::State& st) {
  const xyzz_t<P> q = xyzz_t<P>::from_jacobian(jacobian_t<P>::from_affine(random_point<P>()).dbl());
  xyzz_t<P> acc = xyzz_t<P>::from_jacobian(jacobian_t<P>::from_affine(random_point<P>()).dbl());
  for (auto _ : st) {
    acc = acc.add(q);
    benchmark::DoNotOptimize(acc);
  }
}

template <class P>
void bm_dbl_jacobian(benchmark::State& st) {
  jacobian_t<P> acc = jacobian_t<P>::from_affine(random_point<P>());
  for (auto _ : st) {
    acc = acc.dbl();
    benchmark::DoNotOptimize(acc);
  }
}

template <class P>
void bm_mul(benchmark::State& st) {
  affine_t<P> p = random_point<P>();
  const fr_t s = fr_t::random(rng());
  for (auto _ : st) {
    jacobian_t<P> r = mul(p, s);
    benchmark::DoNotOptimize(r);
  }
}

template <class P>
void bm_subgroup_check(benchmark::State& st) {
  const affine_t<P> p = random_point<P>();
  for (auto _ : st) benchmark::DoNotOptimize(p.is_in_subgroup());
}

template <class P>
void bm_subgroup_check_slow(benchmark::State& st) {
  const affine_t<P> p = random_point<P>();
  for (auto _ : st) benchmark::DoNotOptimize(p.is_in_subgroup_slow());
}

// The check before the fixed chains: generic double-and-add (a branch per
// bit of |x|; the second G1 multiplication with Jacobian additions).
bool subgroup_generic(const g1_affine_t& p) {
  if (p.is_infinity()) return true;
  if (!p.is_on_curve()) return false;
  return mul_u64(mul_u64(p, bls_x_abs), bls_x_abs).neg() == g1_jacobian_t::from_affine(phi(p));
}
bool subgroup_generic(const g2_affine_t& p) {
  if (p.is_infinity()) return true;
  if (!p.is_on_curve()) return false;
  return mul_u64(g2_jacobian_t::from_affine(p), bls_x_abs).neg() == g2_jacobian_t::from_affine(psi(p));
}

template <class P>
void bm_subgroup_check_generic(benchmark::State& st) {
  const affine_t<P> p = random_point<P>();
  for (auto _ : st) benchmark::DoNotOptimize(subgroup_generic(p));
}

// first_outside_subgroup over 1024 subgroup points on one thread, one point
// at a time (wide = false) or eight per AVX-512 IFMA walk (wide = true,
// where the CPU has it; ec/subgroup_x8.cpp); the counter "per_point" is the
// time per point.
template <class P, bool wide>
void bm_subgroup_batch(benchmark::State& st) {
  if (wide && !ff_path::cpu_has_ifma()) {
    st.SkipWithError("CPU without AVX-512 IFMA");
    return;
  }
  const bool was = ff_path::wide();
  ff_path::set_wide(wide);
  std::vector<affine_t<P>> v(1024);
  for (auto& p : v) p = random_point<P>();
  for (auto _ : st) benchmark::DoNotOptimize(first_outside_subgroup(std::span<const affine_t<P>>(v), 1));
  st.counters["per_point"] = benchmark::Counter(double(st.iterations()) * double(v.size()),
                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  ff_path::set_wide(was);
}

BENCHMARK(bm_add_mixed_jacobian<g1_params>)->Name("g1_add_mixed_jacobian");
BENCHMARK(bm_add_mixed_xyzz<g1_params>)->Name("g1_add_mixed_xyzz");
BENCHMARK(bm_add_jacobian<g1_params>)->Name("g1_add_jacobian");
BENCHMARK(bm_add_xyzz<g1_params>)->Name("g1_add_xyzz");
BENCHMARK(bm_dbl_jacobian<g1_params>)->Name("g1_dbl_jacobian");
BENCHMARK(bm_dbl_jacobian<g2_params>)->Name("g2_dbl_jacobian");
BENCHMARK(bm_add_jacobian<g2_params>)->Name("g2_add_jacobian");
BENCHMARK(bm_add_mixed_jacobian<g2_params>)->Name("g2_add_mixed_jacobian");
BENCHMARK(bm_add_mixed_xyzz<g2_params>)->Name("g2_add_mixed_xyzz");
BENCHMARK(bm_mul<g1_params>)->Name("g1_mul")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_mul<g2_params>)->Name("g2_mul")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_subgroup_check<g1_params>)->Name("g1_subgroup_check")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_subgroup_check<g2_params>)->Name("g2_subgroup_check")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_subgroup_check_generic<g1_params>)->Name("g1_subgroup_check_generic")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_subgroup_check_generic<g2_params>)->Name("g2_subgroup_check_generic")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_subgroup_batch<g1_params, false>)->Name("g1_subgroup_batch_1024")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_subgroup_batch<g1_params, true>)->Name("g1_subgroup_batch_1024_x8")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_subgroup_batch<g2_params, false>)->Name("g2_subgroup_batch_1024")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_subgroup_batch<g2_params, true>)->Name("g2_subgroup_batch_1024_x8")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_subgroup_check_slow<g1_params>)->Name("g1_subgroup_check_slow")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_subgroup_check_slow<g2_params>)->Name("g2_subgroup_check_slow")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace starzk
