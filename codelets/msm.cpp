// msm.cpp: the G1 MSM codelet, one codelet for the four G1 queries of a
// proof (DESIGN §2 step 4), all in the partition's GPU chain
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
// Buffers: 0 the query's bases (R, a key handle), 1 the scalars (R): the a
// vector holding h for msm_h, the witness w otherwise, 2 the result (W, a
// variable on the partition's msm_results_t field), and for the split
// queries 3 the prep_pair_t variable (R: the CPU body's split; the CUDA
// body derives the same split from w on the device). The chain's last task
// (msm_b1) also reads the h, l and a results (3 more R buffers, unused by
// the body) so that it depends on every other task of the chain, as the
// GPU lock requires (dag/partition_dag.hpp). cl_arg is an msm_task_arg_t
// naming the partition and the query; the performance model's footprint
// keys on (query, number of bases).
//
// CUDA body (gpu::msm_g1_jacobian, cuda/starzk_cuda.hpp): msm_h is a plain
// Pippenger over h; the split queries pass the witness with split_from =
// n_public + 1 (A, B_g1: the constant wire and the inputs stay in the tail)
// or 0 (L over the aux wires w[n_public + 1 ..]), and the device builds the
// ones bitmap itself. The result is written as a Jacobian point into the
// result buffer's device copy; StarPU brings it to main RAM for assemble.
#include <starpu.h>

#include "codelets/codelet_common.hpp"
#include "codelets/codelets.hpp"
#include "codelets/cuda_support.hpp"
#include "msm/pippenger.hpp"
#include "policies/resource_class.h"

#if STARZK_CODELETS_CUDA
#include "cuda/starzk_cuda.hpp"
#endif

namespace starzk::codelets {

namespace {

const std::vector<g1_affine_t>& bases_of(const proving_key_t& pk, msm_query_t q) {
  switch (q) {
    case msm_query_t::h: return pk.h;
    case msm_query_t::l: return pk.l;
    case msm_query_t::a: return pk.a;
    case msm_query_t::b_g1: return pk.b_g1;
  }
  throw std::invalid_argument("unknown MSM query");
}

uint64_t msm_size(const starpu_task* task) {
  const auto& arg = *static_cast<const msm_task_arg_t*>(task->cl_arg);
  return (uint64_t(arg.query) << 56) | bases_of(*arg.part->key.pk, arg.query).size();
}

void msm_cpu(void* buffers[], void* cl_arg) noexcept {
  const auto& arg = *static_cast<const msm_task_arg_t*>(cl_arg);
  partition_state_t& p = *arg.part;
  guarded(p, msm_query_name(arg.query), [&] {
    const proving_key_t& pk = *p.key.pk;
    const std::span<const g1_affine_t> bases(bases_of(pk, arg.query));
    switch (arg.query) {
      case msm_query_t::h: {
        const std::span<fr_t> h = detail::fr_span(buffers[1]);
        const uint64_t n_h = p.h_len();
        if (h.size() < n_h || bases.size() != n_h) throw std::invalid_argument("H query and h differ in length");
        p.msm.h = msm_pippenger(bases, std::span<const fr_t>(h.data(), n_h), msm_config_t{.threads = p.threads});
        break;
      }
      case msm_query_t::l: p.msm.l = split_msm(bases, p.cpu_prep(p.threads).aux, p.threads); break;
      case msm_query_t::a: p.msm.a = split_msm(bases, p.cpu_prep(p.threads).w, p.threads); break;
      case msm_query_t::b_g1: p.msm.b_g1 = split_msm(bases, p.cpu_prep(p.threads).w, p.threads); break;
    }
  });
}

#if STARZK_CODELETS_CUDA
void msm_cuda(void* buffers[], void* cl_arg) noexcept {
  const auto& arg = *static_cast<const msm_task_arg_t*>(cl_arg);
  partition_state_t& p = *arg.part;
  guarded(p, msm_query_name(arg.query), [&] {
    const proving_key_t& pk = *p.key.pk;
    const size_t n_in = size_t(pk.n_public) + 1;
    const auto* bases = reinterpret_cast<const g1_affine_t*>(STARPU_VECTOR_GET_PTR(buffers[0]));
    const auto* scalars = reinterpret_cast<const fr_t*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    auto* out = reinterpret_cast<g1_jacobian_t*>(STARPU_VARIABLE_GET_PTR(buffers[2]));
    size_t n = bases_of(pk, arg.query).size();
    size_t split_from = 0;
    switch (arg.query) {
      case msm_query_t::h:
        n = p.h_len();
        split_from = gpu::msm_no_split;
        break;
      case msm_query_t::l:
        if (pk.n_vars < n_in || n != pk.n_vars - n_in) throw std::invalid_argument("L query and witness differ in length");
        scalars += n_in;  // the aux wires
        split_from = 0;
        break;
      case msm_query_t::a:
      case msm_query_t::b_g1:
        if (n != pk.n_vars) throw std::invalid_argument("query and witness differ in length");
        split_from = n_in;
        break;
    }
    if (STARPU_VECTOR_GET_NX(buffers[1]) < (arg.query == msm_query_t::l ? n + n_in : n))
      throw std::invalid_argument("scalar buffer shorter than the query");
    const bool split = split_from != gpu::msm_no_split;
    const size_t bytes = gpu::msm_g1_jacobian_scratch_bytes(n, split);
    void* scratch = detail::worker_scratch(bytes);
    detail::check_cuda(gpu::msm_g1_jacobian(out, bases, scalars, n, split_from, scratch, bytes, detail::worker_stream()),
                       "gpu::msm_g1_jacobian");
  });
}
#endif

starpu_perfmodel msm_model;

}  // namespace

double msm_flops(const partition_state_t& p, msm_query_t q) {
  // Mixed additions of a Pippenger MSM over n terms: W·(n + 1.4·2^c).
  const double n = double(bases_of(*p.key.pk, q).size());
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
#if STARZK_CODELETS_CUDA
    c.cuda_funcs[0] = msm_cuda;
    c.cuda_flags[0] = STARPU_CUDA_ASYNC;
#endif
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;  // 3 (msm_h), 4 (split), 7 (msm_b1: the chain's last)
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
