/*
 * starzk_plugin.h: writing a scheduling policy of one's own and plugging
 * it into starzk (or any StarPU program using libstarzk_policies) at run
 * time, without rebuilding the library. docs/policies.md walks through it;
 * policies/examples/plugin_example.c is a complete plug-in.
 *
 * A plug-in is a shared object that includes this header and says once
 *
 *     STARZK_PLUGIN(my_policies)
 *
 * where `struct starpu_sched_policy **my_policies(void)` returns a
 * NULL-terminated list of policies. It may hold two kinds:
 *   - plain StarPU policies (a struct starpu_sched_policy of its own, as in
 *     StarPU's src/sched_policies/); they may read starzk's classes and
 *     tags through resource_class.h;
 *   - policies on top of starzk's engine: starzk_engine_policy_define()
 *     below makes one from a name and a set of rules (the rules and their
 *     STARZK_* switches are in docs/policies.md), e.g. starzk's rules with
 *     a MEMORY_HEAVY cap of 1 and no GPU run-ahead.
 *
 * It is loaded with starzk_policy_plugin_load(path), or by naming it in
 * STARZK_POLICY_PLUGIN (paths separated by ':'; read once, by the first
 * starzk_policy_by_name, unless the program loaded a plug-in itself
 * before), or with `starzk prove --policy-plugin PATH` / `starzk bench
 * --policy-plugin PATH`. Its policies are then found by name like ours:
 * starzk_policy_by_name, starzk_policy_names, `--policy NAME`.
 *
 * The contract (what a policy may assume):
 *   - classes and tags are the program's; a policy only reads them
 *     (starzk_task_get_class, starzk_task_get_tag). A tag is readable from
 *     before submission until the task's callback has run;
 *   - task->sched_data is the policy's own: starzk never writes it;
 *   - a policy's names must not be taken by ours, by StarPU's built-in
 *     policies or by an earlier plug-in (the load fails, naming both);
 *   - the plug-in stays loaded until the process exits (policies must
 *     outlive every StarPU context that runs them);
 *   - it is built against the same StarPU major.minor as the library: the
 *     policy struct changes between versions, and the load refuses a
 *     plug-in built for another.
 * A plain policy takes care of the GPU lock, the memory interlock, etc.
 * itself if it wants them; starzk_policy_get_config() answers only for
 * contexts run by the engine.
 */
#ifndef STARZK_POLICIES_STARZK_PLUGIN_H
#define STARZK_POLICIES_STARZK_PLUGIN_H

#include <stddef.h>

#include <starpu.h>

#include "policies/resource_class.h"
#include "policies/starzk_policies.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this contract, with the StarPU major.minor a plug-in was
 * built against. */
#define STARZK_PLUGIN_ABI (1 * 10000 + STARPU_MAJOR_VERSION * 100 + STARPU_MINOR_VERSION)

/* Defines the two symbols the loader looks up (C linkage, visible even in
 * a plug-in built with -fvisibility=hidden). */
#ifdef __cplusplus
#define STARZK_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define STARZK_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif
#define STARZK_PLUGIN(list_function)                                             \
  STARZK_PLUGIN_EXPORT int starzk_plugin_abi(void) { return STARZK_PLUGIN_ABI; } \
  STARZK_PLUGIN_EXPORT struct starpu_sched_policy** starzk_plugin_policies(void) { return list_function(); }

/* The rules of starzk's own "starzk" policy (every rule on; mem_heavy_max
 * 0 = from the topology; see docs/policies.md), a starting point to edit. */
void starzk_policy_rules_default(struct starzk_policy_config* rules);

/* A policy run by starzk's engine with these default rules (the STARZK_*
 * switches still override them when a context starts). The name and
 * description are copied. Returns NULL when the name is empty or taken
 * (ours, StarPU's, or defined before). The policy lives until the process
 * exits; define each name once (e.g. behind a static pointer). */
struct starpu_sched_policy* starzk_engine_policy_define(const char* name, const char* description,
                                                        const struct starzk_policy_config* rules);

/* Load a plug-in and register its policies. Returns 0 (also when this file
 * was loaded before), or -1 with a message naming the file and the problem
 * in err: the file cannot be opened, it is not a starzk plug-in, it was
 * built for another StarPU, or a policy has no name, no push_task or
 * pop_task, or a name already taken. On error none of its policies is
 * registered. */
int starzk_policy_plugin_load(const char* path, char* err, size_t err_len);

/* Load the plug-ins STARZK_POLICY_PLUGIN names (':'-separated), once per
 * process; later calls return the first call's result. 0 when the
 * variable is unset or empty. */
int starzk_policy_plugins_load_env(char* err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* STARZK_POLICIES_STARZK_PLUGIN_H */
