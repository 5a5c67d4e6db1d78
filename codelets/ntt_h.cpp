// ntt_h.cpp: the H-phase codelet (docs/prover.md step 2), the first task of a
// partition's GPU chain (STARZK_RC_GPU_CHAIN). From the QAP rows a, b, c it
// leaves in a the scalars of the key's H query, in the key's convention
// (ntt/h_phase.hpp derives both):
//   bellman: iNTT; ×g^k; NTT; h = (a∘b − c)/(g^n − 1); coset iNTT
//            → coefficients of h, the first n − 1 used
//            (7 transforms of (n/2)·log2 n M, plus 6n M);
//   snarkjs: iNTT; ×ω_{2n}^k; NTT; h = a∘b − c
//            → P at the odd 2n-th roots, all n used
//            (6 transforms, plus 4n M).
// b and c are scratch afterwards.
//
// Buffers: 0 a, 1 b, 2 c (RW), 3 the key's device NTT domain (R: twiddle
// and coset tables, full or lean as the memory plan chose,
// dag/key_bundle.hpp; a one-element dummy without CUDA workers), and,
// where the DAG has a prep_msm task, 4 the partition's prep_msm result (R,
// not read: an ordering edge). The chain's later MSMs
// read prep; if the chain started before prep_msm had run, the GPU would sit
// locked to a chain that cannot go on (≈ 200 ms per 2^24 partition,
// measured), so the chain starts only once every task in it can run back to
// back. A batch whose MSMs run on GPUs has no prep_msm task (dag/batch.hpp)
// and submits 4 buffers. The CPU body runs h_phase_bellman /
// h_phase_snarkjs on the partition's vectors with the key's host domain and
// ignores buffers 3 and 4. The CUDA body runs gpu::ntt_h on the buffers'
// device copies, in the same order of operations (cuda/starzk_cuda.hpp), on
// the worker's stream.
#include <starpu.h>

#include "codelets/codelet_common.hpp"
#include "codelets/codelets.hpp"
#include "codelets/cuda_support.hpp"
#include "ntt/h_phase.hpp"
#include "policies/resource_class.h"

#if STARZK_CODELETS_CUDA
#include "cuda/starzk_cuda.hpp"
#endif

namespace starzk::codelets {

namespace {

void ntt_h_cpu(void* buffers[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "ntt_h", [&] {
    detail::h_phase_on_host(p, detail::fr_span(buffers[0]), detail::fr_span(buffers[1]), detail::fr_span(buffers[2]));
  });
}

#if STARZK_CODELETS_CUDA
void ntt_h_cuda(void* buffers[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "ntt_h", [&] {
    const detail::device_h_phase_t d = detail::device_h_phase(p, buffers[3]);
    auto* a = reinterpret_cast<fr_t*>(STARPU_VECTOR_GET_PTR(buffers[0]));
    auto* b = reinterpret_cast<fr_t*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    auto* c = reinterpret_cast<fr_t*>(STARPU_VECTOR_GET_PTR(buffers[2]));
    detail::check_cuda(gpu::ntt_h(a, b, c, d.log_n, d.conv, d.domain, detail::worker_stream(), d.tune), "gpu::ntt_h");
  });
}
#endif

starpu_perfmodel ntt_h_model;

}  // namespace

#if STARZK_CODELETS_CUDA
detail::device_h_phase_t detail::device_h_phase(const partition_state_t& p, void* domain_buffer) {
  device_h_phase_t d;
  while ((uint64_t(1) << d.log_n) < p.key.pk->domain_size) ++d.log_n;
  d.conv = p.key.pk->convention;
  const size_t bytes = STARPU_VECTOR_GET_NX(domain_buffer) * STARPU_VECTOR_GET_ELEMSIZE(domain_buffer);
  if (bytes == gpu::ntt_domain_bytes(d.log_n, gpu::ntt_tables_t::lean))
    d.tune.tables = gpu::ntt_tables_t::lean;
  else if (bytes != gpu::ntt_domain_bytes(d.log_n))
    throw std::runtime_error("the key's device NTT domain is missing or of the wrong size");
  d.domain = reinterpret_cast<const void*>(STARPU_VECTOR_GET_PTR(domain_buffer));
  return d;
}
#endif

void detail::h_phase_on_host(const partition_state_t& p, std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c) {
  if (p.key.pk->convention == root_convention_t::bellman)
    h_phase_bellman(a, b, c, *p.key.domain, p.threads);
  else
    h_phase_snarkjs(a, b, c, *p.key.domain, p.threads);
}

uint64_t ntt_h_domain_bytes(unsigned log_n, bool lean) {
#if STARZK_CODELETS_CUDA
  if (log_n >= 1 && log_n <= gpu::ntt_max_log)
    return gpu::ntt_domain_bytes(log_n, lean ? gpu::ntt_tables_t::lean : gpu::ntt_tables_t::full);
#else
  (void)log_n, (void)lean;
#endif
  return 0;
}

void build_ntt_h_domain(std::span<fr_t> out, unsigned log_n, root_convention_t conv, bool lean) {
  const uint64_t bytes = ntt_h_domain_bytes(log_n, lean);
  if (bytes == 0 || out.size_bytes() != bytes)
    throw std::runtime_error("no device NTT domain of 2^" + std::to_string(log_n) + " in " +
                             std::to_string(out.size_bytes()) + " bytes in this build");
#if STARZK_CODELETS_CUDA
  if (gpu::ntt_domain_build_host(out.data(), log_n, conv, lean ? gpu::ntt_tables_t::lean : gpu::ntt_tables_t::full) !=
      cudaSuccess)
    throw std::runtime_error("cannot build the device NTT domain of 2^" + std::to_string(log_n));
#else
  (void)conv;
#endif
}

double ntt_h_flops(const partition_state_t& p) {
  const double n = double(p.key.pk->domain_size);
  double log_n = 0;
  for (uint64_t s = p.key.pk->domain_size; s > 1; s >>= 1) log_n += 1;
  return 7 * (n / 2) * log_n + 6 * n;
}

starpu_codelet* ntt_h_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    starpu_codelet_init(&c);
    detail::init_size_model<&detail::domain_size_of>(ntt_h_model, "starzk_ntt_h");
    c.cpu_funcs[0] = ntt_h_cpu;
    c.cpu_funcs_name[0] = "ntt_h_cpu";
#if STARZK_CODELETS_CUDA
    c.cuda_funcs[0] = ntt_h_cuda;
    c.cuda_flags[0] = STARPU_CUDA_ASYNC;
#endif
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;  // 5 with the prep edge, 4 without
    c.can_execute = detail::buffers_fit_device;
    c.model = &ntt_h_model;
    c.name = "ntt_h";
    c.color = detail::color_ntt_h;
    return c;
  }();
  static const bool declared = (starzk_codelet_set_class(&cl, STARZK_RC_GPU_CHAIN), true);
  (void)declared;
  return &cl;
}

}  // namespace starzk::codelets
