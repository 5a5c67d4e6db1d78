// engine_rules.cpp: the engine's decisions (engine_impl.hpp): which ready
// task a worker may take now under the rules that are on (GPU lock, GPU
// first, chain locality, run-ahead, memory interlock, L3 spreading,
// serialised free; docs/policies.md), and the staging of the next chain.
// Called with the engine's queue mutex and the ledger's mutex held.

#include <starpu.h>
#include <starpu_scheduler.h>

#include <cmath>

#include "policies/engine_impl.hpp"
#include "policies/resource_class.h"

namespace starzk::policies {

namespace {

constexpr int k_class_order[STARZK_RC_COUNT] = {STARZK_RC_GPU_CHAIN, STARZK_RC_MEMORY_HEAVY, STARZK_RC_DEALLOC,
                                                STARZK_RC_LIGHT};

}  // namespace

bool can_run(int worker, starpu_task* task, unsigned* nimpl) {
  unsigned impl = 0;
  int ok = starpu_worker_can_execute_task_first_impl(static_cast<unsigned>(worker), task, &impl);
  if (nimpl) *nimpl = impl;
  return ok != 0;
}

const worker_place_t& engine_t::place(int w) {
  if (!known_[w]) {
    place_[w] = describe_worker(w);
    known_[w] = true;
  }
  return place_[w];
}

bool engine_t::class_open(int rc, const worker_place_t& me, const ledger_t& L) const {
  switch (rc) {
    case STARZK_RC_MEMORY_HEAVY:
      return !(rules_.mem_interlock && me.kind == worker_kind_t::cpu && !L.mem_slot_open(cap()));
    case STARZK_RC_DEALLOC:
      return !(rules_.serial_free && !L.free_slot_open());
    case STARZK_RC_GPU_CHAIN:
      return me.kind == worker_kind_t::cuda || rules_.chain_on_cpu != 0;
    default:
      return true;
  }
}

// The GPU lock guards device memory and the device's one chain at a time;
// chain tasks run on CPU workers (no GPU, or STARZK_CHAIN_ON_CPU) are only
// locked when STARZK_CPU_LOCK asks for it, since serialising chains on the
// CPU would idle the cores (the switch exists to test the rule on CPU-only
// machines).
bool engine_t::locks(unsigned lock_domain) const { return lock_domain != STARPU_MAIN_RAM || rules_.cpu_lock; }

bool engine_t::some_cuda_can_run(starpu_task* task) {
  for (int w : workers_)
    if (place(w).kind == worker_kind_t::cuda && can_run(w, task, nullptr)) return true;
  return false;
}

// GPU first for every class: a task that a CUDA worker can run is left to
// the CUDA workers by a CPU worker, unless the performance models say the
// CPU body is within 2x of the CUDA one (then whichever worker is free
// first takes it). Without a calibrated model the GPU is assumed faster:
// on the H200 a 2^24 G2 MSM took 22-31 s on one CPU worker and 112 ms on
// the GPU, a 2^24 SpMV 5.6 s against 3 ms (docs/benchmarks.md).
bool engine_t::leave_to_gpu(int w, starpu_task* task, unsigned nimpl) {
  if (!rules_.gpu_first || place(w).kind != worker_kind_t::cpu || !some_cuda_can_run(task)) return false;
  const unsigned ctx = task->sched_ctx;
  const double cpu = starpu_task_expected_length(task, starpu_worker_get_perf_archtype(w, ctx), nimpl);
  double gpu = NAN;
  for (int g : workers_)
    if (place(g).kind == worker_kind_t::cuda) {
      unsigned gi = 0;
      if (!can_run(g, task, &gi)) continue;
      gpu = starpu_task_expected_length(task, starpu_worker_get_perf_archtype(g, ctx), gi);
      break;
    }
  if (!(cpu > 0) || !(gpu > 0) || std::isnan(cpu) || std::isnan(gpu)) return true;  // uncalibrated: GPU first
  return cpu > 2.0 * gpu;
}

bool engine_t::chain_admits(const ready_entry_t& e, const worker_place_t& me, const ledger_t& L) {
  // GPU first: in auto mode a CPU worker leaves GPU_CHAIN work to CUDA
  // workers whenever one of them could run it.
  if (me.kind != worker_kind_t::cuda && rules_.chain_on_cpu < 0 && some_cuda_can_run(e.task)) return false;
  if (!rules_.gpu_lock || !locks(me.lock_domain)) return true;
  return L.chain_admits(e.chain, me.lock_domain, [&](unsigned d) {
    for (int w : workers_)
      if (place(w).lock_domain == d && can_run(w, e.task, nullptr)) return true;
    return false;
  });
}

std::vector<int> engine_t::idle_cpu_l3s(int self) {
  std::vector<int> l3s;
  for (int w : workers_)
    if (w != self && idle_[w].load(std::memory_order_relaxed) && place(w).kind == worker_kind_t::cpu)
      l3s.push_back(place(w).l3);
  return l3s;
}

// Whether an input of `task` (read modes) has a valid copy on another CUDA
// worker's memory node and none on `node`: starting it here would move it
// from device to device. Host-only data does not count (it crosses PCIe to
// whichever GPU runs the task).
bool engine_t::inputs_on_other_device(starpu_task* task, unsigned node) {
  for (unsigned i = 0; i < STARPU_TASK_GET_NBUFFERS(task); ++i) {
    if (!(STARPU_TASK_GET_MODE(task, i) & STARPU_R)) continue;
    starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
    if (starpu_data_is_on_node(h, node)) continue;
    for (int o : workers_) {
      const worker_place_t& p = place(o);
      if (p.kind == worker_kind_t::cuda && p.lock_domain != node && starpu_data_is_on_node(h, p.lock_domain))
        return true;
    }
  }
  return false;
}

// A non-chain task of a tagged chain, on a GPU, under a run-ahead bound.
bool engine_t::runs_ahead(const worker_place_t& me, std::uint64_t chain) const {
  return rules_.gpu_run_ahead > 0 && me.kind == worker_kind_t::cuda && me.lock_domain != STARPU_MAIN_RAM &&
         chain >> 63 == 0;
}

engine_t::choice_t engine_t::choose(int w, const ledger_t& L) {
  const worker_place_t me = place(w);
  choice_t best;
  choice_t first_chain;  // chain locality: the first admissible GPU_CHAIN task
  for (int rc : k_class_order) {
    if (!class_open(rc, me, L)) continue;
    auto& set = queue_.of(rc);
    for (auto it = set.begin(); it != set.end(); ++it) {
      unsigned nimpl = 0;
      if (!can_run(w, it->task, &nimpl)) continue;
      if (rc == STARZK_RC_GPU_CHAIN && !chain_admits(*it, me, L)) continue;
      // Chain locality: a chain that holds no domain yet starts where
      // its inputs are (spmv may have left a, b, c on another GPU);
      // this GPU takes other work first, and such a chain only when
      // it has nothing else. A started chain goes on.
      if (rc == STARZK_RC_GPU_CHAIN && me.kind == worker_kind_t::cuda && rules_.chain_locality &&
          me.lock_domain != STARPU_MAIN_RAM) {
        auto c = L.chains.find(it->chain);
        const bool started = c != L.chains.end() && !c->second.domains.empty();
        if (!started && inputs_on_other_device(it->task, me.lock_domain)) {
          if (first_chain.rc < 0) first_chain = {rc, it, nimpl};
          continue;
        }
      }
      if (rc != STARZK_RC_GPU_CHAIN && leave_to_gpu(w, it->task, nimpl)) continue;
      // Run-ahead: a GPU works for at most N partitions whose chain
      // has not started (their spmv rows and witness wait in its
      // memory); the rest wait for a chain to start.
      if (rc != STARZK_RC_GPU_CHAIN && runs_ahead(me, it->chain) &&
          !L.may_run_ahead(it->chain, me.lock_domain, rules_.gpu_run_ahead))
        continue;
      // Topology: leave memory-heavy work to an idle worker of a less
      // loaded L3 domain (the answer is the same for the whole class).
      if (rc == STARZK_RC_MEMORY_HEAVY && me.kind == worker_kind_t::cpu && rules_.l3_spread &&
          !l3_spread_allows(me.l3, L.l3_load, idle_cpu_l3s(w)))
        break;
      if (rc == STARZK_RC_GPU_CHAIN && me.kind == worker_kind_t::cuda)
        return {rc, it, nimpl};  // keep the GPU fed first
      if (best.rc < 0 || it->before(*best.it)) best = {rc, it, nimpl};
      break;
    }
  }
  // Only chains whose inputs sit on another GPU, and nothing else to do:
  // better to move them than to idle.
  if (best.rc < 0 && first_chain.rc >= 0) return first_chain;
  return best;
}

void engine_t::prefetch_next_chain(int w, const worker_place_t& me, const ledger_t& L) {
  // The phase-10 lesson: stage the next partition on the device only
  // when its inputs fit in what the device has left.
  unsigned node = me.lock_domain;
  for (const ready_entry_t& e : queue_.of(STARZK_RC_GPU_CHAIN)) {
    auto c = L.chains.find(e.chain);
    if (c != L.chains.end() && !c->second.domains.empty()) continue;  // that chain already runs somewhere
    if (!can_run(w, e.task, nullptr)) continue;
    if (rules_.chain_locality && inputs_on_other_device(e.task, node))
      continue;  // its inputs sit on another GPU: it should start there
    if (e.prefetched) return;
    const std::size_t need = staged_input_bytes(e.task, node) + stage_reserve_.load(std::memory_order_relaxed);
    starpu_ssize_t avail = starpu_memory_get_available(node);
    if (avail >= 0 && need <= static_cast<std::size_t>(avail)) {
      starpu_idle_prefetch_task_input_on_node(e.task, node);
      e.prefetched = true;
    }
    return;  // only the oldest waiting chain
  }
}

}  // namespace starzk::policies
