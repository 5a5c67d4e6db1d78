// rules.cpp: environment switches, the L3 placement test and the ledger of
// running work shared by all starzk policies (see rules.hpp).

#include "policies/rules.hpp"

#include <starpu.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "policies/resource_class.h"
#include "policies/starzk_policies.h"

namespace starzk::policies {

namespace {

bool iequals(const char* a, const char* b) {
  for (; *a && *b; ++a, ++b)
    if (std::tolower(static_cast<unsigned char>(*a)) != std::tolower(static_cast<unsigned char>(*b))) return false;
  return *a == *b;
}

void note(std::string* error, const char* var, const char* value, const char* expected) {
  if (error && error->empty())
    *error = std::string("starzk policies: ") + var + "='" + value + "' is not " + expected + "; keeping the default";
}

void env_switch(const char* var, bool* field, std::string* error) {
  const char* v = std::getenv(var);
  if (!v || !*v) return;
  if (!parse_switch(v, field)) note(error, var, v, "0/1, on/off, true/false or yes/no");
}

// An integer in [lowest, 2^20]; anything else keeps *field and is reported.
void env_int(const char* var, long lowest, int* field, std::string* error) {
  const char* v = std::getenv(var);
  if (!v || !*v) return;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (end && *end == '\0' && n >= lowest && n <= 1 << 20)
    *field = static_cast<int>(n);
  else
    note(error, var, v, ("an integer >= " + std::to_string(lowest)).c_str());
}

}  // namespace

void rules_to_config(const rule_set_t& r, starzk_policy_config* cfg) {
  cfg->gpu_lock = r.gpu_lock;
  cfg->gpu_prefetch = r.gpu_prefetch;
  cfg->mem_interlock = r.mem_interlock;
  cfg->mem_heavy_max = r.mem_heavy_max;
  cfg->serial_free = r.serial_free;
  cfg->l3_spread = r.l3_spread;
  cfg->chain_on_cpu = r.chain_on_cpu;
  cfg->cpu_lock = r.cpu_lock;
  cfg->gpu_first = r.gpu_first;
  cfg->chain_locality = r.chain_locality;
  cfg->gpu_run_ahead = r.gpu_run_ahead;
  cfg->chain_stall_ms = r.chain_stall_ms;
}

rule_set_t rules_from_config(const starzk_policy_config& cfg) {
  rule_set_t r;
  r.gpu_lock = cfg.gpu_lock != 0;
  r.gpu_prefetch = cfg.gpu_prefetch != 0;
  r.mem_interlock = cfg.mem_interlock != 0;
  r.mem_heavy_max = std::max(cfg.mem_heavy_max, 0);
  r.serial_free = cfg.serial_free != 0;
  r.l3_spread = cfg.l3_spread != 0;
  r.chain_on_cpu = std::clamp(cfg.chain_on_cpu, -1, 1);
  r.cpu_lock = cfg.cpu_lock != 0;
  r.gpu_first = cfg.gpu_first != 0;
  r.chain_locality = cfg.chain_locality != 0;
  r.gpu_run_ahead = std::max(cfg.gpu_run_ahead, 0);
  r.chain_stall_ms = std::max(cfg.chain_stall_ms, 0);
  return r;
}

bool parse_switch(const char* text, bool* value) {
  if (!text) return false;
  for (const char* t : {"1", "on", "true", "yes"})
    if (iequals(text, t)) return *value = true, true;
  for (const char* f : {"0", "off", "false", "no"})
    if (iequals(text, f)) return *value = false, true;
  return false;
}

rule_set_t apply_env(rule_set_t r, std::string* error) {
  env_switch("STARZK_GPU_LOCK", &r.gpu_lock, error);
  env_switch("STARZK_GPU_PREFETCH", &r.gpu_prefetch, error);
  env_switch("STARZK_MEM_INTERLOCK", &r.mem_interlock, error);
  env_switch("STARZK_SERIAL_FREE", &r.serial_free, error);
  env_switch("STARZK_L3_SPREAD", &r.l3_spread, error);
  env_switch("STARZK_CPU_LOCK", &r.cpu_lock, error);
  env_switch("STARZK_GPU_FIRST", &r.gpu_first, error);
  env_switch("STARZK_CHAIN_LOCALITY", &r.chain_locality, error);
  env_int("STARZK_MEM_HEAVY_MAX", 1, &r.mem_heavy_max, error);
  env_int("STARZK_GPU_RUN_AHEAD", 0, &r.gpu_run_ahead, error);
  env_int("STARZK_CHAIN_STALL_MS", 0, &r.chain_stall_ms, error);
  if (const char* v = std::getenv("STARZK_CHAIN_ON_CPU"); v && *v) {
    bool b = false;
    if (iequals(v, "auto"))
      r.chain_on_cpu = -1;
    else if (parse_switch(v, &b))
      r.chain_on_cpu = b ? 1 : 0;
    else
      note(error, "STARZK_CHAIN_ON_CPU", v, "auto, 0 or 1");
  }
  return r;
}

bool l3_spread_allows(int my_l3, const std::vector<int>& load_by_l3, const std::vector<int>& idle_l3s) {
  auto load = [&](int l3) {
    return (l3 >= 0 && static_cast<std::size_t>(l3) < load_by_l3.size()) ? load_by_l3[l3] : 0;
  };
  int mine = load(my_l3);
  for (int other : idle_l3s)
    if (other != my_l3 && load(other) < mine) return false;
  return true;
}

bool ledger_t::finish_ended(starpu_task* task) {
  starzk_task_tag tag;
  starzk_task_get_tag(task, &tag);
  std::lock_guard<sched_mutex_t> lk(mu);
  return finish(task);
}

std::size_t staged_input_bytes(starpu_task* task, unsigned node) {
  std::size_t need = 0;
  for (unsigned i = 0; i < STARPU_TASK_GET_NBUFFERS(task); ++i) {
    const starpu_data_access_mode mode = STARPU_TASK_GET_MODE(task, i);
    if ((mode & (STARPU_SCRATCH | STARPU_REDUX)) || !(mode & STARPU_R)) continue;
    starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
    if (!starpu_data_is_on_node(h, node)) need += starpu_data_get_size(h);
  }
  return need;
}

std::uint64_t chain_key(bool has_chain, std::uint32_t chain) {
  // Tagged chains live in [0, 2^32); untagged ones above 2^63, one key each.
  static std::atomic<std::uint64_t> next_untagged{0};
  if (has_chain) return chain;
  return (std::uint64_t{1} << 63) | next_untagged.fetch_add(1, std::memory_order_relaxed);
}

// ---- ledger ------------------------------------------------------------------

ledger_t& ledger_t::instance() {
  static ledger_t ledger;
  return ledger;
}

bool ledger_t::owner_of(unsigned domain, std::uint64_t* chain) const {
  auto it = domain_owner.find(domain);
  if (it == domain_owner.end()) return false;
  if (chain) *chain = it->second;
  return true;
}

bool ledger_t::chain_may_use(std::uint64_t chain, unsigned domain, bool may_spread) const {
  std::uint64_t owner = 0;
  if (owner_of(domain, &owner)) return owner == chain;
  auto it = chains.find(chain);
  bool bound = it != chains.end() && !it->second.domains.empty();
  return !bound || may_spread;
}

bool ledger_t::chain_admits(std::uint64_t chain, unsigned domain,
                            const std::function<bool(unsigned)>& domain_can_run) const {
  // A chain stays in the domains it holds; it may take another only when
  // none of them can run this task.
  bool may_spread = false;
  auto c = chains.find(chain);
  if (c != chains.end() && !c->second.domains.empty()) {
    may_spread = true;
    for (unsigned d : c->second.domains)
      if (domain_can_run(d)) may_spread = false;
  }
  return chain_may_use(chain, domain, may_spread);
}

namespace {

constexpr std::size_t k_ended_kept = 4096;

void unstage(std::unordered_map<unsigned, std::vector<std::uint64_t>>& staged, std::uint64_t chain) {
  for (auto& [domain, list] : staged) std::erase(list, chain);
}

}  // namespace

bool ledger_t::may_run_ahead(std::uint64_t chain, unsigned domain, int limit) const {
  if (limit <= 0 || begun.count(chain) || ended.count(chain)) return true;
  auto it = staged.find(domain);
  if (it == staged.end()) return true;
  const std::vector<std::uint64_t>& list = it->second;
  return std::find(list.begin(), list.end(), chain) != list.end() || list.size() < static_cast<std::size_t>(limit);
}

void ledger_t::start(const starpu_task* task, const admitted_t& a, unsigned domain) {
  if (a.rc == STARZK_RC_GPU_CHAIN && a.chain >> 63 == 0) {
    if (begun.insert(a.chain).second) {
      unstage(staged, a.chain);
      ended.erase(a.chain);  // a chain id used again (a later batch)
    }
  } else if (a.run_ahead && !begun.count(a.chain) && !ended.count(a.chain)) {
    std::vector<std::uint64_t>& list = staged[domain];
    if (std::find(list.begin(), list.end(), a.chain) == list.end()) list.push_back(a.chain);
  }
  if (a.counts_mem) {
    ++mem_running;
    if (a.l3 >= 0) {
      if (l3_load.size() <= static_cast<std::size_t>(a.l3)) l3_load.resize(a.l3 + 1, 0);
      ++l3_load[a.l3];
    }
  }
  if (a.counts_free) ++free_running;
  if (a.in_chain) {
    chain_state_t& c = chains[a.chain];
    ++c.in_flight;
    if (!owner_of(domain, nullptr)) {
      domain_owner[domain] = a.chain;
      c.domains.push_back(domain);
    }
  }
  admitted[task] = a;
}

bool ledger_t::finish(const starpu_task* task) {
  auto it = admitted.find(task);
  if (it == admitted.end()) return false;
  admitted_t a = it->second;
  admitted.erase(it);
  if (a.counts_mem) {
    --mem_running;
    if (a.l3 >= 0 && static_cast<std::size_t>(a.l3) < l3_load.size()) --l3_load[a.l3];
  }
  if (a.counts_free) --free_running;
  if (a.last && a.rc == STARZK_RC_GPU_CHAIN && a.chain >> 63 == 0) {
    // The chain is over: it runs ahead nowhere any more.
    begun.erase(a.chain);
    unstage(staged, a.chain);
    if (ended.insert(a.chain).second) {
      ended_order.push_back(a.chain);
      if (ended_order.size() > k_ended_kept) {
        ended.erase(ended_order.front());
        ended_order.pop_front();
      }
    }
  }
  // A GPU_CHAIN task the lock did not count (it ran on a CPU worker: an MSM
  // that no GPU could hold) still ends its chain if it is the last: the
  // chain's GPU domain is then free once its GPU tasks are done.
  if (a.in_chain || (a.rc == STARZK_RC_GPU_CHAIN && a.last)) {
    auto c = chains.find(a.chain);
    if (c != chains.end()) {
      if (a.in_chain) --c->second.in_flight;
      c->second.last_done = c->second.last_done || a.last;
      // The lock is released when the chain's last task has ended and
      // nothing of the chain still runs.
      if (c->second.last_done && c->second.in_flight <= 0) {
        for (unsigned d : c->second.domains) {
          auto o = domain_owner.find(d);
          if (o != domain_owner.end() && o->second == a.chain) domain_owner.erase(o);
        }
        chains.erase(c);
      }
    }
  }
  generation.fetch_add(1, std::memory_order_acq_rel);
  return true;
}

bool ledger_t::cancel(const starpu_task* task) {
  auto it = admitted.find(task);
  if (it == admitted.end()) return false;
  it->second.last = false;  // it did not run: its chain goes on
  return finish(task);
}

bool ledger_t::release_mem(const starpu_task* task) {
  auto it = admitted.find(task);
  if (it == admitted.end() || !it->second.counts_mem) return false;
  admitted_t& a = it->second;
  a.counts_mem = false;
  --mem_running;
  if (a.l3 >= 0 && static_cast<std::size_t>(a.l3) < l3_load.size()) --l3_load[a.l3];
  generation.fetch_add(1, std::memory_order_acq_rel);
  return true;
}

void ledger_t::abandon(std::uint64_t chain) {
  auto c = chains.find(chain);
  if (c != chains.end()) {
    for (unsigned d : c->second.domains) {
      auto o = domain_owner.find(d);
      if (o != domain_owner.end() && o->second == chain) domain_owner.erase(o);
    }
    chains.erase(c);
  }
  begun.erase(chain);
  unstage(staged, chain);
  generation.fetch_add(1, std::memory_order_acq_rel);
}

void ledger_t::reset() {
  mem_running = 0;
  free_running = 0;
  l3_load.clear();
  domain_owner.clear();
  chains.clear();
  admitted.clear();
  staged.clear();
  begun.clear();
  ended.clear();
  ended_order.clear();
  generation.fetch_add(1, std::memory_order_acq_rel);
}

bool ledger_t::attach() {
  std::lock_guard<sched_mutex_t> lk(mu);
  if (users_++ > 0) return false;
  reset();
  return true;
}

void ledger_t::detach() {
  std::lock_guard<sched_mutex_t> lk(mu);
  if (users_ > 0) --users_;
}

}  // namespace starzk::policies
