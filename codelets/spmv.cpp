// spmv.cpp: the witness-map codelet (DESIGN §2 step 1), a = A·w, b = B·w,
// c = C·w, from the witness and the circuit's (bellman key) or the key's
// (snarkjs key) sparse matrices. Memory-bandwidth bound: each nonzero reads
// a 4-byte column, a 32-byte value and a random 32-byte witness entry for
// one F_r multiplication, so the policies cap how many run at once
// (STARZK_RC_MEMORY_HEAVY).
//
// Buffers: 0 w (R), 1 a (W), 2 b (W), 3 c (W), then for each matrix used
// its row_ptr, col, val arrays (R): 3 matrices (A, B, C of the circuit) for
// a bellman key, 2 (the .zkey's A and B) for a snarkjs key; hence
// STARPU_VARIABLE_NBUFFERS. The CPU body calls witness_map_into
// (groth16's spmv plus the input rows). Work: nnz multiplications
// (+ n for the snarkjs a∘b).
#include <starpu.h>

#include "codelets/codelet_common.hpp"
#include "codelets/codelets.hpp"
#include "codelets/witness_map_into.hpp"
#include "policies/resource_class.h"

namespace starzk::codelets {

namespace {

uint64_t matrix_nnz(const partition_state_t& p) {
  const proving_key_t& pk = *p.key.pk;
  if (pk.convention == h_convention_t::snarkjs_odd_coset) return pk.zkey_a.nnz() + pk.zkey_b.nnz() + pk.domain_size;
  return p.key.cs ? p.key.cs->a.nnz() + p.key.cs->b.nnz() + p.key.cs->c.nnz() : 0;
}

// Problem size: the multiplications, plus the domain size in the high bits.
uint64_t spmv_size(const starpu_task* task) {
  const auto& p = *static_cast<const partition_state_t*>(task->cl_arg);
  return (uint64_t(p.key.pk->domain_size) << 40) ^ matrix_nnz(p);
}

void spmv_cpu(void* buffers[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "spmv", [&] {
    detail::expect_home(buffers[0], p.w.data(), "w");
    detail::expect_home(buffers[1], p.a.data(), "a");
    detail::expect_home(buffers[2], p.b.data(), "b");
    detail::expect_home(buffers[3], p.c.data(), "c");
    witness_map_into(*p.key.pk, p.key.cs, p.w, p.a, p.b, p.c, p.threads);
  });
}

starpu_perfmodel spmv_model;  // zero-initialised, filled once below

}  // namespace

double spmv_flops(const partition_state_t& p) { return double(matrix_nnz(p)); }

starpu_codelet* spmv_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    starpu_codelet_init(&c);
    detail::init_size_model<&spmv_size>(spmv_model, "starzk_spmv");
    c.cpu_funcs[0] = spmv_cpu;
    c.cpu_funcs_name[0] = "spmv_cpu";
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;
    c.model = &spmv_model;
    c.name = "spmv";
    c.color = detail::color_spmv;
    return c;
  }();
  static const bool declared = (starzk_codelet_set_class(&cl, STARZK_RC_MEMORY_HEAVY), true);
  (void)declared;
  return &cl;
}

}  // namespace starzk::codelets
