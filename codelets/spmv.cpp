// spmv.cpp: the witness-map codelet (docs/prover.md step 1), a = A·w, b = B·w,
// c = C·w, from the witness and the circuit's (bellman key) or the key's
// (snarkjs key) sparse matrices. Memory-bandwidth bound: each nonzero reads
// a 4-byte column, its value (32 bytes plain, a 2-byte code into a cached
// dictionary coded) and a random 32-byte witness entry for one F_r
// multiplication, so the policies cap how many run at once
// (STARZK_RC_MEMORY_HEAVY).
//
// Buffers: 0 w (R), 1 a (W), 2 b (W), 3 c (W), then for each matrix used
// its row_ptr, col and val (plain) or code, dict (coded) arrays (R;
// codelets.hpp spmv_matrix_buffers): 3 matrices (A, B, C of the circuit)
// for a bellman key, 2 (the .zkey's A and B) for a snarkjs key; hence
// STARPU_VARIABLE_NBUFFERS. The CPU body calls witness_map_into
// (groth16's spmv plus the input rows). Work: nnz multiplications
// (+ n for the snarkjs a∘b).
//
// CUDA body: gpu::qap_rows_bellman / gpu::qap_rows_snarkjs on the device
// copies of w and of the CSR arrays, which StarPU keeps resident on the
// GPU between tasks (read-only key handles); a, b, c are produced on the
// device, where ntt_h reads them, and never cross PCIe when the chain runs
// on the same GPU. With a bellman key the body then checks every
// constraint row (gpu::first_unsatisfied_row), as the CPU body does. On a
// GPU the class still says memory_heavy, but the
// host-bandwidth cap only counts CPU workers (policies/engine.cpp).
#include <starpu.h>

#include "codelets/codelet_common.hpp"
#include "codelets/codelets.hpp"
#include "codelets/cuda_support.hpp"
#include "codelets/witness_map_into.hpp"
#include "policies/resource_class.h"

#if STARZK_CODELETS_CUDA
#include "cuda/starzk_cuda.hpp"
#endif

namespace starzk::codelets {

namespace {

uint64_t matrix_nnz(const partition_state_t& p) {
  const proving_key_t& pk = *p.key.pk;
  if (pk.convention == root_convention_t::snarkjs) return pk.zkey_a.nnz() + pk.zkey_b.nnz() + pk.domain_size;
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
    witness_map_into(*p.key.pk, p.key.cs, p.w, detail::fr_span(buffers[1]), detail::fr_span(buffers[2]),
                     detail::fr_span(buffers[3]), p.memory_threads());
  });
}

#if STARZK_CODELETS_CUDA
// The device views of the task's matrices, in buffer order (file comment):
// each take() consumes one matrix's buffers. finish() checks that the task
// had exactly those.
class csr_buffers_t {
 public:
  explicit csr_buffers_t(void* buffers[]) : buffers_(buffers) {}

  gpu::csr_view_t take(const sparse_matrix_t& m) {
    void** b = buffers_ + next_;
    next_ += spmv_matrix_buffers(m);
    if (next_ > unsigned(STARPU_TASK_GET_NBUFFERS(starpu_task_get_current())))
      throw std::invalid_argument("spmv task has too few matrix buffers");
    auto nx = [&](int i) { return uint64_t(STARPU_VECTOR_GET_NX(b[i])); };
    if (nx(0) < m.n_rows + 1) throw std::invalid_argument("CSR row_ptr too short");
    if (nx(1) < m.nnz() || nx(2) < m.nnz()) throw std::invalid_argument("CSR col or values too short");
    if (m.coded() && nx(3) != m.dict.size()) throw std::invalid_argument("CSR dictionary of the wrong length");
    auto ptr = [&](int i) { return reinterpret_cast<const void*>(STARPU_VECTOR_GET_PTR(b[i])); };
    gpu::csr_view_t v{static_cast<const uint64_t*>(ptr(0)), static_cast<const uint32_t*>(ptr(1)), nullptr, m.n_rows};
    if (m.coded()) {
      v.code = static_cast<const uint16_t*>(ptr(2));
      v.dict = static_cast<const fr_t*>(ptr(3));
    } else {
      v.val = static_cast<const fr_t*>(ptr(2));
    }
    return v;
  }
  void finish() const {
    if (next_ != unsigned(STARPU_TASK_GET_NBUFFERS(starpu_task_get_current())))
      throw std::invalid_argument("spmv task has more buffers than its matrices use");
  }

 private:
  void** buffers_;
  unsigned next_ = 4;  // after w, a, b, c
};

void spmv_cuda(void* buffers[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "spmv", [&] {
    const proving_key_t& pk = *p.key.pk;
    const uint64_t n = pk.domain_size;
    const auto* w = reinterpret_cast<const fr_t*>(STARPU_VECTOR_GET_PTR(buffers[0]));
    auto* a = reinterpret_cast<fr_t*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    auto* b = reinterpret_cast<fr_t*>(STARPU_VECTOR_GET_PTR(buffers[2]));
    auto* c = reinterpret_cast<fr_t*>(STARPU_VECTOR_GET_PTR(buffers[3]));
    if (STARPU_VECTOR_GET_NX(buffers[0]) != pk.n_vars || STARPU_VECTOR_GET_NX(buffers[1]) != n)
      throw std::invalid_argument("witness or rows of the wrong length");
    const cudaStream_t s = detail::worker_stream();
    if (pk.convention == root_convention_t::snarkjs) {
      if (pk.zkey_a.n_rows > n || pk.zkey_b.n_rows > n)
        throw std::invalid_argument("key matrices have more rows than its domain");
      csr_buffers_t mats(buffers);
      const gpu::csr_view_t za = mats.take(pk.zkey_a), zb = mats.take(pk.zkey_b);
      mats.finish();
      detail::check_cuda(gpu::qap_rows_snarkjs(a, b, c, n, za, zb, w, s), "gpu::qap_rows_snarkjs");
      return;
    }
    const r1cs_t* cs = p.key.cs;
    if (cs == nullptr) throw std::invalid_argument("a bellman/Filecoin key needs the circuit");
    if (uint64_t(cs->n_constraints) + cs->n_public + 1 > n)
      throw std::invalid_argument("the domain cannot hold the constraints and the input rows");
    csr_buffers_t mats(buffers);
    const gpu::csr_view_t ma = mats.take(cs->a), mb = mats.take(cs->b), mc = mats.take(cs->c);
    mats.finish();
    detail::check_cuda(gpu::qap_rows_bellman(a, b, c, n, ma, mb, mc, cs->n_constraints, cs->n_public, w, s),
                       "gpu::qap_rows_bellman");
    // The constraint check of the CPU body, on the device: one word comes
    // back, so the stream is waited on here (the witness map's time), and a
    // witness that breaks a row fails its partition before the H phase.
    auto* d_first = static_cast<uint64_t*>(detail::worker_scratch(sizeof(uint64_t)));
    detail::check_cuda(gpu::first_unsatisfied_row(a, b, c, cs->n_constraints, d_first, s),
                       "gpu::first_unsatisfied_row");
    uint64_t first = 0;
    detail::copy_to_host(&first, d_first, sizeof first);
    if (first != UINT64_MAX) throw_unsatisfied(first);
  });
}
#endif

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
#if STARZK_CODELETS_CUDA
    c.cuda_funcs[0] = spmv_cuda;
    c.cuda_flags[0] = STARPU_CUDA_ASYNC;
#endif
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;
    c.can_execute = detail::buffers_fit_device;
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
