// component_mem_interlock.cpp: the memory-bandwidth interlock as a StarPU
// scheduling component (starzk_components.h). At most mem_heavy_max
// MEMORY_HEAVY tasks that a CPU worker could run are between the gate and
// their end (docs/policies.md, "Memory-bandwidth interlock"); the slot
// test is the ledger's (ledger_t::mem_slot_open), the one the engine asks,
// and the default cap is the engine's: one per L3 domain of the CPU
// workers below the gate (topology.hpp).
//
// Above a decision component the gate does not know whether such a task
// will run on a CPU worker, which the cap counts, or on a CUDA worker,
// which it does not; it counts the task from the moment it lets it
// through, and the policy's pre_exec_hook gives the slot back when the
// task starts on a CUDA worker. A task only CUDA workers below can run
// passes without a slot.

#include <starpu.h>
#include <starpu_sched_component.h>

#include <atomic>
#include <memory>
#include <vector>

#include "policies/component_gate.hpp"
#include "policies/resource_class.h"
#include "policies/starzk_components.h"
#include "policies/starzk_policies.h"
#include "policies/topology.hpp"

namespace starzk::policies {

namespace {

class mem_interlock_rule_t final : public gate_rule_t {
 public:
  explicit mem_interlock_rule_t(const rule_set_t& r) : rules_(r) {}
  const char* name() const override { return "starzk_mem_interlock"; }

  verdict_t admit(starpu_task* task, const ready_entry_t&, starpu_sched_component* target, const ledger_t& L,
                  admitted_t* a, unsigned*) override {
    if (!rules_.mem_interlock || starzk_task_get_class(task) != STARZK_RC_MEMORY_HEAVY) return verdict_t::pass;
    bool cpu_can = false;
    for (int w = starpu_bitmap_first(target->workers_in_ctx); w != -1 && !cpu_can;
         w = starpu_bitmap_next(target->workers_in_ctx, w))
      cpu_can = w < static_cast<int>(starpu_worker_get_count()) && starpu_worker_get_type(w) == STARPU_CPU_WORKER &&
                gate_can_run(w, task);
    if (!cpu_can) return verdict_t::pass;
    if (cap_.load(std::memory_order_relaxed) == 0) workers_changed(target);
    if (!L.mem_slot_open(cap_.load(std::memory_order_relaxed))) return verdict_t::hold;
    a->rc = STARZK_RC_MEMORY_HEAVY;
    a->counts_mem = true;
    a->l3 = -1;  // which L3 domain is known only when it starts
    return verdict_t::book;
  }

  // The cap: the rules' own, else one per L3 domain of the CPU workers
  // below (at least 1).
  void workers_changed(starpu_sched_component* c) override {
    if (rules_.mem_heavy_max > 0) {
      cap_.store(rules_.mem_heavy_max, std::memory_order_relaxed);
      return;
    }
    std::vector<int> cpus;
    for (int w = starpu_bitmap_first(c->workers_in_ctx); w != -1; w = starpu_bitmap_next(c->workers_in_ctx, w))
      if (w < static_cast<int>(starpu_worker_get_count()) && starpu_worker_get_type(w) == STARPU_CPU_WORKER)
        cpus.push_back(w);
    if (!cpus.empty()) cap_.store(default_mem_heavy_max(cpus), std::memory_order_relaxed);
  }

  void report(starzk_policy_config* cfg) const override {
    cfg->mem_interlock = rules_.mem_interlock;
    const int cap = cap_.load(std::memory_order_relaxed);
    cfg->mem_heavy_max = cap > 0 ? cap : rules_.mem_heavy_max;
  }

 private:
  rule_set_t rules_;
  std::atomic<int> cap_{0};  // 0 until the workers below are known
};

}  // namespace

}  // namespace starzk::policies

extern "C" struct starpu_sched_component* starzk_component_mem_interlock_create(
    struct starpu_sched_tree* tree, const struct starzk_policy_config* rules) {
  using namespace starzk::policies;
  return make_gate(tree, std::make_unique<mem_interlock_rule_t>(gate_rules(rules)));
}
