// invariants.cpp: sweep-line checks over a recorded trace (invariants.hpp).
//
// Concurrency (max_concurrent): turn every interval [start, end) into two
// points, +1 at start and -1 at end, sort by time with ends before starts
// at equal times (touching intervals do not overlap), and keep a running
// sum; its maximum is the peak concurrency. O(n log n).
// Chain contiguity: per lock domain, each chain's span is [first start,
// last end) of its GPU_CHAIN tasks there; chains are contiguous iff no two
// spans overlap, checked by sorting spans by start and comparing each with
// the furthest end seen so far. O(n log n).

#include "runtime/invariants.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <cstdlib>

#include "policies/resource_class.h"

namespace starzk::runtime {

namespace {

constexpr std::size_t k_max_reports = 20;

std::string fmt_us(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", us);
  return buf;
}

std::string describe(const trace_event_t& e) {
  std::string s("'");
  s.append(e.name.empty() ? e.codelet : e.name).append("' (id ").append(std::to_string(e.id));
  s.append(", worker ").append(std::to_string(e.worker)).append(", ").append(fmt_us(e.start_us));
  return s.append("-").append(fmt_us(e.end_us)).append(" us)");
}

void add(std::vector<std::string>& out, std::size_t& dropped, std::string msg) {
  if (out.size() < k_max_reports)
    out.push_back(std::move(msg));
  else
    ++dropped;
}

void finish(std::vector<std::string>& out, std::size_t dropped, const char* what) {
  if (dropped) out.push_back("... and " + std::to_string(dropped) + " more " + what + " violations");
}

// Where concurrency exceeds `cap` among the kept events: one message per
// excursion above the cap, naming the tasks running at its peak.
std::vector<std::string> over_cap(const trace_t& trace, const std::function<bool(const trace_event_t&)>& keep, int cap,
                                  const char* what) {
  struct point_t {
    double t;
    int delta;
    std::size_t index;
  };
  std::vector<point_t> pts;
  for (std::size_t i = 0; i < trace.events.size(); ++i)
    if (keep(trace.events[i])) {
      pts.push_back({trace.events[i].start_us, +1, i});
      pts.push_back({trace.events[i].end_us, -1, i});
    }
  std::sort(pts.begin(), pts.end(),
            [](const point_t& a, const point_t& b) { return a.t != b.t ? a.t < b.t : a.delta < b.delta; });
  std::vector<std::string> out;
  std::size_t dropped = 0;
  std::set<std::size_t> running;
  bool above = false;
  for (const point_t& p : pts) {
    if (p.delta > 0)
      running.insert(p.index);
    else
      running.erase(p.index);
    int n = static_cast<int>(running.size());
    if (n > cap && !above) {
      // (appended piecewise: GCC 12 warns falsely on a long + chain)
      std::string msg(what);
      msg.append(": ").append(std::to_string(n)).append(" tasks at once at ").append(fmt_us(p.t));
      msg.append(" us (limit ").append(std::to_string(cap)).append("):");
      for (std::size_t i : running) msg.append(" ").append(describe(trace.events[i]));
      add(out, dropped, msg);
    }
    above = n > cap;
  }
  finish(out, dropped, what);
  return out;
}

}  // namespace

int max_concurrent(const trace_t& trace, const std::function<bool(const trace_event_t&)>& keep) {
  std::vector<std::pair<double, int>> pts;
  for (const trace_event_t& e : trace.events)
    if (keep(e)) {
      pts.emplace_back(e.start_us, +1);
      pts.emplace_back(e.end_us, -1);
    }
  std::sort(pts.begin(), pts.end());  // (t, -1) sorts before (t, +1)
  int now = 0, peak = 0;
  for (auto& [t, d] : pts) peak = std::max(peak, now += d);
  return peak;
}

std::vector<std::string> check_mem_heavy_cap(const trace_t& trace, int cap) {
  return over_cap(
      trace, [](const trace_event_t& e) { return e.rc == STARZK_RC_MEMORY_HEAVY && e.worker_kind == "cpu"; }, cap,
      "memory-heavy cap");
}

std::vector<std::string> check_serial_free(const trace_t& trace) {
  return over_cap(
      trace, [](const trace_event_t& e) { return e.rc == STARZK_RC_DEALLOC; }, 1, "serialised free");
}

std::vector<std::string> check_chains_contiguous(const trace_t& trace, bool include_main_ram) {
  struct span_t {
    double start, end;
    std::string chain;
    std::size_t first;  // an event of the chain, for the message
  };
  // domain -> chain label -> span
  std::map<unsigned, std::map<std::string, span_t>> spans;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const trace_event_t& e = trace.events[i];
    if (e.rc != STARZK_RC_GPU_CHAIN || (!include_main_ram && e.domain == 0)) continue;
    std::string label = e.has_chain ? "chain " + std::to_string(e.chain) : "untagged task " + std::to_string(e.id);
    auto [it, fresh] = spans[e.domain].try_emplace(label, span_t{e.start_us, e.end_us, label, i});
    if (!fresh) {
      it->second.start = std::min(it->second.start, e.start_us);
      it->second.end = std::max(it->second.end, e.end_us);
    }
  }
  std::vector<std::string> out;
  std::size_t dropped = 0;
  for (auto& [domain, by_chain] : spans) {
    std::vector<span_t> v;
    for (auto& [label, s] : by_chain) v.push_back(s);
    std::sort(v.begin(), v.end(), [](const span_t& a, const span_t& b) { return a.start < b.start; });
    std::size_t furthest = 0;
    for (std::size_t k = 1; k < v.size(); ++k) {
      const span_t& prev = v[furthest];
      if (v[k].start < prev.end)
        add(out, dropped,
            "gpu lock: " + v[k].chain + " started at " + fmt_us(v[k].start) + " us in lock domain " +
                std::to_string(domain) + " while " + prev.chain + " held it (" + fmt_us(prev.start) + "-" +
                fmt_us(prev.end) + " us); first task of the intruder: " + describe(trace.events[v[k].first]));
      if (v[k].end > prev.end) furthest = k;
    }
  }
  finish(out, dropped, "gpu lock");
  return out;
}

std::vector<std::string> check_all_finished(const trace_t& trace) {
  std::set<std::uint64_t> done;
  for (const trace_event_t& e : trace.events) done.insert(e.id);
  std::vector<std::string> out;
  std::size_t dropped = 0;
  for (std::uint64_t id : trace.submitted)
    if (!done.count(id))
      add(out, dropped, "completeness: task id " + std::to_string(id) + " was submitted but never finished");
  finish(out, dropped, "completeness");
  return out;
}

std::vector<std::string> check_invariants(const trace_t& trace, const invariant_options_t& options) {
  std::vector<std::string> all;
  auto append = [&](std::vector<std::string> v) { all.insert(all.end(), v.begin(), v.end()); };
  if (options.mem_heavy_max >= 0) append(check_mem_heavy_cap(trace, options.mem_heavy_max));
  if (options.serial_free) append(check_serial_free(trace));
  if (options.chains_contiguous) append(check_chains_contiguous(trace, options.chains_in_main_ram));
  if (options.all_finished) append(check_all_finished(trace));
  return all;
}

std::string describe_checks(const invariant_options_t& o) {
  std::string what;
  auto add = [&what](const std::string& s) { what += (what.empty() ? "" : ", ") + s; };
  if (o.all_finished) add("completeness");
  if (o.mem_heavy_max >= 0) add("memory-heavy cap " + std::to_string(o.mem_heavy_max));
  if (o.serial_free) add("serialised DEALLOC");
  if (o.chains_contiguous)
    add(o.chains_in_main_ram ? "contiguous chains in every lock domain" : "contiguous chains on the GPUs");
  return what.empty() ? "nothing" : what;
}

invariant_options_t promised_invariants(const trace_t& trace) {
  invariant_options_t o;
  o.mem_heavy_max = -1;
  o.serial_free = o.chains_contiguous = false;
  o.all_finished = true;
  auto it = trace.meta.find("policy_rules");
  if (it == trace.meta.end()) return o;
  // "key=value key=value ...", every value an integer.
  std::map<std::string, long> rules;
  std::istringstream in(it->second);
  for (std::string item; in >> item;) {
    const std::size_t eq = item.find('=');
    char* end = nullptr;
    const long v = eq == std::string::npos ? 0 : std::strtol(item.c_str() + eq + 1, &end, 10);
    if (eq == std::string::npos || eq == 0 || !end || *end != '\0' || end == item.c_str() + eq + 1)
      throw std::runtime_error("trace meta policy_rules: '" + item + "' is not key=integer");
    rules[item.substr(0, eq)] = v;
  }
  auto get = [&](const char* k) { return rules.count(k) ? rules[k] : 0; };
  if (get("mem_interlock") && get("mem_heavy_max") > 0) o.mem_heavy_max = static_cast<int>(get("mem_heavy_max"));
  o.serial_free = get("serial_free") != 0;
  o.chains_contiguous = get("gpu_lock") != 0;
  o.chains_in_main_ram = get("cpu_lock") != 0;
  return o;
}

}  // namespace starzk::runtime
