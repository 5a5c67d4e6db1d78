// engine.cpp: the central-queue scheduler behind every starzk policy (see
// engine.hpp for the model): push, pop, post_exec, pinned tasks, workers
// joining and leaving, the stall watch, and the StarPU callbacks; the
// decisions are in engine_rules.cpp. No exception leaves these callbacks:
// they only allocate through std containers, and an allocation failure
// inside a StarPU callback has no recovery, so the callbacks are noexcept.

#include "policies/engine.hpp"

#include <starpu.h>
#include <starpu_scheduler.h>

#include <cstdio>
#include <optional>
#include <string>
#include <unordered_set>

#include "policies/engine_impl.hpp"
#include "policies/resource_class.h"
#include "policies/starzk_policies.h"

namespace starzk::policies {

namespace {

// The private data of every live engine. starzk_policy_get_config accepts
// a context only when its policy data is in this set: a context run by any
// other policy (StarPU's, a plug-in's) holds something else there, which
// must never be read as an engine.
sched_mutex_t g_engines_mu;
std::unordered_set<const void*> g_engines;

}  // namespace

void engine_t::go_idle(int w) {
  if (!idle_[w].exchange(true, std::memory_order_acq_rel))
    ledger_t::instance().generation.fetch_add(1, std::memory_order_acq_rel);
}

std::vector<int> engine_t::idle_workers_except(int self, starpu_task* able_to_run) {
  std::vector<int> out;
  for (int w : workers_)
    if (w != self && idle_[w].load(std::memory_order_relaxed) && (!able_to_run || can_run(w, able_to_run, nullptr)))
      out.push_back(w);
  return out;
}

int engine_t::push(starpu_task* task) noexcept {
  starzk_task_tag tag;
  starzk_task_get_tag(task, &tag);
  int rc = starzk_task_get_class(task);
  ready_entry_t e;
  e.job = tag.job;
  e.priority = task->priority;
  e.task = task;
  e.chain = chain_key(tag.has_chain, tag.chain);
  e.last = tag.has_chain ? tag.is_last != 0 : true;

  std::vector<int> wake;
  starpu_worker_relax_on();
  mu_.lock();
  starpu_worker_relax_off();
  e.seq = seq_++;
  queue_.push(rc, e);
  npending_.fetch_add(1, std::memory_order_acq_rel);
  starpu_push_task_end(task);
  wake = idle_workers_except(-1, task);
  ledger_t::instance().generation.fetch_add(1, std::memory_order_acq_rel);
  mu_.unlock();
  for (int w : wake) starpu_wake_worker_relax_light(w);
  return 0;
}

starpu_task* engine_t::pop() noexcept {
  int w = starpu_worker_get_id_check();
  ledger_t& L = ledger_t::instance();
  if (npending_.load(std::memory_order_acquire) == 0) {
    go_idle(w);
    return nullptr;
  }
  std::uint64_t gen = L.generation.load(std::memory_order_acquire);
  if (last_fail_[w].load(std::memory_order_relaxed) == gen)
    return nullptr;  // nothing changed since this worker last found nothing

  starpu_worker_relax_on();
  std::lock_guard<sched_mutex_t> lk(mu_);
  std::lock_guard<sched_mutex_t> lk_ledger(L.mu);
  starpu_worker_relax_off();

  choice_t c = choose(w, L);
  if (c.rc < 0) {
    last_fail_[w].store(gen, std::memory_order_relaxed);
    go_idle(w);
    return nullptr;
  }
  const worker_place_t& me = place(w);
  starpu_task* task = c.it->task;
  admitted_t a;
  a.rc = c.rc;
  a.counts_mem = c.rc == STARZK_RC_MEMORY_HEAVY && me.kind == worker_kind_t::cpu;
  a.l3 = me.l3;
  a.counts_free = c.rc == STARZK_RC_DEALLOC;
  a.in_chain = c.rc == STARZK_RC_GPU_CHAIN && rules_.gpu_lock && locks(me.lock_domain);
  a.chain = c.it->chain;
  a.last = c.it->last;
  a.run_ahead = c.rc != STARZK_RC_GPU_CHAIN && runs_ahead(me, a.chain);
  queue_.erase(c.rc, c.it);
  npending_.fetch_sub(1, std::memory_order_acq_rel);
  starpu_task_set_implementation(task, c.nimpl);
  L.start(task, a, me.lock_domain);
  idle_[w].store(false, std::memory_order_relaxed);
  if (me.kind == worker_kind_t::cuda && rules_.gpu_lock && rules_.gpu_prefetch && me.lock_domain != STARPU_MAIN_RAM)
    prefetch_next_chain(w, me, L);
  return task;
}

void engine_t::post_exec(starpu_task* task) noexcept {
  if (!ledger_t::instance().finish_ended(task)) return;
  std::vector<int> wake;
  starpu_worker_relax_on();
  mu_.lock();
  starpu_worker_relax_off();
  if (queue_.size() > 0) wake = idle_workers_except(starpu_worker_get_id(), nullptr);
  mu_.unlock();
  for (int w : wake) starpu_wake_worker_relax_light(w);
}

void engine_t::push_notify(starpu_task* task, int workerid) noexcept {
  starzk_task_tag tag;
  starzk_task_get_tag(task, &tag);
  int rc = starzk_task_get_class(task);
  ledger_t& L = ledger_t::instance();
  std::lock_guard<sched_mutex_t> lk(mu_);
  std::lock_guard<sched_mutex_t> lk_ledger(L.mu);
  const worker_place_t& me = place(workerid);
  admitted_t a;
  a.rc = rc;
  a.counts_mem = rc == STARZK_RC_MEMORY_HEAVY && me.kind == worker_kind_t::cpu;
  a.l3 = me.l3;
  a.counts_free = rc == STARZK_RC_DEALLOC;
  a.in_chain = rc == STARZK_RC_GPU_CHAIN && rules_.gpu_lock && locks(me.lock_domain);
  a.chain = chain_key(tag.has_chain, tag.chain);
  a.last = tag.has_chain ? tag.is_last != 0 : true;
  a.run_ahead = rc != STARZK_RC_GPU_CHAIN && runs_ahead(me, a.chain);
  L.start(task, a, me.lock_domain);
}

// Called by the stall watch's thread: the same stall, with the ledger
// unchanged, for rules_.chain_stall_ms means no task will ever end it.
void engine_t::watch_stall() noexcept {
  ledger_t& L = ledger_t::instance();
  std::vector<int> wake;
  try {
    std::lock_guard<sched_mutex_t> lk(mu_);
    std::lock_guard<sched_mutex_t> lk_ledger(L.mu);
    std::vector<std::uint64_t> ready;
    for (const ready_entry_t& e : queue_.of(STARZK_RC_GPU_CHAIN)) ready.push_back(e.chain);
    const std::optional<stall_t> s = find_stalled_chain(L, ready);
    const std::uint64_t gen = L.generation.load(std::memory_order_acquire);
    const auto now = std::chrono::steady_clock::now();
    if (!s || !stall_seen_ || s->owner != stall_owner_ || gen != stall_gen_) {
      stall_seen_ = s.has_value();
      stall_owner_ = s ? s->owner : 0;
      stall_gen_ = gen;
      stall_since_ = now;
      return;
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - stall_since_).count();
    if (ms < rules_.chain_stall_ms) return;
    const std::string message = describe_stall(*s, static_cast<int>(ms));
    std::fprintf(stderr, "%s\n", message.c_str());
    stall_error_set(message);
    L.abandon(s->owner);
    stall_seen_ = false;
    wake = idle_workers_except(-1, nullptr);
  } catch (...) {
    return;  // out of memory: try again at the next tick
  }
  for (int w : wake) starpu_wake_worker_relax_light(w);
}

void engine_t::add_workers(unsigned ctx, const int* ids, unsigned n) noexcept {
  std::lock_guard<sched_mutex_t> lk(mu_);
  for (unsigned i = 0; i < n; ++i) {
    int w = ids[i];
    known_[w] = false;
    place(w);
    bool present = false;
    for (int x : workers_) present = present || x == w;
    if (!present) workers_.push_back(w);
    starpu_sched_ctx_worker_shares_tasks_lists(w, static_cast<int>(ctx));
  }
  std::vector<int> cpus;
  for (int w : workers_)
    if (place(w).kind == worker_kind_t::cpu) cpus.push_back(w);
  hw_cap_ = default_mem_heavy_max(cpus);
  ledger_t::instance().generation.fetch_add(1, std::memory_order_acq_rel);
}

void engine_t::remove_workers(const int* ids, unsigned n) noexcept {
  std::lock_guard<sched_mutex_t> lk(mu_);
  for (unsigned i = 0; i < n; ++i) std::erase(workers_, ids[i]);
}

void engine_t::config(starzk_policy_config* cfg) {
  std::lock_guard<sched_mutex_t> lk(mu_);
  rules_to_config(rules_, cfg);
  cfg->mem_heavy_max = cap();  // the effective cap, topology's when 0
}

void engine_t::limit_run_ahead(int n) {
  {
    std::lock_guard<sched_mutex_t> lk(mu_);
    if (rules_.gpu_run_ahead > 0 && n < rules_.gpu_run_ahead) rules_.gpu_run_ahead = n;
  }
  ledger_t::instance().generation.fetch_add(1, std::memory_order_acq_rel);
}

void engine_t::reserve_gpu_memory(std::size_t bytes) {
  std::size_t now = stage_reserve_.load(std::memory_order_relaxed);
  while (now < bytes && !stage_reserve_.compare_exchange_weak(now, bytes, std::memory_order_relaxed)) {
  }
}

namespace {

engine_t* engine_of(unsigned ctx) { return static_cast<engine_t*>(starpu_sched_ctx_get_policy_data(ctx)); }

}  // namespace

void engine_init(unsigned sched_ctx_id, const rule_set_t& defaults) {
  std::string error;
  rule_set_t rules = apply_env(defaults, &error);
  if (!error.empty()) std::fprintf(stderr, "%s\n", error.c_str());
  if (ledger_t::instance().attach()) stall_error_clear();
  auto* engine = new engine_t(rules);
  {
    std::lock_guard<sched_mutex_t> lk(g_engines_mu);
    g_engines.insert(engine);
  }
  starpu_sched_ctx_set_policy_data(sched_ctx_id, engine);
}

void engine_deinit(unsigned sched_ctx_id) {
  engine_t* engine = engine_of(sched_ctx_id);
  {
    std::lock_guard<sched_mutex_t> lk(g_engines_mu);
    g_engines.erase(engine);
  }
  delete engine;
  starpu_sched_ctx_set_policy_data(sched_ctx_id, nullptr);
  ledger_t::instance().detach();
}

int engine_push(starpu_task* task) { return engine_of(task->sched_ctx)->push(task); }
starpu_task* engine_pop(unsigned sched_ctx_id) { return engine_of(sched_ctx_id)->pop(); }
void engine_post_exec(starpu_task* task, unsigned sched_ctx_id) { engine_of(sched_ctx_id)->post_exec(task); }

void engine_push_notify(starpu_task* task, int workerid, int, unsigned sched_ctx_id) {
  engine_of(sched_ctx_id)->push_notify(task, workerid);
}

void engine_add_workers(unsigned sched_ctx_id, int* workerids, unsigned nworkers) {
  engine_of(sched_ctx_id)->add_workers(sched_ctx_id, workerids, nworkers);
}

void engine_remove_workers(unsigned sched_ctx_id, int* workerids, unsigned nworkers) {
  engine_of(sched_ctx_id)->remove_workers(workerids, nworkers);
}

bool engine_error(std::string* message) { return stall_error(message); }

bool engine_config(unsigned sched_ctx_id, starzk_policy_config* cfg) {
  std::lock_guard<sched_mutex_t> lk(g_engines_mu);
  auto* engine = static_cast<engine_t*>(starpu_sched_ctx_get_policy_data(sched_ctx_id));
  if (!engine || !g_engines.count(engine)) return false;
  engine->config(cfg);
  return true;
}

bool engine_limit_run_ahead(unsigned sched_ctx_id, int n) {
  std::lock_guard<sched_mutex_t> lk(g_engines_mu);
  auto* engine = static_cast<engine_t*>(starpu_sched_ctx_get_policy_data(sched_ctx_id));
  if (!engine || !g_engines.count(engine)) return false;
  engine->limit_run_ahead(n);
  return true;
}

bool engine_reserve_gpu_memory(unsigned sched_ctx_id, std::size_t bytes) {
  std::lock_guard<sched_mutex_t> lk(g_engines_mu);
  auto* engine = static_cast<engine_t*>(starpu_sched_ctx_get_policy_data(sched_ctx_id));
  if (!engine || !g_engines.count(engine)) return false;
  engine->reserve_gpu_memory(bytes);
  return true;
}

}  // namespace starzk::policies
