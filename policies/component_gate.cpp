// component_gate.cpp: the gate every starzk scheduling component is
// (component_gate.hpp): its queue, the pump that lets admitted tasks down,
// the StarPU callbacks, and the registry of live gates that the policy
// hooks (component_tree.cpp) pump when a booked task ends. No exception
// leaves the callbacks: they allocate only through std containers, and an
// allocation failure inside StarPU's callbacks has no recovery.

#include "policies/component_gate.hpp"

#include <starpu.h>
#include <starpu_sched_component.h>
#include <starpu_scheduler.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "policies/resource_class.h"
#include "policies/starzk_components.h"
#include "policies/starzk_policies.h"

namespace starzk::policies {

namespace {

constexpr int k_class_order[STARZK_RC_COUNT] = {STARZK_RC_GPU_CHAIN, STARZK_RC_MEMORY_HEAVY, STARZK_RC_DEALLOC,
                                                STARZK_RC_LIGHT};

// Every live gate, for the hooks. Shared while pumping, exclusive while a
// gate is made or destroyed.
std::shared_mutex g_gates_mu;
std::vector<gate_t*> g_gates;

// Tasks of gated contexts between pre_exec and post_exec, and the number
// of such starts and ends (the stall watch's "nothing changed").
std::atomic<std::int64_t> g_running{0};
std::atomic<std::uint64_t> g_events{0};

// Take a mutex as StarPU's components do: a worker thread that may hold
// its own scheduling mutex is put in the relaxed state while it waits, so
// that a thread waking it cannot deadlock on it.
template <class M>
void relaxed_lock(M& m) {
  const int relaxed = starpu_worker_get_relax_state();
  if (!relaxed) starpu_worker_relax_on();
  m.lock();
  if (!relaxed) starpu_worker_relax_off();
}

gate_t* gate_of(starpu_sched_component* c) { return static_cast<gate_t*>(c->data); }

int gate_push(starpu_sched_component* c, starpu_task* task) { return gate_of(c)->push(task); }

starpu_task* gate_pull(starpu_sched_component* c, starpu_sched_component* to) { return gate_of(c)->pull(to); }

int gate_can_push(starpu_sched_component* c, starpu_sched_component*) { return gate_of(c)->pump() ? 1 : 0; }

void gate_workers_changed(starpu_sched_component* c) { gate_of(c)->workers_changed(); }

void gate_deinit(starpu_sched_component* c) {
  gate_t* g = gate_of(c);
  {
    std::unique_lock<std::shared_mutex> lk(g_gates_mu);
    std::erase(g_gates, g);
  }
  if (std::size_t left = g->queued())
    std::fprintf(stderr, "starzk components: gate '%s' destroyed with %zu tasks queued\n", c->name, left);
  delete g;
  c->data = nullptr;
  ledger_t::instance().detach();
}

}  // namespace

gate_t::gate_t(starpu_sched_component* self, std::unique_ptr<gate_rule_t> rule) : self_(self), rule_(std::move(rule)) {
  if (const int ms = rule_->stall_ms(); ms > 0)
    watch_ = std::make_unique<stall_watch_t>(std::chrono::milliseconds(std::clamp(ms / 4, 10, 1000)),
                                             [this] { watch_stall(); });
}

int gate_t::push(starpu_task* task) noexcept {
  starzk_task_tag tag;
  starzk_task_get_tag(task, &tag);
  const int rc = starzk_task_get_class(task);
  ready_entry_t e;
  e.job = tag.job;
  e.priority = task->priority;
  e.task = task;
  // Chain identity once per task, as the engine does: an untagged
  // GPU_CHAIN task is a chain of its own.
  e.chain = rc == STARZK_RC_GPU_CHAIN ? chain_key(tag.has_chain, tag.chain) : tag.chain;
  e.last = tag.has_chain ? tag.is_last != 0 : true;
  relaxed_lock(mu_);
  e.seq = seq_++;
  queue_.push(rc, e);
  mu_.unlock();
  pump();
  return 0;
}

std::size_t gate_t::queued() {
  std::lock_guard<sched_mutex_t> lk(mu_);
  return queue_.size();
}

gate_t::taken_t gate_t::take(starpu_sched_component* to) {
  ledger_t& L = ledger_t::instance();
  relaxed_lock(mu_);
  std::lock_guard<sched_mutex_t> lk(mu_, std::adopt_lock);
  relaxed_lock(L.mu);
  std::lock_guard<sched_mutex_t> lk_ledger(L.mu, std::adopt_lock);
  struct pick_t {
    int rc = -1;
    ready_queue_t::set_t::iterator it;
    starpu_sched_component* target = nullptr;
    verdict_t verdict = verdict_t::hold;
    admitted_t a;
    unsigned domain = 0;
  } best;
  for (int rc : k_class_order) {
    auto& set = queue_.of(rc);
    for (auto it = set.begin(); it != set.end(); ++it) {
      starpu_sched_component* target = nullptr;
      if (to) {
        if (starpu_sched_component_can_execute_task(to, it->task)) target = to;
      } else {
        for (unsigned i = 0; i < self_->nchildren && !target; ++i)
          if (starpu_sched_component_can_execute_task(self_->children[i], it->task)) target = self_->children[i];
      }
      if (!target) continue;
      pick_t p;
      p.verdict = L.holds(it->task) ? verdict_t::pass : rule_->admit(it->task, *it, target, L, &p.a, &p.domain);
      if (p.verdict == verdict_t::hold) continue;
      p.rc = rc;
      p.it = it;
      p.target = target;
      if (best.rc < 0 || it->before(*best.it)) best = p;
      break;  // the first admitted task of each class; the oldest of those wins
    }
  }
  taken_t t;
  if (best.rc < 0) return t;
  t.task = best.it->task;
  t.target = best.target;
  t.entry = *best.it;
  if (best.verdict == verdict_t::book) {
    L.start(t.task, best.a, best.domain);
    rule_->placed(t.task, best.domain, t.target);
    t.booked = true;
  }
  queue_.erase(best.rc, best.it);
  return t;
}

void gate_t::put_back(const taken_t& t) {
  // Only what this gate booked: a task a gate above booked keeps that.
  if (t.booked) {
    ledger_t& L = ledger_t::instance();
    {
      relaxed_lock(L.mu);
      std::lock_guard<sched_mutex_t> lk_ledger(L.mu, std::adopt_lock);
      L.cancel(t.task);
    }
    rule_->unplaced(t.task);
  }
  relaxed_lock(mu_);
  std::lock_guard<sched_mutex_t> lk(mu_, std::adopt_lock);
  queue_.push(starzk_task_get_class(t.task), t.entry);
}

bool gate_t::pump() noexcept {
  bool any = false;
  for (;;) {
    taken_t t = take(nullptr);
    if (!t.task) return any;
    // No lock held: the child may call back into this gate.
    if (starpu_sched_component_push_task(self_, t.target, t.task) != 0) {
      put_back(t);
      return any;
    }
    any = true;
  }
}

starpu_task* gate_t::pull(starpu_sched_component* to) noexcept { return take(to).task; }

// The engine's watch (engine.cpp) with one more condition: the ledger
// books only the guarded classes here, so "nothing runs" also asks the
// hooks' count of running tasks, and any task start or end restarts the
// clock.
void gate_t::watch_stall() noexcept {
  ledger_t& L = ledger_t::instance();
  try {
    {
      std::lock_guard<sched_mutex_t> lk(mu_);
      std::lock_guard<sched_mutex_t> lk_ledger(L.mu);
      std::vector<std::uint64_t> ready;
      for (const ready_entry_t& e : queue_.of(STARZK_RC_GPU_CHAIN)) ready.push_back(e.chain);
      const std::optional<stall_t> s =
          g_running.load(std::memory_order_acquire) == 0 ? find_stalled_chain(L, ready) : std::nullopt;
      const std::uint64_t gen = L.generation.load(std::memory_order_acquire);
      const std::uint64_t events = g_events.load(std::memory_order_acquire);
      const auto now = std::chrono::steady_clock::now();
      if (!s || !stall_seen_ || s->owner != stall_owner_ || gen != stall_gen_ || events != stall_events_) {
        stall_seen_ = s.has_value();
        stall_owner_ = s ? s->owner : 0;
        stall_gen_ = gen;
        stall_events_ = events;
        stall_since_ = now;
        return;
      }
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - stall_since_).count();
      if (ms < rule_->stall_ms()) return;
      const std::string message = describe_stall(*s, static_cast<int>(ms));
      std::fprintf(stderr, "%s\n", message.c_str());
      stall_error_set(message);
      L.abandon(s->owner);
      stall_seen_ = false;
    }
    pump_all_gates();  // the waiting chain may take the domain now
  } catch (...) {
    return;  // out of memory: try again at the next tick
  }
}

starpu_sched_component* make_gate(starpu_sched_tree* tree, std::unique_ptr<gate_rule_t> rule) {
  if (!tree) return nullptr;
  starpu_sched_component* c = starpu_sched_component_create(tree, rule->name());
  if (!c) return nullptr;
  auto* g = new gate_t(c, std::move(rule));
  c->data = g;
  c->push_task = gate_push;
  c->pull_task = gate_pull;
  c->can_push = gate_can_push;
  c->can_pull = starpu_sched_component_can_pull;
  c->notify_change_workers = gate_workers_changed;
  c->deinit_data = gate_deinit;
  if (ledger_t::instance().attach()) stall_error_clear();
  std::unique_lock<std::shared_mutex> lk(g_gates_mu);
  g_gates.push_back(g);
  return c;
}

rule_set_t gate_rules(const starzk_policy_config* cfg) {
  std::string error;
  rule_set_t r = apply_env(cfg ? rules_from_config(*cfg) : rule_set_t{}, &error);
  if (!error.empty()) std::fprintf(stderr, "%s\n", error.c_str());
  return r;
}

bool gate_can_run(int worker, starpu_task* task) {
  unsigned nimpl = 0;
  return starpu_worker_can_execute_task_first_impl(static_cast<unsigned>(worker), task, &nimpl) != 0;
}

// A booked task ended (or started where it holds nothing any more): let
// every gate try its held tasks again. The ledger is the process's, so a
// task of one context may free what a gate of another waits for.
void pump_all_gates() {
  std::shared_lock<std::shared_mutex> lk(g_gates_mu);
  for (gate_t* g : g_gates) g->pump();
}

void note_task_started() {
  g_running.fetch_add(1, std::memory_order_acq_rel);
  g_events.fetch_add(1, std::memory_order_acq_rel);
}

void note_task_ended() {
  g_running.fetch_sub(1, std::memory_order_acq_rel);
  g_events.fetch_add(1, std::memory_order_acq_rel);
}

void unplace_everywhere(starpu_task* task) {
  std::shared_lock<std::shared_mutex> lk(g_gates_mu);
  for (gate_t* g : g_gates) g->unplaced(task);
}

bool components_config(unsigned ctx, starzk_policy_config* cfg) {
  std::shared_lock<std::shared_mutex> lk(g_gates_mu);
  bool found = false;
  for (gate_t* g : g_gates)
    if (g->ctx() == ctx) {
      if (!found) *cfg = starzk_policy_config{};
      found = true;
      g->report(cfg);
    }
  return found;
}

}  // namespace starzk::policies

extern "C" int starzk_component_is_gate(struct starpu_sched_component* component) {
  return component && component->push_task == starzk::policies::gate_push ? 1 : 0;
}
