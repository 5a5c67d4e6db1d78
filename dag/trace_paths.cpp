// trace_paths.cpp: the observed critical path and per-worker idle reasons of
// a recorded run (see trace_paths.hpp).
#include "dag/trace_paths.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>
#include <utility>

namespace starzk::dag {

namespace {

using interval_t = std::pair<double, double>;  // [begin, end), microseconds

// Sorted, disjoint union of the intervals.
std::vector<interval_t> merged(std::vector<interval_t> v) {
  std::sort(v.begin(), v.end());
  std::vector<interval_t> out;
  for (const interval_t& i : v) {
    if (i.second <= i.first) continue;
    if (!out.empty() && i.first <= out.back().second)
      out.back().second = std::max(out.back().second, i.second);
    else
      out.push_back(i);
  }
  return out;
}

// Length of the overlap of two sorted disjoint interval lists.
double overlap(const std::vector<interval_t>& a, const std::vector<interval_t>& b) {
  double sum = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) sum += hi - lo;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return sum;
}

}  // namespace

std::vector<critical_step_t> critical_path(const runtime::trace_t& trace) {
  std::vector<critical_step_t> path;
  if (trace.events.empty()) return path;
  std::unordered_map<std::uint64_t, const runtime::trace_event_t*> by_id;
  double t0 = std::numeric_limits<double>::max();
  const runtime::trace_event_t* cur = nullptr;
  for (const runtime::trace_event_t& e : trace.events) {
    by_id[e.id] = &e;
    t0 = std::min(t0, e.start_us);
    if (!cur || e.end_us > cur->end_us) cur = &e;
  }
  while (cur) {
    // The predecessor that ended last, but never one that ended after this
    // task started (an edge through a reused data handle's earlier life).
    const runtime::trace_event_t* pred = nullptr;
    for (std::uint64_t id : cur->after)
      if (auto it = by_id.find(id); it != by_id.end() && it->second->end_us <= cur->start_us)
        if (!pred || it->second->end_us > pred->end_us) pred = it->second;
    const double could_start = std::max(pred ? pred->end_us : t0, cur->ready_us >= 0 ? cur->ready_us : t0);
    path.push_back({cur->id, cur->name.empty() ? cur->codelet : cur->name, cur->worker, (cur->start_us - t0) / 1e6,
                    (cur->end_us - cur->start_us) / 1e6, std::max(0.0, cur->start_us - could_start) / 1e6});
    cur = pred;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<idle_stat_t> idle_reasons(const runtime::trace_t& trace) {
  std::vector<idle_stat_t> out;
  if (trace.events.empty()) return out;
  double t0 = std::numeric_limits<double>::max(), t1 = std::numeric_limits<double>::lowest();
  std::vector<interval_t> waiting;  // a task ready and not started
  std::map<int, std::vector<interval_t>> busy, fetching;
  for (const runtime::trace_event_t& e : trace.events) {
    if (e.ready_us < 0) return {};  // recorded without ready times
    t0 = std::min(t0, e.start_us);
    t1 = std::max(t1, e.end_us);
    waiting.push_back({e.ready_us, e.start_us});
    busy[e.worker].push_back({e.start_us, e.end_us});
    if (e.popped_us >= 0 && e.popped_us < e.start_us) fetching[e.worker].push_back({e.popped_us, e.start_us});
  }
  const std::vector<interval_t> queued = merged(waiting);
  for (auto& [worker, intervals] : busy) {
    const std::vector<interval_t> b = merged(intervals);
    std::vector<interval_t> idle;  // the span less the busy time
    double at = t0;
    for (const interval_t& i : b) {
      if (i.first > at) idle.push_back({at, i.first});
      at = std::max(at, i.second);
    }
    if (t1 > at) idle.push_back({at, t1});
    idle_stat_t s;
    s.worker = worker;
    for (const interval_t& i : idle) s.idle_s += (i.second - i.first) / 1e6;
    s.work_waiting_s = overlap(idle, queued) / 1e6;
    s.nothing_ready_s = std::max(0.0, s.idle_s - s.work_waiting_s);
    s.fetching_s = overlap(idle, merged(fetching[worker])) / 1e6;
    out.push_back(s);
  }
  return out;
}

}  // namespace starzk::dag
