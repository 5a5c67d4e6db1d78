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

void init_nolock(unsigned sched_ctx_id) {
  rule_set_t r;
  r.gpu_lock = false;
  r.gpu_prefetch = false;
  engine_init(sched_ctx_id, r);
}

}  // namespace

struct starpu_sched_policy policy_nolock = engine_policy(init_nolock, "starzk-nolock", "starzk without the GPU lock");

}  // namespace starzk::policies
