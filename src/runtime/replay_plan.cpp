// replay_plan.cpp: from a recorded trace to the graph a replay submits
// (replay.hpp): the tasks in the recorded submission order, one entry per
// data id with its size and its last user (or, for a trace without
// buffers, each task's predecessors), one codelet per recorded (codelet,
// model, kinds), and the time each task waits on each kind of worker; a
// node's share of a run spread over several; and the history models a
// simulation takes those times from. No StarPU here: the plan is checked
// whole before anything runs.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "policies/resource_class.h"
#include "runtime/replay.hpp"

namespace starzk::runtime {

namespace {

std::runtime_error bad_event(const trace_event_t& e, const std::string& why) {
  return std::runtime_error("task " + std::to_string(e.id) + " (" + e.name + "): " + why);
}

// Mean recorded time per (codelet, footprint, kind): the time a task
// recorded on one kind of worker takes on the other, where the trace saw
// tasks of the same codelet and size there.
using mean_key_t = std::tuple<std::string, std::uint32_t, std::string>;

std::map<mean_key_t, double> kind_means(const trace_t& trace) {
  std::map<mean_key_t, std::pair<double, std::size_t>> sums;
  for (const trace_event_t& e : trace.events) {
    auto& [sum, n] = sums[{e.codelet, e.footprint, e.worker_kind}];
    sum += e.end_us - e.start_us;
    ++n;
  }
  std::map<mean_key_t, double> means;
  for (const auto& [k, v] : sums) means[k] = v.first / double(v.second);
  return means;
}

// The recorded data ids the program had on a GPU before the recorded run
// began: read by tasks of more than one partition (chain) and written by
// none (a key, which every partition reads), and read at the first use (by
// start time) on a GPU without a fetch. A partition's own inputs are left
// out: the program or StarPU may have prefetched them during the run, and
// that copy belongs in the replay's span.
std::set<std::uint64_t> on_device_at_start(const trace_t& trace) {
  struct use_t {
    const trace_event_t* first = nullptr;
    std::set<std::uint32_t> chains;
    bool written = false;
  };
  std::unordered_map<std::uint64_t, use_t> uses;
  for (const trace_event_t& e : trace.events)
    for (const trace_buffer_t& b : e.buffers) {
      use_t& u = uses[b.data];
      if (!u.first || e.start_us < u.first->start_us) u.first = &e;
      if (e.has_chain) u.chains.insert(e.chain);
      if (b.mode != "R") u.written = true;
    }
  std::set<std::uint64_t> out;
  for (const auto& [data, u] : uses) {
    const trace_event_t& e = *u.first;
    if (u.written || u.chains.size() < 2 || e.worker_kind != "cuda" || e.popped_us < 0) continue;
    bool fetched = false;
    for (unsigned i = 0; i < e.buffers.size(); ++i)
      if (e.buffers[i].data == data && std::find(e.missing.begin(), e.missing.end(), i) != e.missing.end())
        fetched = true;
    if (!fetched) out.insert(data);
  }
  return out;
}

}  // namespace

replay_plan_t plan_replay(const trace_t& trace) {
  replay_plan_t plan;
  std::unordered_map<std::uint64_t, const trace_event_t*> by_id;
  for (const trace_event_t& e : trace.events) by_id[e.id] = &e;
  const std::map<mean_key_t, double> means = kind_means(trace);
  const std::set<std::uint64_t> on_device = on_device_at_start(trace);

  std::map<std::tuple<std::string, std::string, bool, bool>, std::size_t> codelet_ids;
  std::unordered_map<std::uint64_t, std::size_t> data_ids;  // recorded data id -> index
  std::unordered_map<std::uint64_t, std::size_t> planned;   // recorded task id -> plan index
  plan.edges_only =
      std::none_of(trace.events.begin(), trace.events.end(), [](const trace_event_t& e) { return !e.buffers.empty(); });
  double first_submit = -1;
  for (std::uint64_t id : trace.submitted) {
    auto it = by_id.find(id);
    if (it == by_id.end())
      throw std::runtime_error("task " + std::to_string(id) +
                               " was submitted but never finished: a replay needs the whole graph");
    const trace_event_t& e = *it->second;
    if (e.buffers.empty() && e.bytes > 0 && !plan.edges_only)
      throw bad_event(e, "it has bytes but no buffers, while other tasks of the trace have theirs");
    replay_task_t t;
    t.recorded_id = e.id;
    t.name = e.name;
    t.codelet = e.codelet.empty() ? e.name : e.codelet;
    t.model = e.model;
    t.footprint = e.footprint;
    t.priority = e.priority;
    t.tag = starzk_tag_make(e.job, e.has_chain ? std::int64_t(e.chain) : -1, e.last, e.rc);

    // Where it may run: the kinds the run could have used (else the kind
    // it ran on: a task without a model records no kinds) on which the
    // trace knows its time: the one it took, or the mean of its codelet and
    // footprint there. A kind the trace never saw it on is left out: no
    // time to wait there, and no model entry for a simulation to take.
    std::vector<std::string> kinds = e.could_run;
    if (kinds.empty() && !e.worker_kind.empty()) kinds.push_back(e.worker_kind);
    const double took_us = std::max(0.0, e.end_us - e.start_us);
    const auto time_on = [&](const char* kind) -> double {
      if (std::count(kinds.begin(), kinds.end(), kind) == 0) return -1;
      if (e.worker_kind == kind) return took_us;
      auto m = means.find({e.codelet, e.footprint, kind});
      return m == means.end() ? -1.0 : m->second;
    };
    t.cpu_us = time_on("cpu");
    t.cuda_us = time_on("cuda");
    const bool cpu = t.cpu_us >= 0, cuda = t.cuda_us >= 0;
    if (!cpu && !cuda) throw bad_event(e, "it ran on no CPU or CUDA worker that could run it");
    auto [cit, added] = codelet_ids.try_emplace({t.codelet, t.model, cpu, cuda}, plan.codelets.size());
    if (added) plan.codelets.push_back(replay_codelet_t{t.codelet, t.model, cpu, cuda});
    t.codelet_index = cit->second;

    if (e.submit_us >= 0) {
      if (first_submit < 0) first_submit = e.submit_us;
      t.submit_us = std::max(0.0, e.submit_us - first_submit);
    }

    for (const trace_buffer_t& b : e.buffers) {
      auto [dit, fresh] = data_ids.try_emplace(b.data, plan.data.size());
      if (fresh) plan.data.push_back(replay_data_t{b.bytes, true, 0, on_device.count(b.data) > 0});
      replay_data_t& d = plan.data[dit->second];
      if (d.bytes != b.bytes)
        throw bad_event(e, "data " + std::to_string(b.data) + " has " + std::to_string(b.bytes) + " bytes here and " +
                               std::to_string(d.bytes) + " in an earlier task");
      if (b.mode != "SCRATCH") d.scratch_only = false;
      d.last_task = plan.tasks.size();
      t.buffers.push_back(replay_buffer_t{dit->second, b.mode == "REDUX" ? "RW" : b.mode});
    }
    if (plan.edges_only)
      for (std::uint64_t a : e.after) {
        auto pit = planned.find(a);
        if (pit == planned.end())
          throw bad_event(e, "it comes after task " + std::to_string(a) + ", which was not submitted before it");
        t.after.push_back(pit->second);
      }
    planned[e.id] = plan.tasks.size();
    plan.tasks.push_back(std::move(t));
  }
  return plan;
}

trace_t rank_share(const trace_t& trace, unsigned rank, unsigned ranks) {
  if (ranks == 0 || rank >= ranks)
    throw std::invalid_argument("rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
                                ": the rank must be below the number of ranks");
  trace_t share = trace;
  share.events.clear();
  share.submitted.clear();
  std::unordered_map<std::uint64_t, bool> kept;
  std::set<std::uint32_t> chains, mine_chains;
  for (const trace_event_t& e : trace.events) {
    const bool mine = !e.has_chain || e.chain % ranks == rank;
    kept[e.id] = mine;
    if (e.has_chain) (mine ? mine_chains : chains).insert(e.chain);
    if (mine) share.events.push_back(e);
  }
  for (trace_event_t& e : share.events)
    std::erase_if(e.after, [&](std::uint64_t a) {
      auto it = kept.find(a);
      return it == kept.end() || !it->second;
    });
  for (std::uint64_t id : trace.submitted) {
    auto it = kept.find(id);
    if (it == kept.end() || it->second) share.submitted.push_back(id);  // unfinished ones stay: plan_replay names them
  }
  if (mine_chains.empty())
    throw std::runtime_error("rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
                             ": no partition of the trace falls to it (the trace has " + std::to_string(chains.size()) +
                             ")");
  return share;
}

void assume_time(trace_t& trace, const std::string& codelet, const std::string& kind, double us) {
  if (kind != "cpu" && kind != "cuda")
    throw std::invalid_argument("assumed time of " + codelet + ": the kind is cpu or cuda, not \"" + kind + "\"");
  if (!(us >= 0) || !std::isfinite(us))
    throw std::invalid_argument("assumed time of " + codelet + " on " + kind + ": not a time");
  std::map<std::uint32_t, trace_event_t> sample;  // footprint -> one of its tasks
  std::uint64_t next_id = 0;
  for (trace_event_t& e : trace.events) {
    next_id = std::max(next_id, e.id + 1);
    // A codelet's tasks, or one phase's (msm_l: the msm codelet's tasks of
    // that name, whose footprint is their own).
    if ((e.codelet.empty() ? e.name : e.codelet) != codelet && e.name != codelet) continue;
    if (std::find(e.could_run.begin(), e.could_run.end(), kind) == e.could_run.end()) continue;
    if (e.worker_kind == kind) e.end_us = e.start_us + us;
    sample.try_emplace(e.footprint, e);
  }
  if (sample.empty())
    throw std::invalid_argument("assumed time of " + codelet + " on " + kind +
                                ": no task of the trace could run there");
  for (const auto& [footprint, like] : sample)
    for (int i = 0; i < 10; ++i) {
      trace_event_t o = like;
      o.id = next_id++;
      o.worker_kind = kind;
      o.worker = -1;
      o.start_us = 0;
      o.end_us = us;
      o.has_chain = false;
      o.after.clear();
      o.buffers.clear();
      o.missing.clear();
      trace.events.push_back(std::move(o));
    }
}

std::map<std::string, std::vector<history_entry_t>> models_from_trace(const trace_t& trace) {
  struct acc_t {
    double sum = 0, sum2 = 0;
    unsigned n = 0;
    std::uint64_t size = 0;
  };
  std::map<std::tuple<std::string, std::string, std::uint32_t>, acc_t> accs;  // model, kind, footprint
  for (const trace_event_t& e : trace.events) {
    if (e.model.empty() || (e.worker_kind != "cpu" && e.worker_kind != "cuda")) continue;
    acc_t& a = accs[{e.model, e.worker_kind, e.footprint}];
    const double us = std::max(0.0, e.end_us - e.start_us);
    a.sum += us;
    a.sum2 += us * us;
    ++a.n;
    a.size = e.bytes;
  }
  std::map<std::string, std::vector<history_entry_t>> models;
  for (const auto& [key, a] : accs) {
    history_entry_t h;
    h.arch = std::get<1>(key);
    h.footprint = std::get<2>(key);
    h.size = a.size;
    h.mean_us = a.sum / a.n;
    h.dev_us = std::sqrt(std::max(0.0, a.sum2 / a.n - h.mean_us * h.mean_us));
    h.nsample = a.n;
    models[std::get<0>(key)].push_back(h);
  }
  return models;
}

}  // namespace starzk::runtime
