// trace.cpp: the task-trace recorder (see trace.hpp; its JSON form is
// trace_json.cpp). The callback wrapper never throws into StarPU: it only
// copies plain fields and appends to a vector under a mutex.

#include "runtime/trace.hpp"

#include <starpu.h>
#include <starpu_profiling.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "policies/resource_class.h"
#include "policies/starzk_policies.h"
#include "runtime/starpu_session.hpp"

namespace starzk::runtime {

// What the wrapper needs to record the task and call the program's callback.
struct trace_hook_t {
  trace_recorder* recorder = nullptr;
  std::uint64_t id = 0;
  starpu_task* task = nullptr;
  void (*callback)(void*) = nullptr;
  void* callback_arg = nullptr;
  bool free_arg = false;
  std::vector<std::uint64_t> after;     // attach()'s dependencies
  std::vector<trace_buffer_t> buffers;  // attach()'s record of the task's buffers
  std::vector<unsigned> missing;        // on_pop's finding
  void (*pop)(void*) = nullptr;         // the program's own pop prologue, called after on_pop's check
  void* pop_arg = nullptr;
};

struct trace_hook_access {
  static void on_pop(void* arg) noexcept;
  static void on_done(void* arg) noexcept;
  static double epoch(const trace_recorder& r) { return r.epoch_us_; }
};

namespace {

// A buffer's access mode as a trace names it.
std::string mode_name(starpu_data_access_mode mode) {
  if (mode & STARPU_SCRATCH) return "SCRATCH";
  if (mode & STARPU_REDUX) return "REDUX";
  if ((mode & STARPU_RW) == STARPU_RW) return "RW";
  return (mode & STARPU_W) ? "W" : "R";
}

// The kinds of worker that could run `task` (its `where`, a body, its
// codelet's can_execute), for the performance models it needs.
std::vector<std::string> could_run(starpu_task* task) {
  std::vector<std::string> kinds;
  for (auto [type, name] : {std::pair{STARPU_CPU_WORKER, "cpu"}, std::pair{STARPU_CUDA_WORKER, "cuda"}}) {
    int ids[STARPU_NMAXWORKERS];
    const unsigned n = starpu_worker_get_ids_by_type(type, ids, STARPU_NMAXWORKERS);
    for (unsigned i = 0; i < n; ++i)
      if (starpu_worker_can_execute_task_first_impl(unsigned(ids[i]), task, nullptr)) {
        kinds.emplace_back(name);
        break;
      }
  }
  return kinds;
}

const char* kind_name(int worker) {
  switch (starpu_worker_get_type(worker)) {
    case STARPU_CPU_WORKER:
      return "cpu";
    case STARPU_CUDA_WORKER:
      return "cuda";
    default:
      return "other";
  }
}

}  // namespace

// When the task's worker takes it (StarPU's pop prologue, on the worker's
// thread): the buffers it reads that have no valid copy yet on the node it
// needs each on (its codelet's specific node, else the worker's), a copy
// under way included (starpu_data_query_status: StarPU's unlocked hint,
// good for a diagnosis).
void trace_hook_access::on_pop(void* arg) noexcept {
  auto* h = static_cast<trace_hook_t*>(arg);
  starpu_task* task = h->task;
  const int worker = starpu_worker_get_id();
  if (worker < 0 || !task->cl) return;
  const unsigned local = starpu_worker_get_memory_node(unsigned(worker));
  try {
    for (unsigned i = 0; i < STARPU_TASK_GET_NBUFFERS(task); ++i) {
      starpu_data_handle_t d = STARPU_TASK_GET_HANDLE(task, i);
      if (!d || !(STARPU_TASK_GET_MODE(task, i) & STARPU_R)) continue;  // written only: nothing to copy
      unsigned node = local;
      if (task->cl->specific_nodes && (task->cl->dyn_nodes || i < STARPU_NMAXBUFS)) {
        const int n = STARPU_CODELET_GET_NODE(task->cl, i);
        if (n == STARPU_SPECIFIC_NODE_CPU)
          node = STARPU_MAIN_RAM;
        else if (n >= 0)
          node = unsigned(n);
      }
      int valid = 1;
      starpu_data_query_status(d, int(node), nullptr, &valid, nullptr);
      if (!valid) h->missing.push_back(i);
    }
  } catch (...) {
  }
  if (h->pop) h->pop(h->pop_arg);
}

void trace_hook_access::on_done(void* arg) noexcept {
  auto* h = static_cast<trace_hook_t*>(arg);
  starpu_task* task = h->task;
  try {
    trace_event_t e;
    e.id = h->id;
    e.starpu_job = starpu_task_get_job_id(task);
    const char* name = starpu_task_get_name(task);
    e.name = name ? name : "";
    e.codelet = (task->cl && task->cl->name) ? task->cl->name : "";
    e.rc = starzk_task_get_class(task);
    starzk_task_tag tag;
    starzk_task_get_tag(task, &tag);
    e.has_chain = tag.has_chain;
    e.chain = tag.chain;
    e.last = tag.is_last;
    e.job = tag.job;
    e.priority = task->priority;
    for (const trace_buffer_t& b : h->buffers) e.bytes += b.bytes;
    if (starpu_profiling_task_info* p = task->profiling_info) {
      e.worker = p->workerid;
      e.start_us = starpu_timing_timespec_to_us(&p->start_time) - epoch(*h->recorder);
      e.end_us = starpu_timing_timespec_to_us(&p->end_time) - epoch(*h->recorder);
      e.submit_us = starpu_timing_timespec_to_us(&p->submit_time) - epoch(*h->recorder);
      e.ready_us = starpu_timing_timespec_to_us(&p->push_start_time) - epoch(*h->recorder);
      // A time StarPU did not set is zero: left at -1.
      const auto at = [&](timespec t) {
        return t.tv_sec == 0 && t.tv_nsec == 0 ? -1.0 : starpu_timing_timespec_to_us(&t) - epoch(*h->recorder);
      };
      e.popped_us = at(p->pop_end_time);
      e.fetched_us = at(p->acquire_data_end_time);
    }
    e.after = std::move(h->after);
    e.buffers = std::move(h->buffers);
    e.missing = std::move(h->missing);
    if (e.worker >= 0) {
      e.worker_kind = kind_name(e.worker);
      e.domain = starpu_worker_get_memory_node(static_cast<unsigned>(e.worker));
    }
    if (task->cl && task->cl->model && task->cl->model->symbol && e.worker >= 0) {
      // The footprint StarPU computed for the task (cached in its job),
      // the key of the history entry its time went to.
      e.model = task->cl->model->symbol;
      e.footprint =
          starpu_task_footprint(task->cl->model, task, starpu_worker_get_perf_archtype(e.worker, task->sched_ctx), 0);
      e.could_run = could_run(task);
    }
    h->recorder->record(e);
  } catch (...) {
    // Out of memory while recording: the event is lost, the run goes on;
    // check_all_finished() will report the missing task.
  }
  // The program's own callback, as StarPU would have run it: the task's,
  // else the codelet's.
  void (*cb)(void*) = h->callback;
  if (!cb && task->cl) cb = task->cl->callback_func;
  if (cb) cb(h->callback_arg);
  if (h->free_arg) std::free(h->callback_arg);
  delete h;
}

trace_recorder::trace_recorder() {
  if (!starpu_is_initialized()) throw std::runtime_error("trace_recorder: StarPU is not running");
  if (starpu_profiling_status_get() != STARPU_PROFILING_ENABLE)
    throw std::runtime_error("trace_recorder: StarPU profiling is off (session_options_t::profiling = true)");
  epoch_us_ = starpu_timing_now();
  // The rules of the policy that runs (when it is an engine, or a tree
  // with starzk's gates: policies/starzk_components.h), so that
  // `starzk trace check` knows what the trace must show (invariants.hpp).
  starzk_policy_config cfg{};
  if (starzk_policy_get_config(0, &cfg) == 0)
    trace_.meta["policy_rules"] =
        "gpu_lock=" + std::to_string(cfg.gpu_lock) + " cpu_lock=" + std::to_string(cfg.cpu_lock) +
        " mem_interlock=" + std::to_string(cfg.mem_interlock) + " mem_heavy_max=" + std::to_string(cfg.mem_heavy_max) +
        " serial_free=" + std::to_string(cfg.serial_free);
}

trace_recorder::~trace_recorder() {
  // Callbacks still to come point at this object: let them run first.
  if (starpu_is_initialized() && finished() < submitted()) starpu_task_wait_for_all();
}

void trace_recorder::attach(starpu_task* task) {
  if (!task) throw std::runtime_error("trace_recorder::attach: null task");
  auto* h = new trace_hook_t;
  h->recorder = this;
  h->task = task;
  h->callback = task->callback_func;
  h->callback_arg = task->callback_arg;
  h->free_arg = task->callback_arg_free != 0;
  {
    std::lock_guard<std::mutex> lk(mu_);
    h->id = next_id_++;
    trace_.submitted.push_back(h->id);
    // StarPU's implicit dependencies, as it will apply them (trace.hpp).
    const unsigned n = task->cl ? STARPU_TASK_GET_NBUFFERS(task) : 0;
    for (unsigned i = 0; i < n; ++i) {
      starpu_data_handle_t d = STARPU_TASK_GET_HANDLE(task, i);
      if (!d) continue;
      const starpu_data_access_mode mode = STARPU_TASK_GET_MODE(task, i);
      auto [at, fresh] = access_.try_emplace(d);
      access_t& a = at->second;
      if (fresh) a.data = next_data_++;
      h->buffers.push_back({a.data, std::uint64_t(starpu_data_get_size(d)), mode_name(mode)});
      if (!starpu_data_get_sequential_consistency_flag(d)) continue;
      if (a.has_writer) h->after.push_back(a.writer);
      if (mode & STARPU_W) {
        h->after.insert(h->after.end(), a.readers.begin(), a.readers.end());
        a.readers.clear();
        a.writer = h->id;
        a.has_writer = true;
      } else {
        a.readers.push_back(h->id);
      }
    }
    std::sort(h->after.begin(), h->after.end());
    h->after.erase(std::unique(h->after.begin(), h->after.end()), h->after.end());
    std::erase(h->after, h->id);
  }
  task->callback_func = &trace_hook_access::on_done;
  task->callback_arg = h;
  task->callback_arg_free = 0;
  // A program's own pop prologue runs from ours, after the check (the
  // buffers are looked at as the worker found them); one whose argument
  // StarPU frees is left in place, and its task unexamined.
  if (!task->prologue_callback_pop_arg_free) {
    h->pop = task->prologue_callback_pop_func;
    h->pop_arg = task->prologue_callback_pop_arg;
    task->prologue_callback_pop_func = &trace_hook_access::on_pop;
    task->prologue_callback_pop_arg = h;
  }
}

void trace_recorder::submit(starpu_task* task) {
  attach(task);
  check_starpu(starpu_task_submit(task), "starpu_task_submit");
}

void trace_recorder::forget(const _starpu_data_state* h) noexcept {
  std::lock_guard<std::mutex> lk(mu_);
  access_.erase(h);
}

void trace_recorder::set_meta(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lk(mu_);
  trace_.meta[key] = value;
}

void trace_recorder::record(const trace_event_t& e) {
  std::lock_guard<std::mutex> lk(mu_);
  trace_.events.push_back(e);
}

trace_t trace_recorder::snapshot() const {
  std::lock_guard<std::mutex> lk(mu_);
  return trace_;
}

std::size_t trace_recorder::submitted() const {
  std::lock_guard<std::mutex> lk(mu_);
  return trace_.submitted.size();
}

std::size_t trace_recorder::finished() const {
  std::lock_guard<std::mutex> lk(mu_);
  return trace_.events.size();
}

}  // namespace starzk::runtime
