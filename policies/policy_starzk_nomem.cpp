// policy_starzk_nomem.cpp: the "starzk-nomem" policy. Everything but the
// memory-bandwidth interlock and the L3 spreading: MEMORY_HEAVY tasks run as
// wide as the workers allow.
// It is the shared engine (engine.hpp) with these default rules; every
// STARZK_* environment switch still overrides them (docs/policies.md).

#include <starpu.h>
#include <starpu_scheduler.h>

#include "policies/engine.hpp"
#include "policies/policy_list.hpp"

namespace starzk::policies {

namespace {

void init_nomem(unsigned sched_ctx_id) {
  rule_set_t r;
  r.mem_interlock = false;
  r.l3_spread = false;
  engine_init(sched_ctx_id, r);
}

}  // namespace

struct starpu_sched_policy policy_nomem =
    engine_policy(init_nomem, "starzk-nomem", "starzk without the memory-bandwidth interlock");

}  // namespace starzk::policies
