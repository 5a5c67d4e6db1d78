// component_gpu_lock.cpp: the GPU lock as a StarPU scheduling component
// (starzk_components.h). In each locked lock domain (a GPU's memory node;
// main RAM too with cpu_lock) at most one chain has GPU_CHAIN tasks
// between the gate and their end; the chain keeps the domain until its
// is_last task has ended and nothing of it runs (docs/policies.md, "GPU
// lock"). Whether a chain may take or keep a domain is the ledger's test
// (ledger_t::chain_admits), the one the engine asks.
//
// Above a decision component the gate cannot know where the decision will
// send a task, so it decides the domain itself and narrows the task to that
// domain's workers, then puts the task's own fields back when it ends. The
// decision component still chooses among the domain's workers, and decides
// everything else. Two fields narrow it:
//   starpu_task::workerids  StarPU's own "run on one of these workers";
//   starpu_task::where      the domain's kind of worker (CUDA or CPU).
// Both are needed: StarPU 1.3's components ask "can this worker run it"
// as starpu_worker_can_execute_task(...) ||
// starpu_combined_worker_can_execute_task(...), and the second test, for a
// plain worker, reads `where` but not `workerids`. With workerids alone a
// chain task could reach any worker of any kind; with `where` as well it
// stays on the domain's kind, and on its own GPU wherever StarPU honours
// workerids (docs/policies.md, "The component route").
// As in the engine's auto mode, a chain's tasks go to the GPUs when a CUDA
// worker below can run them, else to the CPU workers.

#include <starpu.h>
#include <starpu_sched_component.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "policies/component_gate.hpp"
#include "policies/resource_class.h"
#include "policies/starzk_components.h"
#include "policies/starzk_policies.h"

namespace starzk::policies {

namespace {

constexpr unsigned k_bits = 32;  // bits per starpu_task::workerids word

struct worker_t {
  int id;
  unsigned domain;
  bool cuda;
  std::int32_t where;  // the starpu_task::where bit of its kind (every bit for a kind not named here)
};

std::int32_t where_bit(starpu_worker_archtype type) {
  switch (type) {
    case STARPU_CPU_WORKER:
      return static_cast<std::int32_t>(STARPU_CPU);
    case STARPU_CUDA_WORKER:
      return static_cast<std::int32_t>(STARPU_CUDA);
    case STARPU_OPENCL_WORKER:
      return static_cast<std::int32_t>(STARPU_OPENCL);
    default:
      return ~std::int32_t{0};
  }
}

class gpu_lock_rule_t final : public gate_rule_t {
 public:
  explicit gpu_lock_rule_t(const rule_set_t& r) : rules_(r) {}
  const char* name() const override { return "starzk_gpu_lock"; }

  verdict_t admit(starpu_task* task, const ready_entry_t& e, starpu_sched_component* target, const ledger_t& L,
                  admitted_t* a, unsigned* domain) override {
    if (!rules_.gpu_lock || starzk_task_get_class(task) != STARZK_RC_GPU_CHAIN) return verdict_t::pass;
    const std::vector<worker_t> able = able_workers(task, target);
    if (able.empty()) return verdict_t::pass;  // nothing below runs it: not ours to hold
    // GPU first for chains: the CUDA workers when one can run the task.
    bool any_cuda = false;
    for (const worker_t& w : able) any_cuda = any_cuda || w.cuda;
    std::vector<unsigned> domains;
    for (const worker_t& w : able)
      if (w.cuda == any_cuda && std::find(domains.begin(), domains.end(), w.domain) == domains.end())
        domains.push_back(w.domain);
    if (!any_cuda && !rules_.cpu_lock) return verdict_t::pass;  // chains on CPU workers are not locked
    auto can_run_in = [&](unsigned d) { return std::find(domains.begin(), domains.end(), d) != domains.end(); };
    for (unsigned d : domains)
      if (L.chain_admits(e.chain, d, can_run_in)) {
        a->rc = STARZK_RC_GPU_CHAIN;
        a->in_chain = true;
        a->chain = e.chain;
        a->last = e.last;
        *domain = d;
        return verdict_t::book;
      }
    return verdict_t::hold;
  }

  void placed(starpu_task* task, unsigned domain, starpu_sched_component* target) override {
    // Narrow the task to the workers of its domain, unless every worker
    // below that can run it is there already: their ids, and the kinds of
    // worker among them (a domain's workers share one memory node, so one
    // kind in practice).
    std::vector<std::uint32_t> mask((STARPU_NMAXWORKERS + k_bits - 1) / k_bits, 0);
    std::int32_t kinds = 0;
    bool narrower = false;
    for (const worker_t& w : able_workers(task, target)) {
      if (w.domain == domain) {
        mask[w.id / k_bits] |= std::uint32_t{1} << (w.id % k_bits);
        kinds |= w.where;
      } else {
        narrower = true;
      }
    }
    if (!narrower) return;
    std::lock_guard<sched_mutex_t> lk(mu_);
    saved_t& s = saved_[task];
    s.workerids = task->workerids;
    s.workerids_len = task->workerids_len;
    s.where = task->where;
    s.mask = std::move(mask);
    task->workerids = s.mask.data();
    task->workerids_len = static_cast<unsigned>(s.mask.size());
    task->where = task->where & kinds;  // never empty: the domain's workers can run the task
  }

  void unplaced(starpu_task* task) override {
    std::lock_guard<sched_mutex_t> lk(mu_);
    auto it = saved_.find(task);
    if (it == saved_.end()) return;
    task->workerids = it->second.workerids;
    task->workerids_len = it->second.workerids_len;
    task->where = it->second.where;
    saved_.erase(it);
  }

  void report(starzk_policy_config* cfg) const override {
    cfg->gpu_lock = rules_.gpu_lock;
    cfg->cpu_lock = rules_.cpu_lock;
    cfg->chain_on_cpu = -1;
    cfg->chain_stall_ms = stall_ms();
  }

  // A chain that holds a domain and can never end it is reported and
  // released (stall.hpp), as by the engine.
  int stall_ms() const override { return rules_.gpu_lock ? rules_.chain_stall_ms : 0; }

 private:
  struct saved_t {
    std::uint32_t* workerids = nullptr;  // the task's own list, put back at its end
    unsigned workerids_len = 0;
    std::int32_t where = 0;           // the task's own kinds of worker
    std::vector<std::uint32_t> mask;  // the list the gate set
  };

  // The workers below `target` that can run the task as it stands.
  static std::vector<worker_t> able_workers(starpu_task* task, starpu_sched_component* target) {
    std::vector<worker_t> out;
    for (int w = starpu_bitmap_first(target->workers_in_ctx); w != -1;
         w = starpu_bitmap_next(target->workers_in_ctx, w)) {
      if (w >= static_cast<int>(starpu_worker_get_count()) || !gate_can_run(w, task)) continue;
      const starpu_worker_archtype type = starpu_worker_get_type(w);
      out.push_back(
          {w, starpu_worker_get_memory_node(static_cast<unsigned>(w)), type == STARPU_CUDA_WORKER, where_bit(type)});
    }
    return out;
  }

  rule_set_t rules_;
  sched_mutex_t mu_;  // guards saved_
  std::unordered_map<starpu_task*, saved_t> saved_;
};

}  // namespace

}  // namespace starzk::policies

extern "C" struct starpu_sched_component* starzk_component_gpu_lock_create(struct starpu_sched_tree* tree,
                                                                           const struct starzk_policy_config* rules) {
  using namespace starzk::policies;
  return make_gate(tree, std::make_unique<gpu_lock_rule_t>(gate_rules(rules)));
}
