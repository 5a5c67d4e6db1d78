/*
 * gated_eager_plugin.c: the component route (policies/starzk_components.h)
 * in a policy plug-in (policies/starzk_plugin.h). A tree of one's own:
 * StarPU's modular-eager shape (a FIFO above StarPU's eager decision
 * component, one worker component each) with starzk's GPU lock and memory
 * interlock put above its root, and no engine. Two policies:
 *   - "example-gated-eager": the GPU lock and the memory interlock;
 *   - "example-gated-eager-nolock": the memory interlock only, the same
 *     tree without the lock, so a trace shows what the lock prevents.
 * Built as libstarzk_policy_gated_example.so; load it with
 *     starzk prove --manifest jobs.toml --policy-plugin PATH --policy example-gated-eager
 * or STARZK_POLICY_PLUGIN=PATH in any program that uses libstarzk_policies.
 */
#include <stddef.h>
#include <stdio.h>

#include <starpu.h>
#include <starpu_sched_component.h>
#include <starpu_scheduler.h>

#include "policies/starzk_components.h"
#include "policies/starzk_plugin.h"

/* StarPU's modular-eager tree for the context, then the gates above it. */
static void build(unsigned sched_ctx_id, int with_lock) {
  starpu_sched_component_initialize_simple_scheduler(
      (starpu_sched_component_create_t)starpu_sched_component_eager_create, NULL,
      STARPU_SCHED_SIMPLE_DECIDE_WORKERS | STARPU_SCHED_SIMPLE_FIFO_ABOVE | STARPU_SCHED_SIMPLE_IMPL, sched_ctx_id);
  struct starpu_sched_tree* tree = starpu_sched_ctx_get_policy_data(sched_ctx_id);
  struct starpu_sched_component* gates[3] = {NULL, NULL, NULL};
  int n = 0;
  if (with_lock) gates[n++] = starzk_component_gpu_lock_create(tree, NULL); /* NULL: starzk's rules */
  gates[n++] = starzk_component_mem_interlock_create(tree, NULL);
  if (!gates[0] || !gates[n - 1] || starzk_component_gates_above_root(tree, gates) != 0)
    fprintf(stderr, "gated_eager_plugin: could not put the gates into the tree of context %u\n", sched_ctx_id);
}

static void init_gated(unsigned sched_ctx_id) { build(sched_ctx_id, 1); }
static void init_gated_nolock(unsigned sched_ctx_id) { build(sched_ctx_id, 0); }

/* Everything but init_sched is StarPU's tree plumbing and the gates' hooks. */
#define GATED_POLICY(init, name, description)                                                                         \
  {                                                                                                                   \
    .init_sched = init, .deinit_sched = starpu_sched_tree_deinitialize, .add_workers = starpu_sched_tree_add_workers, \
    .remove_workers = starpu_sched_tree_remove_workers, .push_task = starpu_sched_tree_push_task,                     \
    .pop_task = starpu_sched_tree_pop_task, .pre_exec_hook = starzk_component_pre_exec_hook,                          \
    .post_exec_hook = starzk_component_post_exec_hook, .policy_name = name, .policy_description = description,        \
    .worker_type = STARPU_WORKER_LIST,                                                                                \
  }

static struct starpu_sched_policy gated_eager = GATED_POLICY(
    init_gated, "example-gated-eager", "StarPU's modular eager below starzk's GPU lock and memory interlock");
static struct starpu_sched_policy gated_eager_nolock = GATED_POLICY(
    init_gated_nolock, "example-gated-eager-nolock", "StarPU's modular eager below starzk's memory interlock only");

static struct starpu_sched_policy** gated_policies(void) {
  static struct starpu_sched_policy* list[] = {&gated_eager, &gated_eager_nolock, NULL};
  return list;
}

STARZK_PLUGIN(gated_policies)
