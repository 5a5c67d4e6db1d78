// policy_starzk_prio.cpp: the "starzk-prio" policy. No resource rule at all,
// only the oldest-job-first priority order and GPU-first placement of
// GPU_CHAIN work: the baseline the rules are measured against.
// It is the shared engine (engine.hpp) with these default rules; every
// STARZK_* environment switch still overrides them (docs/policies.md).

#include <starpu.h>
#include <starpu_scheduler.h>

#include "policies/engine.hpp"
#include "policies/policy_list.hpp"

namespace starzk::policies {

namespace {

void init_prio(unsigned sched_ctx_id)
{
	rule_set_t r;
	r.gpu_lock = false;
	r.gpu_prefetch = false;
	r.mem_interlock = false;
	r.l3_spread = false;
	r.serial_free = false;
	engine_init(sched_ctx_id, r);
}

}  // namespace

struct starpu_sched_policy policy_prio = {
	.init_sched = init_prio,
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
	.policy_name = "starzk-prio",
	.policy_description = "starzk ordering only (oldest job first), no resource rule",
	.worker_type = STARPU_WORKER_LIST,
};

}  // namespace starzk::policies
