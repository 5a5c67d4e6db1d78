// b_g2_msm.cpp: the G2 MSM codelet, B2 = Σ_j w_j·B2_j over the B_g2 query
// (docs/prover.md step 4). On the CPU it is split by prep.w like msm_a:
// batch_add of the bases whose scalar is 1 plus a Pippenger MSM of the
// tail. G2 points are twice as wide (192 bytes) and each addition costs ~3×
// a G1 one; on the CPU it streams the whole query, so it is
// STARZK_RC_MEMORY_HEAVY (cuzk runs it on the CPU, 0.48 s per partition,
// beside the GPU chain).
//
// On a GPU (gpu::msm_pieces<g2_params>) it is a plain Pippenger over w, as the G1
// queries (msm.cpp says why the split does not pay there); it takes the GPU
// between two chains, which is why it is not part of a chain (the GPU lock
// would hold it to one device).
//
// Buffers: 0 B_g2 bases (R, a key handle), 1 w (R), 2 result (W), 3 prep
// (R: the CPU body's split); when the memory plan streams B_g2
// (key_view_t::b_g2_device) the bases are no buffer and w, result, prep
// are 0, 1, 2: the CUDA body copies the bases from the key's page-locked
// host array piece by piece (msm_device.hpp, which also says how the body
// fits the device's free memory and when it computes on the host).
// cl_arg is an msm_task_arg_t. A pair (its partner set: two partitions of
// one key, dag/partition_pair.hpp) has the partner's w, result and prep
// right after the first partition's three, and its CUDA body runs both
// MSMs over one staging of each piece of B_g2 (the pair's point: streamed,
// the 25.6 GB of B_g2 at 2^27 cross PCIe once for two proofs).
#include <starpu.h>

#include "codelets/codelet_common.hpp"
#include "codelets/codelets.hpp"
#include "codelets/cuda_support.hpp"
#include "codelets/msm_device.hpp"
#include "msm/pippenger.hpp"
#include "policies/resource_class.h"

#if STARZK_CODELETS_CUDA
#include "cuda/starzk_cuda.hpp"
#endif

namespace starzk::codelets {

namespace {

// The first buffer past the bases: a streamed query is no buffer of the task.
int first_buffer(const partition_state_t& p) { return p.key.b_g2_device.streamed ? 0 : 1; }

uint64_t b_g2_msm_size(const starpu_task* task) {
  const auto& a = *static_cast<const msm_task_arg_t*>(task->cl_arg);
  const uint64_t streamed = a.part->key.b_g2_device.streamed ? 1 : 0, pair = a.partner ? 1 : 0;
  return (streamed << 55) | (pair << 54) | a.part->key.pk->b_g2.size();
}

// The MSM on the host (the CPU body, and a CUDA body's fallback).
g2_jacobian_t host_b_g2(partition_state_t& p) {
  return split_msm(std::span<const g2_affine_t>(p.key.pk->b_g2), p.cpu_prep(p.memory_threads()).w, p.memory_threads());
}

void b_g2_msm_cpu(void* /*buffers*/[], void* arg) noexcept {
  const auto& a = *static_cast<const msm_task_arg_t*>(arg);
  guarded_each({a.part, a.partner}, "b_g2_msm", [&](std::span<partition_state_t* const> live) {
    for (partition_state_t* p : live) p->msm.b_g2 = host_b_g2(*p);
  });
}

int b_g2_msm_can_execute(unsigned worker, starpu_task* task, unsigned /*nimpl*/) {
  const key_view_t& k = static_cast<const msm_task_arg_t*>(task->cl_arg)->part->key;
  return detail::cuda_worker_can_hold(worker, task, k.b_g2_device, k.scratch_max) ? 1 : 0;
}

#if STARZK_CODELETS_CUDA
// The CUDA body: the MSM of each live partition of the task (one, or a
// pair's two over one staging of the bases), or on the host where even
// the smallest pieces find no device memory.
void b_g2_msm_cuda(void* buffers[], void* arg) noexcept {
  const auto& a = *static_cast<const msm_task_arg_t*>(arg);
  guarded_each({a.part, a.partner}, "b_g2_msm", [&](std::span<partition_state_t* const> live) {
    const partition_state_t& p = *live[0];
    const proving_key_t& pk = *p.key.pk;
    const bool streamed = p.key.b_g2_device.streamed;
    const size_t n = pk.b_g2.size();
    // The partition's w and result buffers: three per partition (w,
    // result, prep) from the first past the bases, the partner's second.
    auto scalars = [&](const partition_state_t* x, int at) -> void* {
      void* w = buffers[first_buffer(p) + 3 * (x == a.part ? 0 : 1) + at];
      if (at == 0 && (n != pk.n_vars || STARPU_VECTOR_GET_NX(w) < n))
        throw std::invalid_argument("B_g2 query and witness differ in length");
      return w;
    };
    detail::device_msm_t<g2_params> m;
    m.streamed = streamed;
    m.bases = streamed ? pk.b_g2.data() : reinterpret_cast<const g2_affine_t*>(STARPU_VECTOR_GET_PTR(buffers[0]));
    m.d_scalars = reinterpret_cast<const fr_t*>(STARPU_VECTOR_GET_PTR(scalars(live[0], 0)));
    m.d_out = reinterpret_cast<g2_jacobian_t*>(STARPU_VARIABLE_GET_PTR(scalars(live[0], 1)));
    if (live.size() == 2) {
      m.d_scalars2 = reinterpret_cast<const fr_t*>(STARPU_VECTOR_GET_PTR(scalars(live[1], 0)));
      m.d_out2 = reinterpret_cast<g2_jacobian_t*>(STARPU_VARIABLE_GET_PTR(scalars(live[1], 1)));
    }
    m.n = n;
    m.split_from = gpu::msm_no_split;
    m.phase = live.size() == 2 ? "b_g2_msm (a pair)" : "b_g2_msm";
    m.profile = p.key.msm_profile;
    m.wait_each_piece = p.key.msm_piece_wait;
    m.shared_buckets = p.key.msm_shared_buckets;
    m.label = p.label.c_str();
    m.max_piece = detail::stream_piece_terms(m, p.key.stream_piece_bytes);
    if (detail::run_device_msm(m, p.key.scratch_max)) return;
    detail::note_host_fallback(p.label, "b_g2_msm", n);  // msm_device.hpp
    for (partition_state_t* x : live) {
      const g2_jacobian_t r = host_b_g2(*x);
      detail::copy_to_device(x == live[0] ? m.d_out : m.d_out2, &r, sizeof r);
    }
  });
}
#endif

starpu_perfmodel b_g2_msm_model;

}  // namespace

double b_g2_msm_flops(const partition_state_t& p) {
  const double n = double(p.key.pk->b_g2.size());
  const msm_plan_t plan = msm_plan(size_t(n), 1);
  return 3.0 * double(plan.windows) * (n + 1.4 * double(uint64_t(1) << plan.window_bits));
}

starpu_codelet* b_g2_msm_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    starpu_codelet_init(&c);
    detail::init_size_model<&b_g2_msm_size>(b_g2_msm_model, "starzk_b_g2_msm");
    c.cpu_funcs[0] = b_g2_msm_cpu;
    c.cpu_funcs_name[0] = "b_g2_msm_cpu";
#if STARZK_CODELETS_CUDA
    c.cuda_funcs[0] = b_g2_msm_cuda;  // synchronous (detail::run_device_msm)
#endif
    c.can_execute = b_g2_msm_can_execute;
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;  // 4, or 3 with the query streamed; +3 for a pair; +1 (msm_h's result)
                                            // where a, b, c are made on the device or the task is a pair
    c.model = &b_g2_msm_model;
    c.name = "b_g2_msm";
    c.color = detail::color_b_g2_msm;
    return c;
  }();
  static const bool declared = (starzk_codelet_set_class(&cl, STARZK_RC_MEMORY_HEAVY), true);
  (void)declared;
  return &cl;
}

}  // namespace starzk::codelets
