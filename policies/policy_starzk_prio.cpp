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

void init_prio(unsigned sched_ctx_id) {
  rule_set_t r;
  r.gpu_lock = false;
  r.gpu_prefetch = false;
  r.mem_interlock = false;
  r.l3_spread = false;
  r.serial_free = false;
  r.gpu_run_ahead = 0;
  engine_init(sched_ctx_id, r);
}

}  // namespace

struct starpu_sched_policy policy_prio =
    engine_policy(init_prio, "starzk-prio", "starzk ordering only (oldest job first), no resource rule");

}  // namespace starzk::policies
