/*
 * plugin_example.c: a policy plug-in (policies/starzk_plugin.h) with one
 * policy of each kind:
 *   - "mini-serial-free", a plain StarPU policy (mini_serial_free.c);
 *   - "example-one-heavy", starzk's engine with its own rules: everything
 *     "starzk" does, but one MEMORY_HEAVY task at a time whatever the
 *     topology and one partition of run-ahead per GPU.
 * Built as libstarzk_policy_plugin_example.so; load it with
 *     starzk prove --manifest jobs.toml --policy-plugin PATH --policy example-one-heavy
 * or STARZK_POLICY_PLUGIN=PATH in any program that uses libstarzk_policies.
 */
#include <stddef.h>

#include <starpu.h>
#include <starpu_scheduler.h>

#include "policies/examples/mini_serial_free.h"
#include "policies/starzk_plugin.h"

static struct starpu_sched_policy** example_policies(void) {
  /* StarPU keeps pointers to the policies: the list is static, and the
     engine policy is defined once even if the list is asked for again. */
  static struct starpu_sched_policy* list[3];
  if (!list[0]) {
    struct starzk_policy_config rules;
    starzk_policy_rules_default(&rules);
    rules.mem_heavy_max = 1;
    rules.gpu_run_ahead = 1;
    list[1] =
        starzk_engine_policy_define("example-one-heavy", "starzk's rules, one MEMORY_HEAVY task at a time", &rules);
    list[0] = &mini_serial_free_policy;
    list[2] = NULL;
  }
  return list;
}

STARZK_PLUGIN(example_policies)
