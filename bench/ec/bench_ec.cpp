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
// time on AVX-512 IFMA ("_x8"). Beside them, at 2^16 G1 points (2^14 G2)
// on one thread: the same per-point scan and the batched randomized test
// that key validation runs instead (msm/batch_membership.hpp), whole and on
// G1 as its parts A (cubic characters) and B (random combinations), with
// the IFMA lanes ("_x8") or without, the OS's randomness as its source. Run:
//   build/bench/ec/bench_ec --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <initializer_list>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "ec/subgroup.hpp"
#include "ec/xyzz.hpp"
#include "ff/fp_x8_ifma.hpp"
#include "msm/batch_membership.hpp"
#include "util/os_random.hpp"

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
// The IFMA lanes on or off for one benchmark, restored after it; ok() is
// false (and the benchmark skipped) where they are asked for and the CPU
// has none.
class wide_path_t {
 public:
  wide_path_t(benchmark::State& st, bool wide) : was_(ff_path::wide()) {
    if (wide && !ff_path::cpu_has_ifma()) {
      st.SkipWithError("CPU without AVX-512 IFMA");
      ok_ = false;
      return;
    }
    ff_path::set_wide(wide);
  }
  ~wide_path_t() { ff_path::set_wide(was_); }
  bool ok() const { return ok_; }

 private:
  bool was_, ok_ = true;
};

// The counter "per_point": the time per point of n points an iteration.
void count_per_point(benchmark::State& st, size_t n) {
  st.counters["per_point"] = benchmark::Counter(double(st.iterations()) * double(n),
                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class P, bool wide>
void bm_subgroup_batch(benchmark::State& st) {
  const wide_path_t path(st, wide);
  if (!path.ok()) return;
  std::vector<affine_t<P>> v(1024);
  for (auto& p : v) p = random_point<P>();
  for (auto _ : st) benchmark::DoNotOptimize(first_outside_subgroup(std::span<const affine_t<P>>(v), 1));
  count_per_point(st, v.size());
}

// n subgroup points for the 2^16 runs: a walk of additions of random
// subgroup points, made affine in one batch (a scalar multiplication each
// would take longer than the runs).
template <class P>
std::vector<affine_t<P>> walk(size_t n) {
  std::vector<jacobian_t<P>> j(n);
  jacobian_t<P> acc = jacobian_t<P>::from_affine(random_point<P>());
  std::vector<affine_t<P>> step(16);
  for (auto& p : step) p = random_point<P>();
  for (size_t i = 0; i < n; ++i) j[i] = acc = acc.add_mixed(step[rng()() % step.size()]);
  std::vector<affine_t<P>> out(n);
  jacobian_t<P>::batch_to_affine(j, out);
  return out;
}

// n points (the argument), one thread: the per-point scan
// (first_outside_subgroup), all_in_g1 / all_in_g2, and on G1 its part A
// and its part B; wide: the IFMA lanes on (the scan eight points per
// walk, part B's buckets in lanes) or off. "per_point" is the time per
// point. 2^16 points (G1) or 2^14 (G2), and 2^11 (where key validation
// starts to take the batched test) for the scan and the whole test.
enum class check_t { scan, batched, part_a, part_b };
template <class P, check_t what, bool wide>
void bm_membership(benchmark::State& st) {
  const wide_path_t path(st, wide);
  if (!path.ok()) return;
  static const std::vector<affine_t<P>> all = walk<P>(size_t(1) << 16);
  const std::span<const affine_t<P>> pts = std::span<const affine_t<P>>(all).first(size_t(st.range(0)));
  const random_fill_t fill = fill_random;
  const membership_config_t cfg{.threads = 1, .lanes = wide};
  bool ok = true;
  for (auto _ : st) {
    if constexpr (what == check_t::scan) {
      ok = !first_outside_subgroup(pts, 1).has_value();
    } else if constexpr (std::is_same_v<P, g2_params>) {
      ok = all_in_g2(pts, fill, cfg);
    } else if constexpr (what == check_t::batched) {
      ok = all_in_g1(pts, fill, cfg);
    } else if constexpr (what == check_t::part_a) {
      ok = three_components_zero(pts, fill, 1);
    } else {
      ok = random_sums_in_g1(pts, fill, cfg);
    }
    benchmark::DoNotOptimize(ok);
  }
  if (!ok) st.SkipWithError("a subgroup set was refused");
  count_per_point(st, pts.size());
}

// bm_membership with the lanes on ("NAME_x8") and off ("NAME") at each size.
template <class P, check_t what>
int register_membership(const std::string& name, std::initializer_list<int64_t> sizes) {
  for (const bool wide : {true, false}) {
    benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
        (name + (wide ? "_x8" : "")).c_str(), wide ? bm_membership<P, what, true> : bm_membership<P, what, false>);
    for (const int64_t n : sizes) b->Arg(n);
    b->Unit(benchmark::kMillisecond);
  }
  return 0;
}

[[maybe_unused]] const int membership_registered =
    register_membership<g1_params, check_t::scan>("g1_scan", {1 << 16, 1 << 11}) +
    register_membership<g1_params, check_t::batched>("g1_all_in_g1", {1 << 16, 1 << 11}) +
    register_membership<g1_params, check_t::part_a>("g1_all_in_g1_part_a", {1 << 16}) +
    register_membership<g1_params, check_t::part_b>("g1_all_in_g1_part_b", {1 << 16}) +
    register_membership<g2_params, check_t::scan>("g2_scan", {1 << 14, 1 << 11}) +
    register_membership<g2_params, check_t::batched>("g2_all_in_g2", {1 << 14, 1 << 11});

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
