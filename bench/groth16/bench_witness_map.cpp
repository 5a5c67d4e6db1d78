// The CPU witness map of a Filecoin-shaped circuit (src/gen: 2^k rows,
// ~2.4 / 1.0 / 2.2 terms per row in A / B / C, a witness of ~99% bits,
// coded coefficients), on all cores:
//   bm_spmv_products   a = A·w, b = B·w, c = C·w with a product per term
//                      (spmv_multiply_all: the form before the shortcut)
//   bm_spmv_bits       the same with witness_kinds and the 0/1 shortcut
//   bm_check_rows      first_unsatisfied_qap_row over the constraint rows
//   bm_rows_checked    spmv_rows_checked: the three SpMVs row by row with
//                      the check fused (what the CPU witness map task runs)
// Items/s counts terms (nnz of A + B + C) for the SpMVs, rows for the check.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "gen/filecoin_shape.hpp"
#include "groth16/witness_map.hpp"

namespace starzk {
namespace {

struct case_t {
  r1cs_t cs;
  std::vector<fr_t> w, a, b, c;
  uint64_t nnz = 0;
};

// One circuit and witness per size, made once (generation takes seconds).
const case_t& get(unsigned k) {
  static std::map<unsigned, std::unique_ptr<case_t>> cases;
  auto& slot = cases[k];
  if (!slot) {
    slot = std::make_unique<case_t>();
    const gen_params_t params{.log2_constraints = k, .n_public = 8, .seed = 7};
    slot->cs = generate_circuit(params);
    slot->w = generate_witness(params, slot->cs, 0);
    const uint64_t n = domain_size_for(slot->cs);
    slot->a.resize(n);
    slot->b.resize(n);
    slot->c.resize(n);
    slot->nnz = slot->cs.a.nnz() + slot->cs.b.nnz() + slot->cs.c.nnz();
  }
  return *slot;
}

void bm_spmv_products(benchmark::State& state) {
  const case_t& k = get(unsigned(state.range(0)));
  auto& m = const_cast<case_t&>(k);
  for (auto _ : state) {
    spmv_multiply_all(k.cs.a, k.w, m.a);
    spmv_multiply_all(k.cs.b, k.w, m.b);
    spmv_multiply_all(k.cs.c, k.w, m.c);
    benchmark::DoNotOptimize(m.c.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(k.nnz));
}

void bm_spmv_bits(benchmark::State& state) {
  const case_t& k = get(unsigned(state.range(0)));
  auto& m = const_cast<case_t&>(k);
  for (auto _ : state) {
    const std::vector<uint8_t> kinds = witness_kinds(k.w);
    spmv(k.cs.a, k.w, kinds, m.a);
    spmv(k.cs.b, k.w, kinds, m.b);
    spmv(k.cs.c, k.w, kinds, m.c);
    benchmark::DoNotOptimize(m.c.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(k.nnz));
}

void bm_check_rows(benchmark::State& state) {
  const case_t& k = get(unsigned(state.range(0)));
  auto& m = const_cast<case_t&>(k);
  const std::vector<uint8_t> kinds = witness_kinds(k.w);
  spmv(k.cs.a, k.w, kinds, m.a);
  spmv(k.cs.b, k.w, kinds, m.b);
  spmv(k.cs.c, k.w, kinds, m.c);
  for (auto _ : state) {
    const auto row = first_unsatisfied_qap_row(k.a, k.b, k.c, k.cs.n_constraints);
    if (row) state.SkipWithError("the generated witness breaks a constraint");
    benchmark::DoNotOptimize(row);
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(k.cs.n_constraints));
}

void bm_rows_checked(benchmark::State& state) {
  const case_t& k = get(unsigned(state.range(0)));
  auto& m = const_cast<case_t&>(k);
  for (auto _ : state) {
    const auto row = spmv_rows_checked(k.cs, k.w, witness_kinds(k.w), m.a, m.b, m.c);
    if (row) state.SkipWithError("the generated witness breaks a constraint");
    benchmark::DoNotOptimize(m.c.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(k.nnz));
}

BENCHMARK(bm_spmv_products)->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(bm_spmv_bits)->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(bm_check_rows)->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(bm_rows_checked)->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace starzk
