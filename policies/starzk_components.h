/*
 * starzk_components.h: starzk's rules as StarPU modular scheduler
 * components (struct starpu_sched_component, StarPU's
 * starpu_sched_component.h), so a scheduling tree of one's own can have
 * the GPU lock, the memory-bandwidth interlock and serialised deallocation
 * above any StarPU decision component (eager, mct, heft, random, ...)
 * without starzk's engine. docs/policies.md ("The component route") walks
 * through it; policies/policy_starzk_modular_heft.cpp is a complete policy.
 *
 * A gate is a queue with one rule. It holds the ready tasks of the class
 * its rule guards until the rule admits them, and passes everything else
 * straight down: the GPU lock holds GPU_CHAIN tasks, the memory interlock
 * MEMORY_HEAVY tasks, serialised free DEALLOC tasks. A task the rule
 * admits is booked in the same process-wide ledger the engine books in
 * (one implementation of each rule) from the moment the gate lets it
 * through until the policy's post_exec_hook, so a trace never shows more
 * than the rule allowed, whatever the components below do with the task.
 *
 * The contract of a tree with gates:
 *   - put the gates above everything that decides or queues (above the
 *     tree's root: starzk_component_gates_above_root), so that every task
 *     passes them; as a STARPU_SCHED_SIMPLE_PRE_DECISION component a gate
 *     would miss the tasks StarPU's perfmodel selector sends to its
 *     calibration branch;
 *   - the policy's pre_exec_hook and post_exec_hook are the two below
 *     (they call StarPU's worker-component hooks too): post_exec gives a
 *     task's booking back and lets the held tasks through;
 *   - a gate has one child or several; a task goes to the first child that
 *     can execute it. A child may refuse a task (push_task != 0): the gate
 *     takes the booking back and tries again when the child calls its
 *     can_push;
 *   - tasks StarPU pins to a worker (execute_on_a_specific_worker) never
 *     reach a tree, so no gate counts them.
 * What each gate does with a task its rule guards:
 *   - GPU lock: a lock domain is a worker's memory node (one per GPU; the
 *     CPU workers' main RAM only with cpu_lock). A chain's tasks go to the
 *     GPUs when a CUDA worker below can run them, else to the CPUs. The
 *     gate gives a chain one domain and restricts the chain's tasks to the
 *     workers of that domain (through starpu_task::workerids, put back
 *     when the task ends), so the decision component below chooses among
 *     them only; another chain's tasks wait in the gate until the chain's
 *     is_last task has ended and nothing of it runs;
 *   - memory interlock: at most mem_heavy_max MEMORY_HEAVY tasks a CPU
 *     worker can run are between the gate and their end; one that starts on
 *     a CUDA worker gives its slot back when it starts;
 *   - serialised free: at most one DEALLOC task between the gate and its end.
 * Like the engine, the GPU lock reports and releases a chain that holds a
 * domain and can never end it (no is_last; STARZK_CHAIN_STALL_MS,
 * starzk_policies_error). The engine's other rules (GPU first for
 * non-chain work, staging, chain locality, run-ahead, L3 spreading) need
 * the engine's central queue and are not gates.
 */
#ifndef STARZK_POLICIES_STARZK_COMPONENTS_H
#define STARZK_POLICIES_STARZK_COMPONENTS_H

#include <starpu.h>
#include <starpu_sched_component.h>

#include "policies/resource_class.h"
#include "policies/starzk_policies.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The three gates. Each takes its rules from `rules` (NULL: the `starzk`
 * policy's, starzk_policy_rules_default in starzk_plugin.h), then from the
 * STARZK_* environment switches, as an engine policy does, and reads only
 * its own fields: the GPU lock gpu_lock, cpu_lock and chain_stall_ms, the
 * memory interlock mem_interlock and mem_heavy_max (0: from the topology
 * of the CPU workers below it, as in the engine), serialised free
 * serial_free. A gate whose switch is off passes every task. The
 * signature casts to starpu_sched_component_create_t. */
struct starpu_sched_component* starzk_component_gpu_lock_create(struct starpu_sched_tree* tree,
                                                                const struct starzk_policy_config* rules);
struct starpu_sched_component* starzk_component_mem_interlock_create(struct starpu_sched_tree* tree,
                                                                     const struct starzk_policy_config* rules);
struct starpu_sched_component* starzk_component_serial_free_create(struct starpu_sched_tree* tree,
                                                                   const struct starzk_policy_config* rules);

/* 1 when the component is one of the gates above. */
int starzk_component_is_gate(struct starpu_sched_component* component);

/* Put `gates` (NULL-terminated, top first; each made for this tree) above
 * the tree's root, each the only parent of the next, the last the parent of
 * the old root, the first the new root; then update the tree's workers.
 * Returns 0, or -1 when the tree has no root or one of them is not a gate. */
int starzk_component_gates_above_root(struct starpu_sched_tree* tree, struct starpu_sched_component* const* gates);

/* The hooks of a policy whose tree holds gates: StarPU's worker-component
 * hooks (starpu_sched_component_worker_pre/post_exec_hook), plus the
 * gates' booking. */
void starzk_component_pre_exec_hook(struct starpu_task* task, unsigned sched_ctx_id);
void starzk_component_post_exec_hook(struct starpu_task* task, unsigned sched_ctx_id);

/* A policy of StarPU's simple-scheduler shape with starzk's three gates
 * above it: starpu_sched_component_initialize_simple_scheduler(decision,
 * decision_data, flags, ctx), then the GPU lock, the memory interlock and
 * serialised free (rules as above; NULL: starzk's) above its root. For a
 * policy's init_sched, as policies/policy_starzk_modular_heft.cpp does.
 * Returns 0, or -1 if the tree could not be built. */
int starzk_component_initialize_gated_scheduler(starpu_sched_component_create_t decision, void* decision_data,
                                                unsigned flags, unsigned sched_ctx_id,
                                                const struct starzk_policy_config* rules);

#ifdef __cplusplus
}
#endif

#endif /* STARZK_POLICIES_STARZK_COMPONENTS_H */
