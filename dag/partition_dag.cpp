// partition_dag.cpp: one partition's tasks, phase by phase (see partition_dag.hpp;
// the partition, its handles and its callbacks: partition.cpp).
#include "dag/partition_dag.hpp"

#include <cerrno>
#include <stdexcept>

#include "codelets/codelets.hpp"
#include "codelets/cuda_support.hpp"
#include "dag/heteroprio.hpp"
#include "policies/resource_class.h"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace starzk::dag {

using codelets::msm_query_t;

namespace {

// Where the witness map may run, from the key's memory plan: a, b, c are
// budgeted where the plan puts them (key_bundle_t::partition_bytes), so the
// task must run where its codelet (witness_map_codelet) keeps them: spmv on
// a GPU when the plan holds its buffers there beside the NTT domain and the
// MSM scratch (a CUDA worker of a smaller plan would fail to find room
// beside its scratch and have StarPU evict a, b, c of other partitions into
// host memory nobody counted); spmv_passes, whose a, b, c stay in host
// memory, on a GPU as well where GPUs exist (it moves ~20 GB over PCIe at
// 2^27 in a fraction of what the CPUs take); anywhere without GPUs. 0: no
// restriction.
uint32_t rows_where(const key_bundle_t& key) {
  if (key.rows_on_device() || key.rows_on_host_with_gpus()) return STARPU_CUDA;
  return 0;
}

// Builds one task of partition p, tags it, attaches it to the trace and
// submits it (`only`: a where mask the task is kept to, when its codelet
// can run there; 0 leaves the codelet's; `rc_override`: a resource class
// in place of the codelet's, or STARZK_TAG_NO_CLASS).
void submit_task(partition_t& p, const submit_context_t& ctx, starpu_codelet* cl, void* cl_arg,
                 std::vector<starpu_data_descr> data, const char* name, int priority, double flops,
                 bool chain_last = false, void (*callback)(void*) = nullptr, uint32_t only = 0,
                 int rc_override = STARZK_TAG_NO_CLASS, void (*on_pop)(void*) = nullptr) {
  starpu_task* t = starpu_task_build(cl, STARPU_DATA_MODE_ARRAY, data.data(), int(data.size()), STARPU_NAME, name,
                                     STARPU_PRIORITY, ctx.priorities ? priority : 0, STARPU_FLOPS, flops, 0);
  if (t == nullptr) throw std::runtime_error(p.state().label + ": cannot build task " + name);
  starzk_task_set_tag(t, starzk_tag_make(ctx.job_seq, ctx.chain_id, chain_last ? 1 : 0, rc_override));
  t->cl_arg = cl_arg;  // owned by the partition, not by the task
  t->cl_arg_size = 0;
  t->cl_arg_free = 0;
  // The memory plan's placement (rows_where), where the codelet may run
  // there. Before StarPU has seen a task of the codelet its `where` is
  // still 0, hence codelet_where.
  if (ctx.only) only = ctx.only;  // a retry on the CPUs overrides the plan
  if (only && (codelets::codelet_where(cl) & only)) t->where = int32_t(only);
  if (ctx.heteroprio) t->priority = int(heteroprio_bucket(t));
  if (callback) {
    t->callback_func = callback;
    t->callback_arg = &p;
  }
  t->prologue_callback_pop_func = on_pop;  // a trace keeps it: its pop hook calls it after its own
  if (ctx.trace) ctx.trace->attach(t);
  const int rc = starpu_task_submit(t);
  if (rc != 0) {
    starzk_task_clear_tag(t);
    starpu_task_destroy(t);
    runtime::check_starpu(rc < 0 ? rc : -EINVAL, (std::string("starpu_task_submit(") + name + ")").c_str());
  }
}

}  // namespace

// ---- the phases -------------------------------------------------------------

starpu_codelet* witness_map_codelet(const key_bundle_t& key) {
  if (!key.rows_on_host_with_gpus()) return codelets::spmv_codelet();
  return key.rows_made_on_device() ? codelets::spmv_dev_codelet() : codelets::spmv_passes_codelet();
}

bool witness_map_heads_chain(const key_bundle_t& key, const submit_context_t& ctx) {
  return ctx.only == 0 && rows_where(key) == STARPU_CUDA &&
         (codelets::codelet_where(witness_map_codelet(key)) & STARPU_CUDA) != 0;
}

void submit_witness_map(partition_t& p, const submit_context_t& ctx) {
  std::vector<starpu_data_descr> data = {{p.w, STARPU_R}, {p.a, STARPU_W}, {p.b, STARPU_W}, {p.c, STARPU_W}};
  starpu_codelet* cl = witness_map_codelet(p.key());
  // spmv reads the matrices as buffers; spmv_passes from the key's host
  // arrays, as a streamed MSM query.
  if (cl == codelets::spmv_codelet())
    for (starpu_data_handle_t m : p.key().matrices()) data.push_back({m, STARPU_R});
  const bool head = witness_map_heads_chain(p.key(), ctx);
  // spmv_dev: the same phase as spmv_passes, a, b, c allocated on the GPU
  // that takes it, where the scratch of the chain before must not stand in
  // their way (codelets/cuda_support.hpp, release_scratch_on_pop).
  const bool dev = cl == codelets::spmv_dev_codelet();
  submit_task(p, ctx, cl, &p.state(), std::move(data), dev ? "spmv_passes" : cl->name,
              head ? prio_chain : prio_memory_phase, codelets::spmv_flops(p.state()), false, nullptr,
              rows_where(p.key()), head ? STARZK_RC_GPU_CHAIN : STARZK_TAG_NO_CLASS,
              dev ? &codelets::detail::release_scratch_on_pop : nullptr);
}

void submit_h_phase(partition_t& p, const submit_context_t& ctx) {
  // prep (with a prep_msm task): only an ordering edge, so the GPU chain
  // starts when all of it can run (codelets/ntt_h.cpp).
  std::vector<starpu_data_descr> data = {
      {p.a, STARPU_RW}, {p.b, STARPU_RW}, {p.c, STARPU_RW}, {p.key().device_domain(), STARPU_R}};
  if (ctx.prep_task) data.push_back({p.prep, STARPU_R});
  // A device that cannot hold a, b, c at once gets the H phase in passes
  // (a, b, c stay in host memory: codelets/ntt_h_passes.cpp).
  const bool passes = p.key().h_phase_in_passes();
  submit_task(p, ctx, passes ? codelets::ntt_h_passes_codelet() : codelets::ntt_h_codelet(), &p.state(),
              std::move(data), passes ? "ntt_h_passes" : "ntt_h", prio_chain, codelets::ntt_h_flops(p.state()), false,
              nullptr, p.key().rows_on_device() || p.a_on_device_only() ? STARPU_CUDA : 0);
  // b and c are scratch after the H phase: their memory goes back to StarPU,
  // and their home buffers, where they have some, to the pool.
  starpu_data_invalidate_submit(p.b);
  starpu_data_invalidate_submit(p.c);
  if (p.rows_in_host_memory())
    submit_task(p, ctx, codelets::free_codelet(), &p.state().free_rows_bc, {{p.b, STARPU_W}, {p.c, STARPU_W}},
                "free_rows", prio_finish, 0.0, false, &partition_t::rows_freed<2>);
}

void submit_prep_msm(partition_t& p, const submit_context_t& ctx) {
  submit_task(p, ctx, codelets::prep_msm_codelet(), &p.state(), {{p.w, STARPU_R}, {p.prep, STARPU_W}}, "prep_msm",
              prio_memory_phase, codelets::prep_msm_flops(p.state()), false, &partition_t::prep_done);
}

namespace {

// With a, b, c made on the device (spmv_dev) the witness MSMs wait for
// msm_h (they read its result, an ordering edge only): the device holds
// w, a, b, c from the witness map to the H phase, and an MSM run between
// them would find no room for its scratch; and b_g2_msm, then, runs
// before the chain's last task, which reads its result too, so that no
// MSM scratch of this chain is taken after the next chain's witness map
// has given it back.
bool after_msm_h(const partition_t& p) { return p.key().rows_made_on_device(); }

// The chain's last task also reads b_g2_msm's result: where a, b, c are
// made on the device (above), and where the H phase runs in passes and
// b_g2_msm may take the GPU. In passes, a b_g2_msm left behind its chain
// keeps that chain's w on the device during the next chain's H phase,
// 4 GiB at 2^27 of the room its second vector needs (docs/benchmarks.md,
// "The H phase's two vectors under 16 GB"); with the edge the chain lock
// keeps the next chain out until this one's b_g2_msm has run, which on
// the GPU costs nothing (one worker runs both). Placed on the CPUs only,
// b_g2_msm runs beside the chains without the edge, which would hold the
// GPU idle while it ran.
bool b_g2_before_chain_end(const partition_t& p) {
  if (p.b_g2_by_partner) return false;  // a pair's second: its result comes from the first's chain
  return after_msm_h(p) ||
         (p.key().h_phase_in_passes() && (codelets::codelet_where(codelets::b_g2_msm_codelet()) & STARPU_CUDA) != 0);
}

// The callback of a chain task that ends the head (msm_h) or the chain
// (its last task), counted in the partition's pending callbacks; none for
// the others.
using callback_t = void (*)(void*);
callback_t chain_step_of(partition_t& p, bool head, bool last) {
  if (!head && !last) return nullptr;
  p.pending_callbacks.fetch_add(1, std::memory_order_acq_rel);
  if (head) return last ? &partition_t::chain_step<true, true> : &partition_t::chain_step<true, false>;
  return &partition_t::chain_step<false, true>;
}

// One G1 query: bases (key; none when the memory plan streams the query:
// the CUDA body copies it itself, codelets/msm.cpp), scalars (h in a, or
// prep), result.
// With a partner (a pair, a witness query): the partner's w, result and
// prep too, after p's msm_h (as b_g2_msm's pair, submit_b_g2_msm). The
// second of a G1 pair ends its chain with msm_h, which depends on the
// chain's other tasks through a.
void submit_msm(partition_t& p, const submit_context_t& ctx, msm_query_t q, bool last, partition_t* partner = nullptr) {
  const int qi = int(q);
  std::vector<starpu_data_descr> data;
  if (!p.key().view().g1_device[qi].streamed) data.push_back({p.key().query(q), STARPU_R});
  data.push_back({q == msm_query_t::h ? p.a : p.w, STARPU_R});
  data.push_back({p.res[qi], STARPU_W});
  if (q != msm_query_t::h) data.push_back({p.prep, STARPU_R});  // the CPU body's split
  if (partner)
    data.insert(data.end(), {{partner->w, STARPU_R}, {partner->res[qi], STARPU_W}, {partner->prep, STARPU_R}});
  if (last) {  // the chain's last task waits for the chain's other results
    if (!p.g1_by_partner)
      for (msm_query_t other : {msm_query_t::h, msm_query_t::l, msm_query_t::a})
        data.push_back({p.res[int(other)], STARPU_R});
    if (b_g2_before_chain_end(p)) data.push_back({p.res_b2, STARPU_R});
  } else if (q != msm_query_t::h && (after_msm_h(p) || partner)) {
    data.push_back({p.res[int(msm_query_t::h)], STARPU_R});
  }
  p.state().msm_args[qi].partner = partner ? &partner->state() : nullptr;
  const uint32_t only = q == msm_query_t::h && p.a_on_device_only() ? STARPU_CUDA : 0;  // where a is
  submit_task(p, ctx, codelets::msm_codelet(), &p.state().msm_args[qi], std::move(data), codelets::msm_query_name(q),
              prio_chain, codelets::msm_flops(p.state(), q) * (partner ? 2 : 1), last,
              chain_step_of(p, q == msm_query_t::h, last), only);
}

// h's last reader has been submitted: a goes back.
void release_h(partition_t& p, const submit_context_t& ctx) {
  starpu_data_invalidate_submit(p.a);
  if (p.a_in_host_memory())
    submit_task(p, ctx, codelets::free_codelet(), &p.state().free_row_a, {{p.a, STARPU_W}}, "free_rows", prio_finish,
                0.0, false, &partition_t::rows_freed<1>);
}

// msm_g1: h and w, the four results, prep (the CPU body's split), and
// b_g2_msm's result where the chain's end waits for it; it ends the chain.
void submit_msms_together(partition_t& p, const submit_context_t& ctx) {
  std::vector<starpu_data_descr> data = {{p.a, STARPU_R}, {p.w, STARPU_R}};
  double flops = 0;
  for (int q = 0; q < codelets::msm_query_count; ++q) {
    data.push_back({p.res[q], STARPU_W});
    flops += codelets::msm_flops(p.state(), msm_query_t(q));
  }
  data.push_back({p.prep, STARPU_R});
  if (b_g2_before_chain_end(p)) data.push_back({p.res_b2, STARPU_R});
  submit_task(p, ctx, codelets::msm_codelet(), &p.state().msm_together, std::move(data), codelets::msm_together_name,
              prio_chain, flops, true, chain_step_of(p, true, true),
              p.a_on_device_only() ? STARPU_CUDA : 0);  // as msm_h's
  release_h(p, ctx);
}

}  // namespace

void submit_msm_h(partition_t& p, const submit_context_t& ctx) {
  submit_msm(p, ctx, msm_query_t::h, p.g1_by_partner);  // ends the chain of a G1 pair's second
  release_h(p, ctx);                                    // h's last reader
}
void submit_msm_l(partition_t& p, const submit_context_t& ctx, partition_t* partner) {
  submit_msm(p, ctx, msm_query_t::l, false, partner);
}
void submit_msm_a(partition_t& p, const submit_context_t& ctx, partition_t* partner) {
  submit_msm(p, ctx, msm_query_t::a, false, partner);
}
void submit_msm_b1(partition_t& p, const submit_context_t& ctx, partition_t* partner) {
  submit_msm(p, ctx, msm_query_t::b_g1, true, partner);
}

void submit_b_g2_msm(partition_t& p, const submit_context_t& ctx, partition_t* partner) {
  std::vector<starpu_data_descr> data;
  if (!p.key().view().b_g2_device.streamed) data.push_back({p.key().b_g2(), STARPU_R});  // as in submit_msm
  data.insert(data.end(), {{p.w, STARPU_R}, {p.res_b2, STARPU_W}, {p.prep, STARPU_R}});
  // A pair: the partner's three (codelets/b_g2_msm.cpp), and after msm_h,
  // so that the partner's w takes the place of p's h on the device.
  if (partner)
    data.insert(data.end(), {{partner->w, STARPU_R}, {partner->res_b2, STARPU_W}, {partner->prep, STARPU_R}});
  if (after_msm_h(p) || partner) data.push_back({p.res[int(msm_query_t::h)], STARPU_R});
  p.state().b_g2_arg.partner = partner ? &partner->state() : nullptr;
  submit_task(p, ctx, codelets::b_g2_msm_codelet(), &p.state().b_g2_arg, std::move(data), "b_g2_msm", prio_memory_phase,
              codelets::b_g2_msm_flops(p.state()) * (partner ? 2 : 1));
}

void submit_assemble(partition_t& p, const submit_context_t& ctx) {
  std::vector<starpu_data_descr> data;
  for (starpu_data_handle_t r : p.res) data.push_back({r, STARPU_R});
  data.push_back({p.res_b2, STARPU_R});
  data.push_back({p.proof, STARPU_W});
  submit_task(p, ctx, codelets::assemble_codelet(), &p.state(), std::move(data), "assemble", prio_finish, 0.0, false,
              &partition_t::task_done);
}

void submit_free(partition_t& p, const submit_context_t& ctx) {
  // w's device copy goes back once its last reader is done, not when the
  // partition is unregistered after its proof is collected: the free
  // task's write on the host would only mark that copy stale, and a stale
  // copy holds its memory.
  starpu_data_invalidate_submit(p.w);
  submit_task(p, ctx, codelets::free_codelet(), &p.state().free_rest, {{p.w, STARPU_W}, {p.prep, STARPU_W}}, "free",
              prio_finish, 0.0, false, &partition_t::task_done);
}

void submit_head(partition_t& p, const submit_context_t& ctx, const pair_role_t& pair) {
  if ((pair.partner || pair.second) && p.key().view().g1_msms_together)
    throw std::logic_error(p.state().label + ": a pair needs one task per G1 query");
  p.b_g2_by_partner = pair.second && pair.b_g2;
  p.g1_by_partner = pair.second && pair.g1;
  if (!ctx.prep_task) p.pending_callbacks.fetch_sub(1, std::memory_order_acq_rel);  // no prep_done to wait for
  submit_witness_map(p, ctx);                                                       // a, b, c = A·w, B·w, C·w
  if (ctx.prep_task) submit_prep_msm(p, ctx);                  // split the witness scalars: 0 / 1 / tail
  submit_h_phase(p, ctx);                                      // h from a∘b − c (the chain starts)
  if (!p.key().view().g1_msms_together) submit_msm_h(p, ctx);  // Σ h·H (ends the chain of a G1 pair's second)
}

void submit_tail(partition_t& p, const submit_context_t& ctx, const pair_role_t& pair) {
  if (pair.partner && p.key().view().g1_msms_together)
    throw std::logic_error(p.state().label + ": a pair needs one task per G1 query");
  partition_t* b_g2_partner = pair.b_g2 ? pair.partner : nullptr;
  partition_t* g1_partner = pair.g1 ? pair.partner : nullptr;
  if (p.key().view().g1_msms_together) {  // the four G1 MSMs as one task, msm_g1 (codelets/msm.cpp)
    submit_b_g2_msm(p, ctx);              // Σ w·B2 (G2, beside the chain)
    submit_msms_together(p, ctx);         // Σ h·H, Σ w_aux·L, Σ w·A, Σ w·B1 (the chain ends)
  } else {
    if (!p.g1_by_partner) {
      submit_msm_l(p, ctx, g1_partner);  // Σ w_aux·L
      submit_msm_a(p, ctx, g1_partner);  // Σ w·A
    }
    if (!p.b_g2_by_partner) submit_b_g2_msm(p, ctx, b_g2_partner);  // Σ w·B2 (G2, beside the chain)
    if (!p.g1_by_partner) submit_msm_b1(p, ctx, g1_partner);        // Σ w·B1 (the chain ends)
  }
  submit_assemble(p, ctx);  // A, B, C with r, s; verify
  submit_free(p, ctx);      // release w, prep (a, b, c went earlier)
}

void submit_partition(partition_t& p, const submit_context_t& ctx, const pair_role_t& pair) {
  submit_head(p, ctx, pair);
  submit_tail(p, ctx, pair);
}

}  // namespace starzk::dag
