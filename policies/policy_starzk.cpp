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

void init_starzk(unsigned sched_ctx_id) {
  rule_set_t r;
  // all rules on (the rule_set_t defaults)
  engine_init(sched_ctx_id, r);
}

}  // namespace

struct starpu_sched_policy policy_starzk = engine_policy(
    init_starzk, "starzk", "starzk: GPU lock, memory-bandwidth interlock, serialised free, oldest job first");

}  // namespace starzk::policies
