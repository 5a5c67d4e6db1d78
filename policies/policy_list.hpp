// policy_list.hpp: the policy objects this library defines, one per file
// (policy_starzk*.cpp: engine policies, and a component tree with gates),
// gathered for the registry (registry.cpp).
#pragma once

struct starpu_sched_policy;

namespace starzk::policies {

extern struct starpu_sched_policy policy_starzk;
extern struct starpu_sched_policy policy_nolock;
extern struct starpu_sched_policy policy_nomem;
extern struct starpu_sched_policy policy_prio;
extern struct starpu_sched_policy policy_modular_heft;

}  // namespace starzk::policies
