// registry.cpp: the library's public C entry points. Finds our policies
// (and those defined or plugged in at run time, plugin.cpp) by name, lists them, reports a context's effective rules,
// validates the STARZK_* switches, and exports the two symbols StarPU 1.4+ looks up in a library named by
// STARPU_SCHED_LIB (starpu_get_sched_lib_policy and starpu_get_sched_lib_policies, C linkage, 1.4 signatures).

#include <starpu.h>
#include <starpu_scheduler.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "policies/component_gate.hpp"
#include "policies/engine.hpp"
#include "policies/plugin.hpp"
#include "policies/policy_list.hpp"
#include "policies/rules.hpp"
#include "policies/starzk_policies.h"
#include "policies/topology.hpp"

namespace starzk::policies {
namespace {

// NULL-terminated, in the order the names are listed.
struct starpu_sched_policy* g_policies[] = {&policy_starzk, &policy_nolock,       &policy_nomem,
                                            &policy_prio,   &policy_modular_heft, nullptr};

}  // namespace

starpu_sched_policy* builtin_policy_by_name(const char* name) {
  for (auto** p = g_policies; name && *p; ++p)
    if (std::strcmp((*p)->policy_name, name) == 0) return *p;
  return nullptr;
}

}  // namespace starzk::policies

using namespace starzk::policies;

extern "C" {

struct starpu_sched_policy* starzk_policy_by_name(const char* name) {
  if (!name) return nullptr;
  if (starpu_sched_policy* p = builtin_policy_by_name(name)) return p;
  return extra_policy_by_name(name);
}

const char* const* starzk_policy_names(void) { return all_policy_names(g_policies); }

int starzk_policy_get_config(unsigned sched_ctx_id, struct starzk_policy_config* cfg) {
  // Only a context an engine runs: not the callbacks of the policy (a
  // plug-in may share some) but its private data, which must be a live
  // engine (engine.cpp); or a context whose scheduling tree holds starzk
  // gates (component_gate.cpp keeps them by context; the rules the gates
  // apply, the others 0). An id past StarPU's contexts names none.
  if (!cfg || !starpu_is_initialized() || sched_ctx_id >= STARPU_NMAX_SCHED_CTXS) return -1;
  return engine_config(sched_ctx_id, cfg) || components_config(sched_ctx_id, cfg) ? 0 : -1;
}

int starzk_policy_limit_gpu_run_ahead(unsigned sched_ctx_id, int n) {
  if (n < 1 || !starpu_is_initialized() || sched_ctx_id >= STARPU_NMAX_SCHED_CTXS) return -1;
  return engine_limit_run_ahead(sched_ctx_id, n) ? 0 : -1;
}

int starzk_policy_reserve_gpu_memory(unsigned sched_ctx_id, size_t bytes) {
  if (!starpu_is_initialized() || sched_ctx_id >= STARPU_NMAX_SCHED_CTXS) return -1;
  return engine_reserve_gpu_memory(sched_ctx_id, bytes) ? 0 : -1;
}

int starzk_policies_error(char* err, size_t err_len) {
  std::string error;
  if (!engine_error(&error)) return 0;
  if (err && err_len > 0) std::snprintf(err, err_len, "%s", error.c_str());
  return -1;
}

int starzk_policies_check_env(char* err, size_t err_len) {
  std::string error;
  apply_env(rule_set_t{}, &error);
  if (error.empty()) return 0;
  if (err && err_len > 0) std::snprintf(err, err_len, "%s", error.c_str());
  return -1;
}

int starzk_policies_default_mem_heavy_max(unsigned sched_ctx_id) {
  std::vector<int> cpus;
  struct starpu_worker_collection* workers = starpu_sched_ctx_get_worker_collection(sched_ctx_id);
  if (workers) {
    struct starpu_sched_ctx_iterator it;
    workers->init_iterator(workers, &it);
    while (workers->has_next(workers, &it)) {
      int w = workers->get_next(workers, &it);
      if (starpu_worker_get_type(w) == STARPU_CPU_WORKER) cpus.push_back(w);
    }
  }
  return default_mem_heavy_max(cpus);
}

struct starpu_sched_policy* starpu_get_sched_lib_policy(const char* name) {
  return builtin_policy_by_name(name);
}

struct starpu_sched_policy** starpu_get_sched_lib_policies(void) {
  return g_policies;
}

}  // extern "C"
