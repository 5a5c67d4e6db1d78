// policy_starzk_modular_heft.cpp: the "starzk-modular-heft" policy, the
// component route's composition (starzk_components.h): StarPU's
// modular-heft tree (a priority queue above the mct decision component,
// which StarPU's perfmodel selector feeds, priority queues below it, one
// per worker) with starzk's GPU lock, memory interlock and serialised free
// above its root. StarPU decides placement from its performance models;
// the gates decide only when a task of a guarded class may go down. The
// STARZK_* switches of those three rules apply (docs/policies.md).

#include <starpu.h>
#include <starpu_sched_component.h>
#include <starpu_scheduler.h>

#include <cstdio>

#include "policies/policy_list.hpp"
#include "policies/starzk_components.h"

namespace starzk::policies {

namespace {

starpu_sched_component* make_mct(starpu_sched_tree* tree, void*) {
  return starpu_sched_component_mct_create(tree, nullptr);
}

void init_modular_heft(unsigned sched_ctx_id) {
  // The flags of StarPU's own modular-heft.
  const unsigned flags = STARPU_SCHED_SIMPLE_DECIDE_WORKERS | STARPU_SCHED_SIMPLE_PERFMODEL |
                         STARPU_SCHED_SIMPLE_FIFO_ABOVE | STARPU_SCHED_SIMPLE_FIFO_ABOVE_PRIO |
                         STARPU_SCHED_SIMPLE_FIFOS_BELOW | STARPU_SCHED_SIMPLE_FIFOS_BELOW_PRIO |
                         STARPU_SCHED_SIMPLE_FIFOS_BELOW_READY | STARPU_SCHED_SIMPLE_IMPL;
  if (starzk_component_initialize_gated_scheduler(make_mct, nullptr, flags, sched_ctx_id, nullptr) != 0)
    std::fprintf(stderr, "starzk-modular-heft: could not put the gates into the scheduling tree\n");
}

starpu_sched_policy make_policy() {
  starpu_sched_policy p{};
  p.init_sched = init_modular_heft;
  p.deinit_sched = starpu_sched_tree_deinitialize;
  p.add_workers = starpu_sched_tree_add_workers;
  p.remove_workers = starpu_sched_tree_remove_workers;
  p.push_task = starpu_sched_tree_push_task;
  p.pop_task = starpu_sched_tree_pop_task;
  p.pre_exec_hook = starzk_component_pre_exec_hook;
  p.post_exec_hook = starzk_component_post_exec_hook;
  p.policy_name = "starzk-modular-heft";
  p.policy_description = "StarPU's modular heft below starzk's GPU lock, memory interlock and serialised free";
  p.worker_type = STARPU_WORKER_LIST;
  return p;
}

}  // namespace

struct starpu_sched_policy policy_modular_heft = make_policy();

}  // namespace starzk::policies
