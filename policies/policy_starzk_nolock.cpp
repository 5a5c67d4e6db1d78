// policy_starzk_nolock.cpp: the "starzk-nolock" policy. Everything but the
// GPU lock: chains may interleave on a device, which shows what the lock
// buys.
// It is the shared engine (engine.hpp) with these default rules; every
// STARZK_* environment switch still overrides them (docs/policies.md).

#include <starpu.h>
#include <starpu_scheduler.h>

#include "policies/engine.hpp"
#include "policies/policy_list.hpp"

namespace starzk::policies {

namespace {

void init_nolock(unsigned sched_ctx_id)
{
	rule_set_t r;
	r.gpu_lock = false;
	r.gpu_prefetch = false;
	engine_init(sched_ctx_id, r);
}

}  // namespace

struct starpu_sched_policy policy_nolock = {
	.init_sched = init_nolock,
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
	.policy_name = "starzk-nolock",
	.policy_description = "starzk without the GPU lock",
	.worker_type = STARPU_WORKER_LIST,
};

}  // namespace starzk::policies
