// policy_starzk.cpp: the "starzk" policy. All of starzk's rules: one GPU
// chain per lock domain with memory-aware staging of the next one, the
// MEMORY_HEAVY cap with L3 spreading, serialised DEALLOC, oldest job first.
// It is the shared engine (engine.hpp) with these default rules; every
// STARZK_* environment switch still overrides them (docs/policies.md).

#include <starpu.h>
#include <starpu_scheduler.h>

#include "policies/engine.hpp"
#include "policies/policy_list.hpp"

namespace starzk::policies {

namespace {

void init_starzk(unsigned sched_ctx_id)
{
	rule_set_t r;
	// all rules on (the rule_set_t defaults)
	engine_init(sched_ctx_id, r);
}

}  // namespace

struct starpu_sched_policy policy_starzk = {
	.init_sched = init_starzk,
	.deinit_sched = engine_deinit,
	.push_task = engine_push,
	.simulate_push_task = nullptr,
	.push_task_notify = engine_push_notify,
	.pop_task = engine_pop,
	.pop_every_task = nullptr,
	.submit_hook = nullptr,
	.pre_exec_hook = nullptr,
	.post_exec_hook = engine_post_exec,
	.do_schedule = nullptr,
	.add_workers = engine_add_workers,
	.remove_workers = engine_remove_workers,
	.policy_name = "starzk",
	.policy_description = "starzk: GPU lock, memory-bandwidth interlock, serialised free, oldest job first",
	.worker_type = STARPU_WORKER_LIST,
};

}  // namespace starzk::policies
