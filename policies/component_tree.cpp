// component_tree.cpp: putting starzk's gates into a StarPU scheduling tree
// (starzk_components.h): above the root of any tree, above StarPU's simple
// scheduler in one call, and the two hooks a policy with gates sets, which
// give a task's booking back and let the held tasks through.

#include <starpu.h>
#include <starpu_sched_component.h>
#include <starpu_scheduler.h>

#include <cstdio>
#include <mutex>

#include "policies/component_gate.hpp"
#include "policies/resource_class.h"
#include "policies/starzk_components.h"

using namespace starzk::policies;

extern "C" {

int starzk_component_gates_above_root(struct starpu_sched_tree* tree, struct starpu_sched_component* const* gates) {
  if (!tree || !tree->root || !gates || !gates[0]) return -1;
  std::size_t n = 0;
  for (; gates[n]; ++n)
    if (!starzk_component_is_gate(gates[n]) || gates[n]->tree != tree || gates[n]->nchildren != 0) return -1;
  // Bottom up: the last gate over the old root, each gate over the next.
  starpu_sched_component* below = tree->root;
  for (std::size_t i = n; i-- > 0;) {
    starpu_sched_component_connect(gates[i], below);
    below = gates[i];
  }
  tree->root = gates[0];
  starpu_sched_tree_update_workers(tree);
  starpu_sched_tree_update_workers_in_ctx(tree);
  return 0;
}

int starzk_component_initialize_gated_scheduler(starpu_sched_component_create_t decision, void* decision_data,
                                                unsigned flags, unsigned sched_ctx_id,
                                                const struct starzk_policy_config* rules) {
  if (!decision) return -1;
  starpu_sched_component_initialize_simple_scheduler(decision, decision_data, flags, sched_ctx_id);
  auto* tree = static_cast<starpu_sched_tree*>(starpu_sched_ctx_get_policy_data(sched_ctx_id));
  if (!tree) return -1;
  starpu_sched_component* gates[] = {starzk_component_gpu_lock_create(tree, rules),
                                     starzk_component_mem_interlock_create(tree, rules),
                                     starzk_component_serial_free_create(tree, rules), nullptr};
  for (int i = 0; i < 3; ++i)
    if (!gates[i]) return -1;
  return starzk_component_gates_above_root(tree, gates);
}

void starzk_component_pre_exec_hook(struct starpu_task* task, unsigned sched_ctx_id) {
  note_task_started();
  starpu_sched_component_worker_pre_exec_hook(task, sched_ctx_id);
  // The memory interlock counts CPU workers only: a MEMORY_HEAVY task that
  // starts on a CUDA worker gives its slot back now.
  const int w = starpu_worker_get_id();
  if (w < 0 || starpu_worker_get_type(w) == STARPU_CPU_WORKER) return;
  ledger_t& L = ledger_t::instance();
  bool released;
  {
    std::lock_guard<sched_mutex_t> lk(L.mu);
    released = L.release_mem(task);
  }
  if (released) pump_all_gates();
}

void starzk_component_post_exec_hook(struct starpu_task* task, unsigned sched_ctx_id) {
  starpu_sched_component_worker_post_exec_hook(task, sched_ctx_id);
  unplace_everywhere(task);
  const bool released = ledger_t::instance().finish_ended(task);
  note_task_ended();
  if (released) pump_all_gates();
}

}  // extern "C"
