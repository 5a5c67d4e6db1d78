// msm.cpp: the G1 MSM codelet, one codelet for the four G1 queries of a
// proof (docs/prover.md step 4), all in the partition's GPU chain
// (STARZK_RC_GPU_CHAIN):
//   msm_h   H  = Σ_{k < h_len} h[k]·H[k]           full Pippenger (h is dense)
//   msm_l   L  = Σ_{aux j} w_j·L_j                 split by prep.aux
//   msm_a   A  = Σ_j w_j·A_j                       split by prep.w
//   msm_b1  B1 = Σ_j w_j·B1_j                      split by prep.w
// A split MSM is batch_add of the bases whose scalar is 1 (8M + 2S per base)
// plus a Pippenger MSM of the tail (msm/prep_msm.hpp); Pippenger costs
// about W·(n + 1.4·2^c) mixed additions for W = ceil(256/c) windows
// (msm/pippenger.hpp).
//
// Buffers: 0 the query's bases (R, a key handle; absent when the memory
// plan streams the query, key_view_t::g1_device, and the others move up
// by one), 1 the scalars (R): the a vector holding h for msm_h, the
// witness w otherwise, 2 the result (W, a variable on the partition's
// msm_results_t field), and for the split queries 3 the prep_pair_t
// variable (R: the CPU body's split; the CUDA body derives the same split
// from w on the device). The chain's last task (msm_b1) also reads the h,
// l and a results (3 more R buffers, unused by the body) so that it
// depends on every other task of the chain, as the GPU lock requires
// (dag/partition_dag.hpp); where a, b, c are made on the device, msm_l and
// msm_a read the h result and msm_b1 the B_g2 one too (ordering edges,
// one more R buffer each, dag/partition_dag.cpp). cl_arg is an msm_task_arg_t naming the
// partition and the query; the performance model's footprint keys on
// (query, streamed, together, pair, number of bases). A pair (the
// argument's partner set: a witness query of two partitions of one key,
// dag/partition_pair.hpp) has the partner's w, result and prep right after
// the first partition's, and its CUDA body runs both MSMs over one staging
// of each piece of the bases.
//
// CUDA body (gpu::msm_pieces<g1_params> through msm_device.hpp, in pieces that fit
// the device's free memory): every query is a plain Pippenger, over h or
// over the witness (L over the aux wires w[n_public + 1 ..]). On the device
// the split does not pay: the terms whose scalar is one all land in window
// 0's bucket 1, which the accumulation folds in parallel (batch-affine
// levels, or chunks of XYZZ additions), cheaper than batch_add's separate
// pass over them (docs/benchmarks.md, "Plain MSMs on the device").
// A streamed query's bases are copied from the key's page-locked host
// array piece by piece. The result is written as a Jacobian point into the
// result buffer's device copy; StarPU brings it to main RAM for assemble.
// Without device memory for the smallest pieces the body computes on the
// host instead; can_execute keeps such tasks off CUDA workers beforehand
// (msm_device.hpp).
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

// Buffer indices of an msm task: a streamed query is no buffer of it, so
// its buffers start at the scalars (dag/partition_dag.cpp).
// A pair's partner has its scalars, result and prep three buffers on.
struct msm_buffers_t {
  int bases = 0, scalars = 1, result = 2;
  explicit msm_buffers_t(bool streamed, bool partner = false) {
    if (streamed) bases = -1, scalars = 0, result = 1;
    if (partner) scalars += 3, result += 3;
  }
};
// The buffers of msm_g1 (the four G1 MSMs together, no bases): h (in a),
// w, then the results of H, L, A and B_g1 in msm_query_t order.
constexpr int together_h = 0, together_w = 1, together_results = 2;

const msm_device_t& device_of(const partition_state_t& p, msm_query_t q) { return p.key.g1_device[int(q)]; }

uint64_t msm_size(const starpu_task* task) {
  const auto& arg = *static_cast<const msm_task_arg_t*>(task->cl_arg);
  const partition_state_t& p = *arg.part;
  const uint64_t streamed = device_of(p, arg.query).streamed ? 1 : 0, together = arg.together ? 1 : 0,
                 pair = arg.partner ? 1 : 0;
  return (uint64_t(arg.query) << 56) | (streamed << 55) | (together << 54) | (pair << 53) |
         msm_query_bases(*p.key.pk, arg.query).size();
}

// The query's MSM on the host (the CPU body, and a CUDA body's fallback):
// h for msm_h, the split of the witness otherwise.
g1_jacobian_t host_msm(partition_state_t& p, msm_query_t q, std::span<const fr_t> h) {
  const proving_key_t& pk = *p.key.pk;
  const std::span<const g1_affine_t> bases(msm_query_bases(pk, q));
  switch (q) {
    case msm_query_t::h: {
      const uint64_t n_h = p.h_len();
      if (h.size() < n_h || bases.size() != n_h) throw std::invalid_argument("H query and h differ in length");
      return msm_pippenger(bases, h.first(n_h), msm_config_t{.threads = p.threads});
    }
    case msm_query_t::l:
      return split_msm(bases, p.cpu_prep(p.threads).aux, p.threads);
    case msm_query_t::a:
    case msm_query_t::b_g1:
      return split_msm(bases, p.cpu_prep(p.threads).w, p.threads);
  }
  throw std::invalid_argument("unknown MSM query");
}

g1_jacobian_t& result_of(partition_state_t& p, msm_query_t q) {
  switch (q) {
    case msm_query_t::h:
      return p.msm.h;
    case msm_query_t::l:
      return p.msm.l;
    case msm_query_t::a:
      return p.msm.a;
    case msm_query_t::b_g1:
      break;
  }
  return p.msm.b_g1;
}

void msm_cpu(void* buffers[], void* cl_arg) noexcept {
  const auto& arg = *static_cast<const msm_task_arg_t*>(cl_arg);
  partition_state_t& p = *arg.part;
  if (arg.together) {
    guarded(p, msm_together_name, [&] {
      const std::span<const fr_t> h = detail::fr_span(buffers[together_h]);
      for (int q = 0; q < msm_query_count; ++q) result_of(p, msm_query_t(q)) = host_msm(p, msm_query_t(q), h);
    });
    return;
  }
  guarded_each({arg.part, arg.partner}, msm_query_name(arg.query), [&](std::span<partition_state_t* const> live) {
    for (partition_state_t* x : live) {
      const msm_buffers_t b(device_of(p, arg.query).streamed, x != arg.part);
      const std::span<const fr_t> h = arg.query == msm_query_t::h
                                          ? std::span<const fr_t>(detail::fr_span(buffers[b.scalars]))
                                          : std::span<const fr_t>();
      result_of(*x, arg.query) = host_msm(*x, arg.query, h);
    }
  });
}

int msm_can_execute(unsigned worker, starpu_task* task, unsigned /*nimpl*/) {
  const auto& arg = *static_cast<const msm_task_arg_t*>(task->cl_arg);
  const key_view_t& k = arg.part->key;
  return detail::cuda_worker_can_hold(worker, task, k.g1_device[int(arg.query)], k.scratch_max) ? 1 : 0;
}

#if STARZK_CODELETS_CUDA
// The result computed on the host for want of device memory goes where
// StarPU expects it, the result buffer's device copy (h comes back from
// the device first).
void host_fallback(partition_state_t& p, msm_query_t q, const fr_t* d_scalars, size_t n, g1_jacobian_t* d_out) {
  detail::note_host_fallback(p.label, msm_query_name(q), n);
  std::vector<fr_t> h;
  if (q == msm_query_t::h) {
    h.resize(n);
    detail::copy_to_host(h.data(), d_scalars, n * sizeof(fr_t));
  }
  const g1_jacobian_t r = host_msm(p, q, h);
  detail::copy_to_device(d_out, &r, sizeof r);
}

// Query q's device MSM: its scalars in the vector buffer `scalars` (h in
// a, or w, of which L takes the aux wires), its bases at `bases` (device
// memory, or the key's page-locked host array when streamed), its result
// in the variable buffer `result`. Throws where the query, the witness and
// the buffer disagree in length.
detail::device_msm_t<g1_params> device_msm_of(const partition_state_t& p, msm_query_t q, void* scalars,
                                              const g1_affine_t* bases, bool streamed, void* result) {
  const proving_key_t& pk = *p.key.pk;
  const size_t n_in = size_t(pk.n_public) + 1;
  detail::device_msm_t<g1_params> m;
  m.streamed = streamed;
  m.bases = bases;
  m.d_scalars = reinterpret_cast<const fr_t*>(STARPU_VECTOR_GET_PTR(scalars));
  m.d_out = reinterpret_cast<g1_jacobian_t*>(STARPU_VARIABLE_GET_PTR(result));
  m.n = msm_query_bases(pk, q).size();
  m.split_from = gpu::msm_no_split;
  switch (q) {
    case msm_query_t::h:
      m.n = p.h_len();
      m.dense = true;
      break;
    case msm_query_t::l:
      if (pk.n_vars < n_in || m.n != pk.n_vars - n_in)
        throw std::invalid_argument("L query and witness differ in length");
      m.d_scalars += n_in;  // the aux wires
      break;
    case msm_query_t::a:
    case msm_query_t::b_g1:
      if (m.n != pk.n_vars) throw std::invalid_argument("query and witness differ in length");
      break;
  }
  if (STARPU_VECTOR_GET_NX(scalars) < (q == msm_query_t::l ? m.n + n_in : m.n))
    throw std::invalid_argument("scalar buffer shorter than the query");
  m.phase = msm_query_name(q);
  m.profile = p.key.msm_profile;
  m.wait_each_piece = p.key.msm_piece_wait;
  m.shared_buckets = p.key.msm_shared_buckets;
  m.regroup = p.key.msm_regroup;
  m.label = p.label.c_str();
  m.max_piece = detail::stream_piece_terms(m, p.key.stream_piece_bytes);
  return m;
}

// One device MSM, or on the host where even its smallest pieces find no
// device memory.
void run_or_fall_back(partition_state_t& p, msm_query_t q, const detail::device_msm_t<g1_params>& m) {
  if (!detail::run_device_msm(m, p.key.scratch_max)) host_fallback(p, q, m.d_scalars, m.n, m.d_out);
}

// msm_g1 on a GPU: the four MSMs in one call, L, A and B_g1 beside H
// (detail::run_device_msms_together); where that does not fit, one after
// the other as their own tasks would run them.
void msm_together_cuda(void* buffers[], partition_state_t& p) {
  detail::device_msm_t<g1_params> m[msm_query_count];
  for (int i = 0; i < msm_query_count; ++i) {
    const auto q = msm_query_t(i);
    m[i] = device_msm_of(p, q, buffers[q == msm_query_t::h ? together_h : together_w],
                         msm_query_bases(*p.key.pk, q).data(), true, buffers[together_results + i]);
  }
  if (detail::run_device_msms_together(m, p.key.scratch_max)) return;
  for (int i = 0; i < msm_query_count; ++i) run_or_fall_back(p, msm_query_t(i), m[i]);
}

void msm_cuda(void* buffers[], void* cl_arg) noexcept {
  const auto& arg = *static_cast<const msm_task_arg_t*>(cl_arg);
  partition_state_t& p = *arg.part;
  if (arg.together) {
    guarded(p, msm_together_name, [&] { msm_together_cuda(buffers, p); });
    return;
  }
  // One partition, or a pair's live ones: the second's scalars and result
  // ride along (device_msm_t::d_scalars2), its bases staged once for both.
  guarded_each({arg.part, arg.partner}, msm_query_name(arg.query), [&](std::span<partition_state_t* const> live) {
    const msm_device_t& dev = device_of(p, arg.query);
    const g1_affine_t* bases =
        dev.streamed ? msm_query_bases(*p.key.pk, arg.query).data()
                     : reinterpret_cast<const g1_affine_t*>(STARPU_VECTOR_GET_PTR(buffers[msm_buffers_t(false).bases]));
    detail::device_msm_t<g1_params> m[2];
    for (size_t i = 0; i < live.size(); ++i) {
      const msm_buffers_t b(dev.streamed, live[i] != arg.part);
      m[i] = device_msm_of(*live[i], arg.query, buffers[b.scalars], bases, dev.streamed, buffers[b.result]);
    }
    if (live.size() == 2) {
      m[0].d_scalars2 = m[1].d_scalars;
      m[0].d_out2 = m[1].d_out;
      m[0].phase = arg.query == msm_query_t::l   ? "msm_l (a pair)"
                   : arg.query == msm_query_t::a ? "msm_a (a pair)"
                                                 : "msm_b1 (a pair)";
    }
    if (detail::run_device_msm(m[0], p.key.scratch_max)) return;
    for (size_t i = 0; i < live.size(); ++i) host_fallback(*live[i], arg.query, m[i].d_scalars, m[i].n, m[i].d_out);
  });
}
#endif

starpu_perfmodel msm_model;

}  // namespace

double msm_flops(const partition_state_t& p, msm_query_t q) {
  // Mixed additions of a Pippenger MSM over n terms: W·(n + 1.4·2^c).
  const double n = double(msm_query_bases(*p.key.pk, q).size());
  const msm_plan_t plan = msm_plan(size_t(n), 1);
  return double(plan.windows) * (n + 1.4 * double(uint64_t(1) << plan.window_bits));
}

starpu_codelet* msm_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    starpu_codelet_init(&c);
    detail::init_size_model<&msm_size>(msm_model, "starzk_msm");
    c.cpu_funcs[0] = msm_cpu;
    c.cpu_funcs_name[0] = "msm_cpu";
    c.can_execute = msm_can_execute;
#if STARZK_CODELETS_CUDA
    c.cuda_funcs[0] = msm_cuda;  // synchronous (detail::run_device_msm)
#endif
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;  // 3 (msm_h), 4 (split), 7 (msm_b1: the chain's last), +1 ordering edge
                                            // (rows made on the device); -1 streamed
    c.model = &msm_model;
    c.name = "msm";
    c.color = detail::color_msm;
    return c;
  }();
  static const bool declared = (starzk_codelet_set_class(&cl, STARZK_RC_GPU_CHAIN), true);
  (void)declared;
  return &cl;
}

}  // namespace starzk::codelets
