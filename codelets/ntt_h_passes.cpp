// ntt_h_passes.cpp: the H phase for a GPU that cannot hold a partition's
// a, b and c at once (docs/gpu.md, Memory plan: a 2^27 partition's three
// vectors are 12 GiB, a 16 GB card holds 15.6). The same task as ntt_h
// (the first of the GPU chain, STARZK_RC_GPU_CHAIN; the same result, h in
// a, b and c scratch afterwards), with one difference in where its data
// live: buffers 0-2 (a, b, c) stay in main memory for every worker
// (StarPU's specific_nodes, STARPU_SPECIFIC_NODE_CPU), so StarPU never
// allocates them on the device (a excepted where it is kept there, below);
// buffer 3 (the key's NTT domain, lean) and the optional prep edge 4 go
// where the task runs, as for ntt_h.
//
// The CUDA body runs gpu::ntt_h_passes (cuda/ntt_h_passes.cu) in the
// worker's scratch, in two device vectors where the device has room for
// them (half the copies, and those run under the transforms), else in one
// vector and two staging chunks. StarPU allocates a, b, c in main memory
// page-locked when CUDA workers exist, so the copies are DMA.
//
// The two vectors' room: the memory plan's form with the H phase in passes
// counts, beside the MSM scratch, the MSMs' w and h (dag/key_residency.hpp);
// while this task runs, h is not on the device yet (it comes out of this
// task), so the body may take the MSM scratch and h's share for its second
// vector where StarPU says that much is free now
// (detail::worker_scratch_room), and gives what it took beyond the plan's
// scratch back before it returns (after its stream drains), so that msm_h
// finds room for h. Two vectors are the default; STARZK_H_PASSES_VECTORS=1
// keeps the body to one (docs/gpu.md).
// With a on the device (set_h_passes_a_on_device, STARZK_H_PASSES_A_ON_DEVICE)
// buffer 0 goes where the task runs, where spmv_passes wrote a (StarPU
// copies it there first where the map ran on the CPUs), and h stays there
// for msm_h, which then fetches nothing. The body runs
// gpu::ntt_h_passes_a_on_device: a's buffer is its first vector, the
// second (or the one-vector form's staging chunks) comes from the worker's
// scratch, and the one-vector form keeps a's values on the coset in a's
// host buffer (rows[0], which StarPU no longer reads: its valid copy is
// the device's; where two vectors are asked for, a has none and the rare
// one-vector form takes a temporary one). Per partition that saves a's
// copy out of the witness map and back in, h's copy out and msm_h's copy
// back in (4 × 4 GiB at 2^27).
// The two vectors then take a's 4 GiB (the plan's share for h) and 4 GiB
// of the MSM scratch: the same 8 GiB.
// When even one vector cannot be had, the body computes the H phase on
// the host (stderr says so once): the proof completes. The CPU body is
// ntt_h's. The memory plan picks this codelet for a key (h_passes); its
// model is its own, since its time includes the copies.
#include <starpu.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "codelets/activity.hpp"
#include "codelets/codelet_common.hpp"
#include "codelets/codelets.hpp"
#include "codelets/cuda_support.hpp"
#include "policies/resource_class.h"
#include "util/uninit_vector.hpp"

#if STARZK_CODELETS_CUDA
#include "cuda/starzk_cuda.hpp"
#endif

namespace starzk::codelets {

namespace {

// Staging chunks of the pointwise step: 2^22 elements (128 MiB) each at most.
constexpr size_t passes_chunk = size_t(1) << 22;

// The forms the CUDA bodies took (h_passes_forms).
std::atomic<unsigned long long> ran_two{0}, ran_one{0}, ran_host{0};

void ntt_h_passes_cpu(void* buffers[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "ntt_h_passes", [&] {
    detail::h_phase_on_host(p, detail::fr_span(buffers[0]), detail::fr_span(buffers[1]), detail::fr_span(buffers[2]));
  });
}

starpu_codelet* the_codelet();

#if STARZK_CODELETS_CUDA
// With a on the device: a's host buffer, which StarPU no longer reads (its
// valid copy is the device's), as n elements of host scratch. Where a has
// none (the batch gives it none where the two-vector form is asked for:
// dag::key_bundle_t::a_on_device_only), `temp` is made that size, outside
// the host budget, for this task only (stderr says so once): the device
// had no room for the second vector, which the memory plan counts.
std::span<fr_t> a_host_buffer(partition_state_t& p, size_t n, uninit_vector_t<fr_t>& temp) {
  if (p.rows[0].size() == n) return p.rows[0];
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    report_note(p.label + ": ntt_h_passes: no device room for two vectors, and a has no host buffer: a " +
                "temporary one of " + std::to_string(n * sizeof(fr_t) >> 20) + " MiB (said once)");
  temp.resize(n);
  return temp;
}

// With a on the device and no scratch at all: a to its host buffer, the
// host's H phase there, h back to the device.
void h_phase_on_host_from_device(partition_state_t& p, std::span<fr_t> d_a, std::span<fr_t> b, std::span<fr_t> c) {
  uninit_vector_t<fr_t> temp;
  const std::span<fr_t> spare = a_host_buffer(p, d_a.size(), temp);
  detail::copy_to_host(spare.data(), d_a.data(), d_a.size_bytes());
  detail::h_phase_on_host(p, spare, b, c);
  detail::copy_to_device(d_a.data(), spare.data(), d_a.size_bytes());
}

void ntt_h_passes_cuda(void* buffers[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "ntt_h_passes", [&] {
    const uint64_t n = p.key.pk->domain_size;
    const detail::device_h_phase_t d = detail::device_h_phase(p, buffers[3]);
    const std::span<fr_t> a = detail::fr_span(buffers[0]), b = detail::fr_span(buffers[1]),
                          c = detail::fr_span(buffers[2]);
    if (a.size() != n || b.size() != n || c.size() != n)
      throw std::runtime_error("a, b, c are not of the domain's size");
    const bool a_dev = h_passes_a_on_device();
    // Two vectors where they fit now (file comment), else one.
    auto bytes = [&](unsigned v) {
      return a_dev ? gpu::ntt_h_passes_a_on_device_scratch_bytes(d.log_n, passes_chunk, v)
                   : gpu::ntt_h_passes_scratch_bytes(d.log_n, passes_chunk, v);
    };
    const size_t one = bytes(1), two = bytes(2), keep = std::max<size_t>(one, p.key.scratch_max);
    unsigned vectors = 1;
    void* scratch = nullptr;
    if (p.key.h_passes_vectors >= 2 && two <= detail::worker_scratch_room()) {
      scratch = detail::try_worker_scratch(two, a_dev ? std::max(two, keep) : two);
      if (scratch != nullptr) vectors = 2;
    }
    if (scratch == nullptr) scratch = detail::try_worker_scratch(one, keep);
    if (scratch == nullptr) {
      static std::atomic<bool> said{false};
      if (!said.exchange(true))
        report_note(p.label + ": ntt_h_passes: no device memory for " +
                    (a_dev ? "two staging chunks" : "one vector of " + std::to_string(n) + " elements") +
                    "; computed on the host (said once)");
      if (a_dev)
        h_phase_on_host_from_device(p, a, b, c);
      else
        detail::h_phase_on_host(p, a, b, c);
      ran_host.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    static std::atomic<bool> said_form[2][2] = {};
    if (!said_form[a_dev][vectors - 1].exchange(true)) {
      const char* form = a_dev ? (vectors == 2 ? "two vectors, a's copy on the device and one"
                                               : "a's copy on the device and two chunks")
                               : (vectors == 2 ? "two vectors" : "one vector and two chunks");
      char text[200];
      std::snprintf(text, sizeof text, "ntt_h_passes: %llu elements through %s of device scratch (%.2f GiB; said once)",
                    static_cast<unsigned long long>(n), form,
                    double(vectors == 2 ? two : one) / double(uint64_t(1) << 30));
      report_note(text);
    }
    if (a_dev) {
      uninit_vector_t<fr_t> temp;
      fr_t* spare = vectors == 1 ? a_host_buffer(p, n, temp).data() : nullptr;  // a's values on the coset
      detail::check_cuda(
          gpu::ntt_h_passes_a_on_device(a.data(), spare, b.data(), c.data(), d.log_n, d.conv, d.domain, scratch,
                                        bytes(vectors), passes_chunk, detail::worker_stream(), d.tune, vectors),
          "gpu::ntt_h_passes_a_on_device");
    } else {
      detail::check_cuda(gpu::ntt_h_passes(a.data(), b.data(), c.data(), d.log_n, d.conv, d.domain, scratch,
                                           bytes(vectors), passes_chunk, detail::worker_stream(), d.tune, vectors),
                         "gpu::ntt_h_passes");
    }
    if (vectors == 2) detail::release_scratch_above(keep);
    (vectors == 2 ? ran_two : ran_one).fetch_add(1, std::memory_order_relaxed);
  });
}
#endif

starpu_perfmodel ntt_h_passes_model;

}  // namespace

uint64_t ntt_h_passes_two_vector_bytes(unsigned log_n) {
#if STARZK_CODELETS_CUDA
  return gpu::ntt_h_passes_scratch_bytes(log_n, passes_chunk, 2);
#else
  (void)log_n;
  return 0;
#endif
}

h_passes_forms_t h_passes_forms() {
  return {ran_two.load(std::memory_order_relaxed), ran_one.load(std::memory_order_relaxed),
          ran_host.load(std::memory_order_relaxed)};
}

starpu_codelet* ntt_h_passes_codelet() { return the_codelet(); }

bool h_passes_a_on_device() { return STARPU_CODELET_GET_NODE(the_codelet(), 0) == STARPU_SPECIFIC_NODE_LOCAL; }

void set_h_passes_a_on_device(bool on) {
  const int node = on ? STARPU_SPECIFIC_NODE_LOCAL : STARPU_SPECIFIC_NODE_CPU;
  STARPU_CODELET_SET_NODE(the_codelet(), node, 0);
  STARPU_CODELET_SET_NODE(spmv_passes_codelet(), node, 1);  // the witness map writes a there
}

namespace {

starpu_codelet* the_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    starpu_codelet_init(&c);
    detail::init_size_model<&detail::domain_size_of>(ntt_h_passes_model, "starzk_ntt_h_passes");
    c.cpu_funcs[0] = ntt_h_passes_cpu;
    c.cpu_funcs_name[0] = "ntt_h_passes_cpu";
#if STARZK_CODELETS_CUDA
    c.cuda_funcs[0] = ntt_h_passes_cuda;
    c.cuda_flags[0] = STARPU_CUDA_ASYNC;
#endif
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;  // 5 with the prep edge, 4 without
    c.specific_nodes = 1;
    for (int i = 0; i < 5; ++i) c.nodes[i] = i < 3 ? STARPU_SPECIFIC_NODE_CPU : STARPU_SPECIFIC_NODE_LOCAL;
    c.model = &ntt_h_passes_model;
    c.name = "ntt_h_passes";
    c.color = detail::color_ntt_h_passes;
    return c;
  }();
  static const bool declared = (starzk_codelet_set_class(&cl, STARZK_RC_GPU_CHAIN), true);
  (void)declared;
  return &cl;
}

}  // namespace

}  // namespace starzk::codelets
