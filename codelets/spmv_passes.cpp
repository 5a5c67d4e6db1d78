// spmv_passes.cpp: the witness map for a GPU that cannot hold the circuit's
// CSR arrays beside a, b, c (docs/gpu.md, Memory plan: at 2^27 ~7.7 GB of
// coded CSR and 12 GiB of a, b, c against a 16-24 GB card). The same task
// and result as spmv (a = A·w, b = B·w, c = C·w), with its data where the
// memory plan keeps them: w (buffer 0) goes where the task runs, as for
// spmv, and stays on the GPU for the MSMs; a, b, c (buffers 1-3) stay in
// main memory for every worker (StarPU's specific nodes; the batch's
// witness pool gives them, page-locked), a excepted where the H phase in
// passes finds it on the device (STARZK_H_PASSES_A_ON_DEVICE: a is then
// written there and never crosses PCIe); the matrices are no buffers at
// all: like a streamed MSM query, the CUDA body copies them from the key's
// host arrays (page-locked by the key for this plan, dag/key_bundle.cpp).
//
// A second codelet, spmv_dev, is the same map for a GPU that holds w, a,
// b, c but not the CSR beside them (a 2^27 partition on a 24 GB card: 16
// GiB of w, a, b, c, 4 GiB of NTT domain): a, b, c are written on the
// device where the task runs and stay there for ntt_h, so that nothing of
// them crosses PCIe (24 GiB per 2^27 partition with spmv_passes: out, then
// back in for the H phase). Its tasks carry the name spmv_passes (the same
// phase in traces); the memory plan picks it (dag/key_residency.hpp,
// rows_stay), and the DAG gives the GPU's scratch back when a worker takes
// one (dag/partition_dag.cpp), so that a, b, c find room beside the
// chain's data.
//
// The CUDA body runs gpu::witness_map_pieces: pieces of 2^22 rows (fewer
// where the worker's scratch allows less), each piece's CSR slice in and
// its a, b, c out over PCIe, two pieces in flight, and the constraint
// check of the CPU body on the device: a fraction of the time the CPU body
// takes on all the machine's cores (docs/benchmarks.md, "The witness map
// in pieces"), for ~20 GB over PCIe at 2^27. When no scratch can be had
// the body maps on the host (stderr says so once). The memory plan picks
// this codelet (dag/partition_dag.cpp, witness_map_codelet); its model is
// its own, since its time includes the copies.
#include <starpu.h>

#include <atomic>

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

// spmv's problem size: the domain size in the high bits, the nonzeros.
uint64_t spmv_passes_size(const starpu_task* task) {
  const auto& p = *static_cast<const partition_state_t*>(task->cl_arg);
  return (uint64_t(p.key.pk->domain_size) << 40) ^ uint64_t(spmv_flops(p));
}

void map_on_host(partition_state_t& p, void* buffers[]) {
  witness_map_into(*p.key.pk, p.key.cs, p.w, detail::fr_span(buffers[1]), detail::fr_span(buffers[2]),
                   detail::fr_span(buffers[3]), p.memory_threads());
}

void spmv_passes_cpu(void* buffers[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "spmv_passes", [&] {
    detail::expect_home(buffers[0], p.w.data(), "w");
    map_on_host(p, buffers);
  });
}

#if STARZK_CODELETS_CUDA
// Pieces of 2^22 rows (a few hundred MiB of buffers per piece at Filecoin's
// density), halved while the scratch does not allow them, down to 2^14.
constexpr uint64_t largest_piece = uint64_t(1) << 22, smallest_piece = uint64_t(1) << 14;

gpu::csr_view_t host_view(const sparse_matrix_t& m) {
  gpu::csr_view_t v{m.row_ptr.data(), m.col.data(), nullptr, m.n_rows};
  if (m.coded()) {
    v.code = m.code.data();
    v.dict = m.dict.data();
    v.dict_size = m.dict.size();
  } else {
    v.val = m.val.data();
  }
  return v;
}

// The job over the key's host matrices, without its outputs.
gpu::witness_map_host_t host_job(const key_view_t& key) {
  const proving_key_t& pk = *key.pk;
  gpu::witness_map_host_t job;
  job.conv = pk.convention;
  job.n = pk.domain_size;
  if (pk.convention == root_convention_t::snarkjs) {
    job.m[0] = host_view(pk.zkey_a);
    job.m[1] = host_view(pk.zkey_b);
  } else {
    const r1cs_t* cs = key.cs;
    if (cs == nullptr) throw std::invalid_argument("a bellman/Filecoin key needs the circuit");
    job.m[0] = host_view(cs->a);
    job.m[1] = host_view(cs->b);
    job.m[2] = host_view(cs->c);
    job.n_constraints = cs->n_constraints;
    job.n_public = cs->n_public;
  }
  return job;
}

// The map on the calling CUDA worker, a, b, c in main memory (spmv_passes)
// or on the device (spmv_dev); spmv_passes' a on the device where the H
// phase in passes finds it there (h_passes_a_on_device).
void map_on_device(partition_state_t& p, void* buffers[], bool rows_on_device) {
  const proving_key_t& pk = *p.key.pk;
  const uint64_t n = pk.domain_size;
  if (STARPU_VECTOR_GET_NX(buffers[0]) != pk.n_vars) throw std::invalid_argument("witness of the wrong length");
  gpu::witness_map_host_t job = host_job(p.key);
  const bool a_dev = !rows_on_device && h_passes_a_on_device();
  for (int r = 0; r < 3; ++r) job.out_on_device[r] = rows_on_device || (r == 0 && a_dev);
  for (int r = 0; r < 3; ++r) {
    const std::span<fr_t> row = detail::fr_span(buffers[1 + r]);
    if (row.size() != n) throw std::invalid_argument("a, b, c are not of the domain's size");
    job.out[r] = row.data();
  }
  void* scratch = nullptr;
  size_t need = 0;
  for (job.piece_rows = largest_piece; job.piece_rows >= smallest_piece; job.piece_rows /= 2) {
    need = gpu::witness_map_pieces_scratch_bytes(job);
    if (need == 0)
      throw std::invalid_argument("the key's matrices do not fit its domain, or their row offsets decrease");
    scratch = detail::try_worker_scratch(need, p.key.scratch_max >= need ? size_t(p.key.scratch_max) : need);
    if (scratch != nullptr) break;
  }
  if (scratch == nullptr) {
    // With a row on the device there is nothing to map it into on the
    // host: a device fault, which runs the partition again on the CPUs.
    if (rows_on_device || a_dev)
      throw std::runtime_error("no device memory for a piece of " + std::to_string(smallest_piece) + " rows");
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      report_note(p.label + ": spmv_passes: no device memory for a piece of " + std::to_string(smallest_piece) +
                  " rows; mapped on the host (said once)");
    map_on_host(p, buffers);
    return;
  }
  const auto* w = reinterpret_cast<const fr_t*>(STARPU_VECTOR_GET_PTR(buffers[0]));
  uint64_t first = UINT64_MAX;
  detail::check_cuda(gpu::witness_map_pieces(job, w, scratch, need, detail::worker_stream(), &first),
                     "gpu::witness_map_pieces");
  if (first != UINT64_MAX) throw_unsatisfied(first);
}

void spmv_passes_cuda(void* buffers[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "spmv_passes", [&] { map_on_device(p, buffers, false); });
}

void spmv_dev_cuda(void* buffers[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "spmv_passes", [&] { map_on_device(p, buffers, true); });
}
#endif

starpu_perfmodel spmv_passes_model, spmv_dev_model;

// The two codelets: a, b, c in main memory (StarPU's specific nodes) or
// where the task runs.
starpu_codelet make_codelet(bool rows_on_device) {
  starpu_codelet c;
  starpu_codelet_init(&c);
  detail::init_size_model<&spmv_passes_size>(rows_on_device ? spmv_dev_model : spmv_passes_model,
                                             rows_on_device ? "starzk_spmv_dev" : "starzk_spmv_passes");
  c.cpu_funcs[0] = spmv_passes_cpu;
  c.cpu_funcs_name[0] = "spmv_passes_cpu";
#if STARZK_CODELETS_CUDA
  c.cuda_funcs[0] = rows_on_device ? spmv_dev_cuda : spmv_passes_cuda;
  c.cuda_flags[0] = STARPU_CUDA_ASYNC;
#endif
  c.nbuffers = STARPU_VARIABLE_NBUFFERS;  // 4: w (R), a, b, c (W)
  if (!rows_on_device) {
    c.specific_nodes = 1;
    for (int i = 0; i < 4; ++i) c.nodes[i] = i == 0 ? STARPU_SPECIFIC_NODE_LOCAL : STARPU_SPECIFIC_NODE_CPU;
  }
  c.model = rows_on_device ? &spmv_dev_model : &spmv_passes_model;
  c.name = rows_on_device ? "spmv_dev" : "spmv_passes";
  c.color = rows_on_device ? detail::color_spmv_dev : detail::color_spmv_passes;
  return c;
}

}  // namespace

starpu_codelet* spmv_passes_codelet() {
  static starpu_codelet cl = make_codelet(false);
  static const bool declared = (starzk_codelet_set_class(&cl, STARZK_RC_MEMORY_HEAVY), true);
  (void)declared;
  return &cl;
}

starpu_codelet* spmv_dev_codelet() {
  static starpu_codelet cl = make_codelet(true);
  static const bool declared = (starzk_codelet_set_class(&cl, STARZK_RC_MEMORY_HEAVY), true);
  (void)declared;
  return &cl;
}

uint64_t spmv_dev_scratch_bytes(const key_view_t& key) {
#if STARZK_CODELETS_CUDA
  gpu::witness_map_host_t job = host_job(key);
  for (bool& on : job.out_on_device) on = true;
  job.piece_rows = largest_piece;
  for (fr_t*& out : job.out) out = reinterpret_cast<fr_t*>(uintptr_t(256));  // sizing only: never read
  return gpu::witness_map_pieces_scratch_bytes(job);
#else
  (void)key;
  return 0;
#endif
}

}  // namespace starzk::codelets
