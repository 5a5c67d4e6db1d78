// component_serial_free.cpp: serialised deallocation as a StarPU
// scheduling component (starzk_components.h): at most one DEALLOC task
// between the gate and its end, wherever it runs (docs/policies.md,
// "Serialised deallocation": unmapping tens of GiB at once causes
// TLB-shootdown storms). The slot test is the ledger's
// (ledger_t::free_slot_open), the one the engine asks.

#include <starpu.h>
#include <starpu_sched_component.h>

#include <memory>

#include "policies/component_gate.hpp"
#include "policies/resource_class.h"
#include "policies/starzk_components.h"
#include "policies/starzk_policies.h"

namespace starzk::policies {

namespace {

class serial_free_rule_t final : public gate_rule_t {
 public:
  explicit serial_free_rule_t(const rule_set_t& r) : rules_(r) {}
  const char* name() const override { return "starzk_serial_free"; }

  verdict_t admit(starpu_task* task, const ready_entry_t&, starpu_sched_component*, const ledger_t& L, admitted_t* a,
                  unsigned*) override {
    if (!rules_.serial_free || starzk_task_get_class(task) != STARZK_RC_DEALLOC) return verdict_t::pass;
    if (!L.free_slot_open()) return verdict_t::hold;
    a->rc = STARZK_RC_DEALLOC;
    a->counts_free = true;
    return verdict_t::book;
  }

  void report(starzk_policy_config* cfg) const override { cfg->serial_free = rules_.serial_free; }

 private:
  rule_set_t rules_;
};

}  // namespace

}  // namespace starzk::policies

extern "C" struct starpu_sched_component* starzk_component_serial_free_create(
    struct starpu_sched_tree* tree, const struct starzk_policy_config* rules) {
  using namespace starzk::policies;
  return make_gate(tree, std::make_unique<serial_free_rule_t>(gate_rules(rules)));
}
