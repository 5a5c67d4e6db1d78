// component_gate.hpp: the machinery every starzk scheduling component
// shares (starzk_components.h). A gate is a StarPU component holding a
// ready queue (ready_queue.hpp: oldest job, then priority, then arrival)
// and one rule. On push it queues the task and pumps: every queued task the
// rule admits for a child is booked in the ledger (rules.hpp) and pushed
// down; the others wait. It pumps again when a child has room (can_push)
// and when a booked task ends anywhere (post_exec), since that frees what
// a held task waits for. A child may also pull a task from it (a worker
// component right below a gate). A gate whose rule asks for it (the GPU
// lock) watches for a stalled chain as the engine does (stall.hpp).
//
// The three rules (component_gpu_lock.cpp, component_mem_interlock.cpp,
// component_serial_free.cpp) decide only; their tests are the ledger's,
// the same ones the engine asks.
#pragma once

#include <starpu.h>
#include <starpu_sched_component.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>

#include "policies/ready_queue.hpp"
#include "policies/rules.hpp"
#include "policies/stall.hpp"

struct starzk_policy_config;

namespace starzk::policies {

// What a gate's rule says about one queued task.
enum class verdict_t { pass, book, hold };

class gate_rule_t {
 public:
  virtual ~gate_rule_t() = default;
  // The component's name in StarPU's tree.
  virtual const char* name() const = 0;
  // Whether `task` may go down to `target` now. pass: without booking;
  // book: fill *a and *domain for ledger_t::start; hold: keep it. Called
  // with the gate's mutex and L.mu held, for tasks no gate booked yet.
  virtual verdict_t admit(starpu_task* task, const ready_entry_t& e, starpu_sched_component* target, const ledger_t& L,
                          admitted_t* a, unsigned* domain) = 0;
  // The booked task goes down to `target` (after admit said book, same
  // locks held): the rule may narrow where it runs.
  virtual void placed(starpu_task*, unsigned /*domain*/, starpu_sched_component* /*target*/) {}
  // The task ended, or went back into the queue: undo placed. Any thread,
  // no lock held.
  virtual void unplaced(starpu_task*) {}
  // Workers joined or left the tree.
  virtual void workers_changed(starpu_sched_component*) {}
  // The fields of a config this rule answers for (components_config).
  virtual void report(starzk_policy_config* cfg) const = 0;
  // > 0: the gate watches for a stalled chain (stall.hpp) and reports and
  // releases one after this many ms (the GPU lock's chain_stall_ms).
  virtual int stall_ms() const { return 0; }
};

class gate_t {
 public:
  gate_t(starpu_sched_component* self, std::unique_ptr<gate_rule_t> rule);

  int push(starpu_task* task) noexcept;
  starpu_task* pull(starpu_sched_component* to) noexcept;
  // Push down every queued task the rule admits; true if any went down.
  bool pump() noexcept;
  void workers_changed() noexcept { rule_->workers_changed(self_); }
  void unplaced(starpu_task* task) noexcept { rule_->unplaced(task); }
  void report(starzk_policy_config* cfg) const { rule_->report(cfg); }
  unsigned ctx() const { return self_->tree->sched_ctx_id; }
  std::size_t queued();

 private:
  struct taken_t {
    starpu_task* task = nullptr;
    starpu_sched_component* target = nullptr;
    ready_entry_t entry;
    bool booked = false;  // by this gate's rule (not by a gate above)
  };
  // The first queued task admitted for `to` (nullptr: any child that can
  // execute it), booked and out of the queue; task nullptr when none.
  taken_t take(starpu_sched_component* to);
  // A task a child refused: booking back, into the queue again.
  void put_back(const taken_t& t);
  // The stall watch's tick (stall.hpp): a chain holding a lock domain
  // that nothing can end any more, while a chain waits here, is reported
  // and released once the same stall, with no task started or ended in a
  // gated context, has lasted rule_->stall_ms().
  void watch_stall() noexcept;

  starpu_sched_component* self_;
  std::unique_ptr<gate_rule_t> rule_;
  sched_mutex_t mu_;  // guards queue_ and seq_ (lock order: mu_, then the ledger's)
  ready_queue_t queue_;
  std::uint64_t seq_ = 0;
  // The stall watch; only its thread touches these.
  std::chrono::steady_clock::time_point stall_since_;
  std::uint64_t stall_owner_ = 0, stall_gen_ = 0, stall_events_ = 0;
  bool stall_seen_ = false;
  std::unique_ptr<stall_watch_t> watch_;  // last: stopped before the rest goes
};

// A StarPU component running `rule` (the three create functions of
// starzk_components.h end here).
starpu_sched_component* make_gate(starpu_sched_tree* tree, std::unique_ptr<gate_rule_t> rule);

// The rules a gate starts from: `cfg` (nullptr: the defaults), then the
// STARZK_* variables (a bad value is printed and ignored).
rule_set_t gate_rules(const starzk_policy_config* cfg);

// Whether `worker` can run `task` (any implementation).
bool gate_can_run(int worker, starpu_task* task);

// The rules the gates of context `ctx` apply; false when it has none.
bool components_config(unsigned ctx, starzk_policy_config* cfg);

// Every live gate pumps (a booked task ended or gave a slot back), and
// every gate's rule forgets what it placed for `task` (the task ended).
void pump_all_gates();
void unplace_everywhere(starpu_task* task);

// A task of a gated context started or ended (the policy hooks): the
// stall watch needs to know that nothing runs, including tasks no gate
// booked.
void note_task_started();
void note_task_ended();

}  // namespace starzk::policies
