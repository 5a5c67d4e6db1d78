// replay.cpp: submit a replay plan (replay.hpp) to the running StarPU.
//
// Steps: register one vector per data entry (in main memory over one
// unbacked mapping, or with no home when it is only ever SCRATCH); build
// one codelet per plan codelet, its body a wait and its model the recorded
// symbol with a footprint function that returns the task's recorded
// footprint; submit the tasks in order (each tagged, prioritised and
// recorded as the original was), waiting for its recorded submission time
// when asked; after a data entry's last user, invalidate and unregister
// it; wait for everything. Before the first submission, a prefetch to
// every GPU of the data the recorded run had on its GPU (or on its way
// there) before its first task. A plan from edges only registers no data:
// each task carries a StarPU tag and declares its predecessors' tags (a
// tag whose task has ended counts as done, so the predecessors may be gone
// by then). StarPU's vector interface counts elements in 32 bits, so a
// buffer of more than 4 GiB is registered as elements of the smallest size
// that divides it and keeps the count below 2^32.
#include "runtime/replay.hpp"

#include <starpu.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "policies/resource_class.h"
#include "runtime/starpu_session.hpp"

namespace starzk::runtime {

namespace {

// What a body and the footprint function read from the task's cl_arg.
struct task_arg_t {
  const replay_task_t* task = nullptr;
};

std::uint32_t recorded_footprint(starpu_task* task) {
  return static_cast<const task_arg_t*>(task->cl_arg)->task->footprint;
}

// Wait the task's time on this worker's kind (the plan lets it run only
// where that is known): spin below a millisecond (a sleep would
// overshoot by tens of µs), sleep above.
void wait_body(void** /*buffers*/, void* cl_arg) {
  const replay_task_t& t = *static_cast<const task_arg_t*>(cl_arg)->task;
  const int worker = starpu_worker_get_id();
  const bool cuda = worker >= 0 && starpu_worker_get_type(worker) == STARPU_CUDA_WORKER;
  const double us = std::max(0.0, cuda ? t.cuda_us : t.cpu_us);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  if (us >= 1000) std::this_thread::sleep_until(until);
  while (std::chrono::steady_clock::now() < until) {
  }
}

starpu_data_access_mode mode_of(const std::string& m) {
  if (m == "R") return STARPU_R;
  if (m == "W") return STARPU_W;
  if (m == "SCRATCH") return STARPU_SCRATCH;
  return STARPU_RW;
}

// The element size and count StarPU's 32-bit vector count allows.
std::pair<std::uint32_t, std::size_t> vector_shape(std::uint64_t bytes) {
  if (bytes == 0) return {1, 1};
  std::uint64_t elem = (bytes + 0xfffffffeull) / 0xffffffffull;
  for (std::uint64_t e = elem; e < elem + 4096; ++e)
    if (bytes % e == 0) return {std::uint32_t(bytes / e), std::size_t(e)};
  return {std::uint32_t((bytes + elem - 1) / elem), std::size_t(elem)};  // rounded up
}

// StarPU keeps every performance model a task used in a list it walks
// again at shutdown (to save and free the models' state), after the replay
// has returned: the models, their symbols, and the codelets and names that
// point at them stay for the life of the process (a replay adds one per
// recorded codelet).
struct kept_t {
  std::mutex mu;
  std::deque<std::string> names;
  std::deque<starpu_perfmodel> models;
  std::deque<starpu_codelet> codelets;
};

kept_t& kept() {
  static kept_t* k = new kept_t;  // never destroyed: StarPU may read it until exit
  return *k;
}

// One codelet per plan codelet, in its order.
std::vector<starpu_codelet*> make_codelets(const replay_plan_t& plan) {
  kept_t& k = kept();
  std::lock_guard<std::mutex> lock(k.mu);
  std::vector<starpu_codelet*> out;
  std::map<std::string, starpu_perfmodel*> by_symbol;
  for (const replay_codelet_t& rc : plan.codelets) {
    starpu_codelet* cl = &k.codelets.emplace_back();
    starpu_codelet_init(cl);
    cl->name = k.names.emplace_back(rc.name).c_str();
    cl->nbuffers = STARPU_VARIABLE_NBUFFERS;
    if (rc.cpu) {
      cl->where |= STARPU_CPU;
      cl->cpu_funcs[0] = wait_body;
    }
    if (rc.cuda) {
      cl->where |= STARPU_CUDA;
      cl->cuda_funcs[0] = wait_body;
    }
    if (!rc.model.empty()) {
      starpu_perfmodel*& m = by_symbol[rc.model];
      if (!m) {
        m = &k.models.emplace_back();
        std::memset(m, 0, sizeof *m);
        m->type = STARPU_HISTORY_BASED;
        m->symbol = k.names.emplace_back(rc.model).c_str();
        m->footprint = recorded_footprint;
      }
      cl->model = m;
    }
    out.push_back(cl);
  }
  return out;
}

// One unbacked mapping that every main-memory vector points into; on a
// host with GPUs page-locked where the host lets it (the recorded run's
// key and witnesses were: its copies ran at the DMA rate, and copies from
// pageable memory would add their difference to every replayed transfer).
// Locking it commits its pages; where that fails the replay runs from
// pageable memory. A simulation (a SimGrid StarPU) moves no bytes: nothing
// is locked there.
struct mapping_t {
  void* base = MAP_FAILED;
  std::size_t bytes = 0;
  bool pinned = false;
  explicit mapping_t(std::size_t n) : bytes(std::max<std::size_t>(n, 1)) {
    base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
      throw std::runtime_error("replay: cannot map " + std::to_string(bytes) + " bytes of address space");
  }
  void pin() {
#ifndef STARPU_SIMGRID
    pinned = starpu_memory_pin(base, bytes) == 0;
#endif
  }
  ~mapping_t() {
    if (pinned) starpu_memory_unpin(base, bytes);
    if (base != MAP_FAILED) munmap(base, bytes);
  }
  mapping_t(const mapping_t&) = delete;
  mapping_t& operator=(const mapping_t&) = delete;
};

}  // namespace

void run_replay(const replay_plan_t& plan, const replay_options_t& options, trace_recorder& recorder) {
  std::uint64_t largest = 0;
  for (const replay_data_t& d : plan.data)
    if (!d.scratch_only) largest = std::max(largest, d.bytes);
  mapping_t mapping(largest);

  std::vector<starpu_data_handle_t> handles(plan.data.size(), nullptr);
  for (std::size_t i = 0; i < plan.data.size(); ++i) {
    const auto [count, elem] = vector_shape(plan.data[i].bytes);
    if (plan.data[i].scratch_only)
      starpu_vector_data_register(&handles[i], -1, 0, count, elem);
    else
      starpu_vector_data_register(&handles[i], STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(mapping.base), count, elem);
  }
  // What the recorded run had on its GPU, or on its way there, before its
  // first task: a prefetch to every GPU here, issued before the first
  // submission and not waited for, as the program's own upload was (the
  // first tasks may wait for it as the recorded ones did). StarPU evicts
  // nothing for a prefetch, so what does not fit (a trace of a larger GPU)
  // is copied when a task needs it.
  std::set<unsigned> gpu_nodes;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
    if (starpu_worker_get_type(int(w)) == STARPU_CUDA_WORKER) gpu_nodes.insert(starpu_worker_get_memory_node(w));
  if (!gpu_nodes.empty() && largest > 0) mapping.pin();
  // The handles still registered, unregistered before the mapping they
  // point into goes (after a failed fetch or a refused task).
  const auto drop_handles = [&] {
    for (starpu_data_handle_t& h : handles)
      if (h) {
        recorder.forget(h);
        starpu_data_unregister_no_coherency(h);
        h = nullptr;
      }
  };
  for (std::size_t i = 0; i < plan.data.size(); ++i)
    if (plan.data[i].on_device && !plan.data[i].scratch_only)
      for (unsigned node : gpu_nodes)
        if (const int rc = starpu_data_prefetch_on_node(handles[i], node, 1); rc != 0) {
          drop_handles();
          check_starpu(rc, "starpu_data_prefetch_on_node");
        }
  // Entries whose last user is task i, released after its submission.
  std::vector<std::vector<std::size_t>> release(plan.tasks.size());
  for (std::size_t i = 0; i < plan.data.size(); ++i) release[plan.data[i].last_task].push_back(i);

  const std::vector<starpu_codelet*> codelets = make_codelets(plan);
  std::vector<task_arg_t> args(plan.tasks.size());
  // Edges only: task i carries tag first_tag + i (fresh for every replay
  // of the process).
  static std::atomic<starpu_tag_t> next_tag{starpu_tag_t(1) << 48};
  const starpu_tag_t first_tag = plan.edges_only ? next_tag.fetch_add(plan.tasks.size()) : 0;
  std::vector<starpu_tag_t> deps;
  const double t0 = starpu_timing_now();
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const replay_task_t& t = plan.tasks[i];
    if (options.submission == submission_t::recorded) {
      const double wait_us = t.submit_us - (starpu_timing_now() - t0);
      if (wait_us > 0) starpu_usleep(float(wait_us));
    }
    args[i].task = &t;
    starpu_task* task = starpu_task_create();
    task->cl = codelets[t.codelet_index];
    task->cl_arg = &args[i];
    task->cl_arg_size = sizeof(task_arg_t);
    task->name = t.name.c_str();
    task->priority = options.priority ? options.priority(t) : t.priority;
    const int n = int(t.buffers.size());
    task->nbuffers = n;
    if (n > STARPU_NMAXBUFS) {
      task->dyn_handles = static_cast<starpu_data_handle_t*>(std::malloc(sizeof(starpu_data_handle_t) * n));
      task->dyn_modes = static_cast<starpu_data_access_mode*>(std::malloc(sizeof(starpu_data_access_mode) * n));
      if (!task->dyn_handles || !task->dyn_modes) throw std::bad_alloc();
    }
    for (int b = 0; b < n; ++b) {
      STARPU_TASK_SET_HANDLE(task, handles[t.buffers[b].data], b);
      STARPU_TASK_SET_MODE(task, mode_of(t.buffers[b].mode), b);
    }
    starzk_task_set_tag(task, t.tag);
    if (plan.edges_only) {
      task->use_tag = 1;
      task->tag_id = first_tag + i;
      deps.clear();
      for (std::size_t a : t.after) deps.push_back(first_tag + a);
      if (!deps.empty()) starpu_tag_declare_deps_array(task->tag_id, unsigned(deps.size()), deps.data());
    }
    try {
      recorder.submit(task);
    } catch (const std::exception& e) {
      starzk_task_clear_tag(task);
      task->destroy = 0;  // StarPU refused it: it is still ours to free
      starpu_task_destroy(task);
      starpu_task_wait_for_all();
      drop_handles();
      throw std::runtime_error("replay: task " + std::to_string(t.recorded_id) + " (" + t.name + "): " + e.what() +
                               " (no worker of this machine can run it?)");
    }
    for (std::size_t d : release[i]) {
      recorder.forget(handles[d]);
      if (!plan.data[d].scratch_only) starpu_data_invalidate_submit(handles[d]);
      starpu_data_unregister_submit(handles[d]);
      handles[d] = nullptr;
    }
  }
  check_starpu(starpu_task_wait_for_all(), "starpu_task_wait_for_all");
  if (plan.edges_only)
    for (std::size_t i = 0; i < plan.tasks.size(); ++i) starpu_tag_remove(first_tag + i);
}

}  // namespace starzk::runtime
