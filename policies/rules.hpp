// rules.hpp: the shared parts every starzk policy is composed from.
//
//   rule_set_t   which rules a policy applies, its defaults overridable by
//                STARZK_* environment variables (docs/policies.md);
//   ledger_t     the process-wide record of what is running: MEMORY_HEAVY
//                tasks per L3 domain, DEALLOC tasks, which chain owns which
//                lock domain. Process-wide because the resources are the
//                machine's (memory links, munmap, a GPU), not one
//                scheduling context's;
//   pure helpers (parse_switch, l3_spread_allows) that tests call directly.
//
// A task holds its resources from the moment a worker pops it (before
// StarPU stamps its start time) until the policy's post_exec_hook (after
// StarPU stamps its end time), so the intervals in a profiling trace never
// show more than the ledger allowed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "policies/sched_mutex.hpp"

struct starpu_task;
struct starzk_policy_config;

namespace starzk::policies {

struct rule_set_t {
  bool gpu_lock = true;        // STARZK_GPU_LOCK
  bool gpu_prefetch = true;    // STARZK_GPU_PREFETCH
  bool mem_interlock = true;   // STARZK_MEM_INTERLOCK
  int mem_heavy_max = 0;       // STARZK_MEM_HEAVY_MAX; 0 = from hwloc (topology.hpp)
  bool serial_free = true;     // STARZK_SERIAL_FREE
  bool l3_spread = true;       // STARZK_L3_SPREAD
  int chain_on_cpu = -1;       // STARZK_CHAIN_ON_CPU: -1 auto, 0 never, 1 always
  bool cpu_lock = false;       // STARZK_CPU_LOCK: the CPU workers form one lock domain too
  bool gpu_first = true;       // STARZK_GPU_FIRST: CPU workers leave GPU-capable work to the GPUs
  bool chain_locality = true;  // STARZK_CHAIN_LOCALITY: a new chain starts on the GPU holding its inputs
  int gpu_run_ahead = 2;  // STARZK_GPU_RUN_AHEAD: partitions a GPU works for before their chain starts; 0 = no bound
  int chain_stall_ms =
      60000;  // STARZK_CHAIN_STALL_MS: report and release a chain that blocks a lock domain this long; 0 = never
};

// The public mirror of a rule set (starzk_policies.h), both ways. A
// config's switches count as on when non-zero; its numbers are taken as
// they are (negative ones clamp to 0, chain_on_cpu to -1/0/1).
void rules_to_config(const rule_set_t& rules, starzk_policy_config* cfg);
rule_set_t rules_from_config(const starzk_policy_config& cfg);

// "1/0", "on/off", "true/false", "yes/no" (any case). False on anything else.
bool parse_switch(const char* text, bool* value);

// Apply the STARZK_* variables to `base`. On a bad value the variable is
// ignored and *error (if given) names it and the value; returns the result.
rule_set_t apply_env(rule_set_t base, std::string* error);

// L3 placement: may a CPU worker in L3 domain `my_l3` start one more
// MEMORY_HEAVY task, given the running count per L3 domain and the L3
// domains of the *idle* workers that could run the task instead? Only if no
// such idle worker sits in a strictly less loaded domain.
bool l3_spread_allows(int my_l3, const std::vector<int>& load_by_l3, const std::vector<int>& idle_l3s);

// Chain identity: a tagged chain is its partition id; an untagged GPU_CHAIN
// task is a chain of its own: each call for one returns a key no other call
// returns (a process-wide counter above 2^63). Not StarPU's job id: that is
// 0 for every job of a StarPU built without FxT, which made every untagged
// chain task one chain. The engine calls it once per task, when the task
// reaches it (push, or push_task_notify for a pinned task).
std::uint64_t chain_key(bool has_chain, std::uint32_t chain);

// Bytes memory node `node` still lacks to stage `task`'s inputs: the data
// it reads with no valid copy there. Write-only, SCRATCH and REDUX buffers
// do not count: StarPU's idle prefetch leaves them alone (they are
// allocated when the task starts), so a task that writes large outputs,
// such as a witness map heading its chain, is staged by its inputs alone.
std::size_t staged_input_bytes(starpu_task* task, unsigned node);

// What a running task holds, so post_exec can give it back.
struct admitted_t {
  int rc = 0;                // enum starzk_resource_class
  bool counts_mem = false;   // took a MEMORY_HEAVY slot
  int l3 = -1;               // ...in this L3 domain
  bool counts_free = false;  // took the DEALLOC slot
  bool in_chain = false;     // counted in a chain's in-flight tasks
  std::uint64_t chain = 0;
  bool last = false;
  bool run_ahead = false;  // a non-chain task of a tagged chain on a GPU (gpu_run_ahead)
};

struct chain_state_t {
  std::vector<unsigned> domains;  // lock domains this chain owns
  int in_flight = 0;
  bool last_done = false;
};

class ledger_t {
 public:
  static ledger_t& instance();

  // Everything below is guarded by mu (lock order: a policy's queue
  // mutex, then this one).
  sched_mutex_t mu;
  int mem_running = 0;
  int free_running = 0;
  std::vector<int> l3_load;
  std::unordered_map<unsigned, std::uint64_t> domain_owner;
  std::unordered_map<std::uint64_t, chain_state_t> chains;
  std::unordered_map<const starpu_task*, admitted_t> admitted;
  // Run-ahead (gpu_run_ahead): per lock domain, the tagged chains whose
  // non-chain tasks (spmv, b_g2_msm) ran there before any GPU_CHAIN task
  // of theirs started; their outputs wait in that device's memory. A
  // chain leaves the lists when its first GPU_CHAIN task starts or its
  // last task ends. `begun` holds chains with a GPU_CHAIN task started
  // and the last not ended; `ended` the most recently ended chains
  // (bounded), so a late non-chain task of a finished chain stages nothing.
  std::unordered_map<unsigned, std::vector<std::uint64_t>> staged;
  std::unordered_set<std::uint64_t> begun;
  std::unordered_set<std::uint64_t> ended;
  std::deque<std::uint64_t> ended_order;

  // Bumped whenever a slot frees or work arrives; lets idle workers skip
  // a full scan while nothing changed (read without the mutex).
  std::atomic<std::uint64_t> generation{1};

  // Owner of a lock domain; false if free.
  bool owner_of(unsigned domain, std::uint64_t* chain) const;

  // The three rules' admission tests, one implementation for every
  // scheduler that books here (the engine, the component gates):
  //   memory interlock: a MEMORY_HEAVY slot is open under `cap`;
  //   serialised free: no DEALLOC task holds the slot;
  //   GPU lock: a GPU_CHAIN task of `chain` may start in lock domain
  //   `domain`: the domain is the chain's, or it is free and the chain
  //   holds none, or none of the chain's domains can run the task
  //   (`domain_can_run(d)`: some worker of lock domain d can run it).
  bool mem_slot_open(int cap) const { return mem_running < cap; }
  bool free_slot_open() const { return free_running < 1; }
  bool chain_admits(std::uint64_t chain, unsigned domain, const std::function<bool(unsigned)>& domain_can_run) const;
  // Whether `chain` may run a GPU_CHAIN task in `domain` now: the domain
  // is the chain's, or it is free and the chain holds no domain yet (or
  // `may_spread`: the chain's own domains cannot run the task).
  bool chain_may_use(std::uint64_t chain, unsigned domain, bool may_spread) const;
  // Whether a GPU in `domain` may run a non-chain task of `chain` under a
  // run-ahead bound of `limit` chains (limit <= 0: always).
  bool may_run_ahead(std::uint64_t chain, unsigned domain, int limit) const;
  // Record a popped task; takes the lock domain for chain tasks.
  void start(const starpu_task* task, const admitted_t& a, unsigned domain);
  // Give back what `task` held. True when it held anything.
  bool finish(const starpu_task* task);
  // At a task's end (a policy's post_exec hook): retire its tag (reading
  // the tag of a finished task does, task_tag.cpp, so a task created later
  // at this address starts untagged), then finish() under the lock.
  bool finish_ended(starpu_task* task);
  // Whether `task` holds anything (booked and not finished).
  bool holds(const starpu_task* task) const { return admitted.count(task) != 0; }
  // Give back what start booked for a task that did not run after all (a
  // scheduling component whose child refused it): as finish, except that
  // its chain is not over even if it is the chain's last task. True when
  // it held anything.
  bool cancel(const starpu_task* task);
  // The task no longer holds a MEMORY_HEAVY slot: it started on a worker
  // the cap does not count (a CUDA worker). True when it held one.
  bool release_mem(const starpu_task* task);
  // Drop a chain that will never end (stall.hpp): its lock domains are
  // free again and it counts nowhere.
  void abandon(std::uint64_t chain);
  // Forget everything (first policy instance of a StarPU run).
  void reset();
  // A scheduler that books here starts (an engine, a component gate); the
  // first one while none is live starts from an empty ledger (reset) and
  // gets true. detach when it stops. Both take mu.
  bool attach();
  void detach();

 private:
  ledger_t() = default;
  int users_ = 0;  // live schedulers (attach / detach), guarded by mu
};

}  // namespace starzk::policies
