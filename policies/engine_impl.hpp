// engine_impl.hpp: the engine's class, shared by its two halves:
// engine_rules.cpp decides (which ready task a worker may take: the rules
// of docs/policies.md) and engine.cpp runs (push, pop, post_exec, the
// stall watch, the StarPU callbacks). Internal to libstarzk_policies.
#pragma once

#include <starpu.h>
#include <starpu_scheduler.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "policies/ready_queue.hpp"
#include "policies/rules.hpp"
#include "policies/stall.hpp"
#include "policies/topology.hpp"

struct starzk_policy_config;

namespace starzk::policies {

// starpu_worker_can_execute_task_first_impl as a bool; *nimpl (if given)
// gets the implementation to run.
bool can_run(int worker, starpu_task* task, unsigned* nimpl);

class engine_t {
 public:
  explicit engine_t(const rule_set_t& rules) : rules_(rules) {
    if (rules_.chain_stall_ms > 0)
      watch_ = std::make_unique<stall_watch_t>(
          std::chrono::milliseconds(std::clamp(rules_.chain_stall_ms / 4, 10, 1000)), [this] { watch_stall(); });
  }

  int push(starpu_task* task) noexcept;
  starpu_task* pop() noexcept;
  void post_exec(starpu_task* task) noexcept;
  void push_notify(starpu_task* task, int workerid) noexcept;
  void add_workers(unsigned ctx, const int* ids, unsigned n) noexcept;
  void remove_workers(const int* ids, unsigned n) noexcept;
  void config(starzk_policy_config* cfg);
  // Lowers a positive run-ahead bound to n (>= 1); an unbounded one (0)
  // stays as the rules set it.
  void limit_run_ahead(int n);
  // Raises the device bytes a staged chain must leave free to `bytes`
  // (starzk_policy_reserve_gpu_memory).
  void reserve_gpu_memory(std::size_t bytes);

 private:
  struct choice_t {
    int rc = -1;
    ready_queue_t::set_t::iterator it;
    unsigned nimpl = 0;
  };

  int cap() const { return rules_.mem_heavy_max > 0 ? rules_.mem_heavy_max : (hw_cap_ > 0 ? hw_cap_ : 1); }
  const worker_place_t& place(int w);
  bool locks(unsigned lock_domain) const;
  bool class_open(int rc, const worker_place_t& me, const ledger_t& L) const;
  bool chain_admits(const ready_entry_t& e, const worker_place_t& me, const ledger_t& L);
  bool some_cuda_can_run(starpu_task* task);
  bool leave_to_gpu(int w, starpu_task* task, unsigned nimpl);
  bool inputs_on_other_device(starpu_task* task, unsigned node);
  bool runs_ahead(const worker_place_t& me, std::uint64_t chain) const;
  std::vector<int> idle_cpu_l3s(int self);
  choice_t choose(int w, const ledger_t& L);
  void prefetch_next_chain(int w, const worker_place_t& me, const ledger_t& L);
  void go_idle(int w);
  std::vector<int> idle_workers_except(int self, starpu_task* able_to_run);
  void watch_stall() noexcept;

  rule_set_t rules_;
  int hw_cap_ = 0;
  sched_mutex_t mu_;  // guards everything below except the atomics
  ready_queue_t queue_;
  std::uint64_t seq_ = 0;
  std::vector<int> workers_;
  std::array<worker_place_t, STARPU_NMAXWORKERS> place_{};
  std::array<bool, STARPU_NMAXWORKERS> known_{};
  std::array<std::atomic<bool>, STARPU_NMAXWORKERS> idle_{};
  std::array<std::atomic<std::uint64_t>, STARPU_NMAXWORKERS> last_fail_{};
  std::atomic<std::size_t> npending_{0};
  std::atomic<std::size_t> stage_reserve_{0};  // bytes a staged chain leaves free (reserve_gpu_memory)
  // The stall watch (stall.hpp); only its thread touches these three.
  std::chrono::steady_clock::time_point stall_since_;
  std::uint64_t stall_owner_ = 0, stall_gen_ = 0;
  bool stall_seen_ = false;
  std::unique_ptr<stall_watch_t> watch_;  // last: stopped before the rest goes
};

}  // namespace starzk::policies
