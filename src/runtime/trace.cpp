// trace.cpp: the task-trace recorder and its Chrome trace-event JSON form
// (see trace.hpp). The callback wrapper never throws into StarPU: it only
// copies plain fields and appends to a vector under a mutex.

#include "runtime/trace.hpp"

#include <starpu.h>
#include <starpu_profiling.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "policies/resource_class.h"
#include "io/atomic_file.hpp"
#include "policies/starzk_policies.h"
#include "runtime/starpu_session.hpp"

namespace starzk::runtime {

using json = nlohmann::json;

// What the wrapper needs to record the task and call the program's callback.
struct trace_hook_t {
  trace_recorder* recorder;
  std::uint64_t id;
  starpu_task* task;
  void (*callback)(void*);
  void* callback_arg;
  bool free_arg;
  std::vector<std::uint64_t> after;  // attach()'s dependencies
  std::vector<unsigned> missing;     // on_pop's finding
  void (*pop)(void*);                // the program's own pop prologue, called after on_pop's check
  void* pop_arg;
};

struct trace_hook_access {
  static void on_pop(void* arg) noexcept;
  static void on_done(void* arg) noexcept;
  static double epoch(const trace_recorder& r) { return r.epoch_us_; }
};

namespace {

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
    for (unsigned i = 0; i < STARPU_TASK_GET_NBUFFERS(task); ++i)
      e.bytes += starpu_data_get_size(STARPU_TASK_GET_HANDLE(task, i));
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
  auto* h = new trace_hook_t{
      this, 0, task, task->callback_func, task->callback_arg, task->callback_arg_free != 0, {}, {}, nullptr, nullptr};
  {
    std::lock_guard<std::mutex> lk(mu_);
    h->id = next_id_++;
    trace_.submitted.push_back(h->id);
    // StarPU's implicit dependencies, as it will apply them (trace.hpp).
    const unsigned n = task->cl ? STARPU_TASK_GET_NBUFFERS(task) : 0;
    for (unsigned i = 0; i < n; ++i) {
      starpu_data_handle_t d = STARPU_TASK_GET_HANDLE(task, i);
      if (!d || !starpu_data_get_sequential_consistency_flag(d)) continue;
      const starpu_data_access_mode mode = STARPU_TASK_GET_MODE(task, i);
      access_t& a = access_[d];
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

// ---- JSON ------------------------------------------------------------------

void write_trace_json(const trace_t& trace, std::ostream& out) {
  json events = json::array();
  std::set<unsigned> domains;
  std::set<std::pair<unsigned, int>> rows;
  for (const trace_event_t& e : trace.events) {
    const char* cls = starzk_resource_class_name(static_cast<starzk_resource_class>(e.rc));
    json args = {{"id", e.id},
                 {"starpu_job", e.starpu_job},
                 {"codelet", e.codelet},
                 {"class", cls ? cls : "light"},
                 {"worker", e.worker},
                 {"worker_kind", e.worker_kind},
                 {"domain", e.domain},
                 {"has_chain", e.has_chain},
                 {"chain", e.chain},
                 {"last", e.last},
                 {"job", e.job},
                 {"bytes", e.bytes},
                 {"priority", e.priority},
                 {"start_us", e.start_us},
                 {"end_us", e.end_us},
                 {"submit_us", e.submit_us},
                 {"ready_us", e.ready_us},
                 {"popped_us", e.popped_us},
                 {"fetched_us", e.fetched_us},
                 {"missing", e.missing},
                 {"after", e.after}};
    if (!e.model.empty()) {
      args["model"] = e.model;
      args["footprint"] = e.footprint;
      args["could_run"] = e.could_run;
    }
    events.push_back({{"name", e.name.empty() ? e.codelet : e.name},
                      {"cat", cls ? cls : "light"},
                      {"ph", "X"},
                      {"ts", e.start_us},
                      {"dur", e.end_us - e.start_us},
                      {"pid", e.domain},
                      {"tid", e.worker},
                      {"args", args}});
    domains.insert(e.domain);
    rows.insert({e.domain, e.worker});
  }
  for (unsigned d : domains)
    events.push_back(
        {{"name", "process_name"},
         {"ph", "M"},
         {"pid", d},
         {"args", {{"name", "lock domain " + std::to_string(d) + (d == 0 ? " (RAM: CPU workers)" : "")}}}});
  for (auto [d, w] : rows)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", d},
                      {"tid", w},
                      {"args", {{"name", "worker " + std::to_string(w)}}}});
  json doc = {{"traceEvents", events},
              {"displayTimeUnit", "ms"},
              {"otherData", trace.meta},
              {"starzk", {{"submitted", trace.submitted}}}};
  out << doc.dump(1) << '\n';
}

void save_trace(const trace_t& trace, const std::string& path) {
  // Through a temporary and a rename (io/atomic_file.hpp): a full disk
  // or a kill leaves the previous trace or none, never a truncated one.
  std::ostringstream text;
  write_trace_json(trace, text);
  write_file_atomic(path, std::string_view(text.str()));
}

namespace {

const json& field(const json& obj, const char* key, std::size_t index, json::value_t want) {
  auto it = obj.find(key);
  bool ok = false;
  if (it != obj.end()) switch (want) {
      case json::value_t::number_float:
        ok = it->is_number();
        break;
      case json::value_t::number_integer:
        ok = it->is_number_integer();
        break;
      case json::value_t::number_unsigned:
        ok = it->is_number_unsigned();
        break;
      default:
        ok = it->type() == want;
        break;
    }
  if (!ok)
    throw std::runtime_error("trace: event #" + std::to_string(index) + ": field '" + key +
                             "' is missing or has the wrong type");
  return *it;
}

}  // namespace

trace_t read_trace_json(std::istream& in) {
  json doc;
  try {
    in >> doc;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("trace: not valid JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    throw std::runtime_error("trace: top-level 'traceEvents' array missing");
  using vt = json::value_t;
  trace_t t;
  std::size_t index = 0;
  for (const json& ev : doc["traceEvents"]) {
    ++index;
    if (!ev.is_object() || ev.value("ph", "") != "X") continue;
    const json& args = field(ev, "args", index, vt::object);
    trace_event_t e;
    e.name = field(ev, "name", index, vt::string).get<std::string>();
    e.id = field(args, "id", index, vt::number_unsigned).get<std::uint64_t>();
    e.starpu_job = field(args, "starpu_job", index, vt::number_unsigned).get<std::uint64_t>();
    e.codelet = field(args, "codelet", index, vt::string).get<std::string>();
    starzk_resource_class rc;
    if (starzk_resource_class_from_name(field(args, "class", index, vt::string).get<std::string>().c_str(), &rc) != 0)
      throw std::runtime_error("trace: event #" + std::to_string(index) + ": unknown 'class'");
    e.rc = rc;
    e.worker = field(args, "worker", index, vt::number_integer).get<int>();
    e.worker_kind = field(args, "worker_kind", index, vt::string).get<std::string>();
    e.domain = field(args, "domain", index, vt::number_unsigned).get<unsigned>();
    e.has_chain = field(args, "has_chain", index, vt::boolean).get<bool>();
    e.chain = field(args, "chain", index, vt::number_unsigned).get<std::uint32_t>();
    e.last = field(args, "last", index, vt::boolean).get<bool>();
    e.job = field(args, "job", index, vt::number_unsigned).get<std::uint32_t>();
    e.bytes = field(args, "bytes", index, vt::number_unsigned).get<std::uint64_t>();
    e.priority = field(args, "priority", index, vt::number_integer).get<int>();
    // Exact times live in args; ts/dur are what viewers read.
    e.start_us = field(args, "start_us", index, vt::number_float).get<double>();
    e.end_us = field(args, "end_us", index, vt::number_float).get<double>();
    // Kept since dependencies were recorded; older traces lack them.
    if (auto it = args.find("submit_us"); it != args.end() && it->is_number()) e.submit_us = it->get<double>();
    if (auto it = args.find("ready_us"); it != args.end() && it->is_number()) e.ready_us = it->get<double>();
    if (auto it = args.find("popped_us"); it != args.end() && it->is_number()) e.popped_us = it->get<double>();
    if (auto it = args.find("fetched_us"); it != args.end() && it->is_number()) e.fetched_us = it->get<double>();
    if (auto it = args.find("missing"); it != args.end()) {
      if (!it->is_array())
        throw std::runtime_error("trace: event " + std::to_string(index) + ": 'missing' is no array");
      for (const json& i : *it) {
        if (!i.is_number_unsigned() || i.get<std::uint64_t>() >= STARPU_NMAXBUFS * 64)
          throw std::runtime_error("trace: event " + std::to_string(index) + ": 'missing' holds a bad buffer index");
        e.missing.push_back(i.get<unsigned>());
      }
    }
    if (auto it = args.find("after"); it != args.end()) {
      if (!it->is_array()) throw std::runtime_error("trace: event " + std::to_string(index) + ": 'after' is no array");
      for (const json& id : *it) {
        if (!id.is_number_unsigned())
          throw std::runtime_error("trace: event " + std::to_string(index) + ": 'after' holds a non-integer");
        e.after.push_back(id.get<std::uint64_t>());
      }
    }
    if (auto it = args.find("model"); it != args.end()) {
      e.model = field(args, "model", index, vt::string).get<std::string>();
      const std::uint64_t fp = field(args, "footprint", index, vt::number_unsigned).get<std::uint64_t>();
      if (fp > UINT32_MAX)
        throw std::runtime_error("trace: event " + std::to_string(index) + ": 'footprint' too large");
      e.footprint = std::uint32_t(fp);
      for (const json& k : field(args, "could_run", index, vt::array)) {
        if (!k.is_string())
          throw std::runtime_error("trace: event " + std::to_string(index) + ": 'could_run' holds a non-string");
        e.could_run.push_back(k.get<std::string>());
      }
    }
    t.events.push_back(std::move(e));
  }
  if (auto it = doc.find("otherData"); it != doc.end() && it->is_object())
    for (auto& [k, v] : it->items())
      if (v.is_string()) t.meta[k] = v.get<std::string>();
  auto sz = doc.find("starzk");
  if (sz == doc.end() || !sz->is_object() || !sz->contains("submitted") || !(*sz)["submitted"].is_array())
    throw std::runtime_error("trace: 'starzk.submitted' array missing");
  for (const json& id : (*sz)["submitted"]) {
    if (!id.is_number_unsigned()) throw std::runtime_error("trace: 'starzk.submitted' holds a non-integer");
    t.submitted.push_back(id.get<std::uint64_t>());
  }
  return t;
}

trace_t load_trace(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("load_trace: cannot open '" + path + "'");
  try {
    return read_trace_json(f);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace starzk::runtime
