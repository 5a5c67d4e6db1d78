// trace_report.cpp: trace summary and waterfall script (see trace_report.hpp).
#include "dag/trace_report.hpp"

#include <starpu.h>

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>

#include "codelets/codelets.hpp"

namespace starzk::dag {

namespace {

const std::vector<std::string>& dag_phases() {
  static const std::vector<std::string> p = {"spmv",     "spmv_passes", "prep_msm",  "ntt_h",  "ntt_h_passes",
                                             "msm_h",    "msm_l",       "msm_a",     "msm_b1", "msm_g1",
                                             "b_g2_msm", "assemble",    "free_rows", "free"};
  return p;
}

std::string phase_of(const runtime::trace_event_t& e) { return e.name.empty() ? e.codelet : e.name; }

std::string hex_color(unsigned c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%06x", c & 0xffffffu);
  return buf;
}

}  // namespace

unsigned phase_color(const std::string& name) {
  // msm_h, msm_l, ... are tasks of the one "msm" codelet.
  const std::string codelet = name.rfind("msm_", 0) == 0 ? "msm" : name;
  for (starpu_codelet* cl : codelets::all_codelets())
    if (cl->name && codelet == cl->name) return cl->color;
  return 0x999999;
}

trace_summary_t summarize_trace(const runtime::trace_t& trace) {
  trace_summary_t s;
  s.tasks = trace.events.size();
  if (auto it = trace.meta.find("policy"); it != trace.meta.end()) s.policy = it->second;
  if (trace.events.empty()) return s;
  double t0 = trace.events.front().start_us, t1 = trace.events.front().end_us;
  std::map<std::string, phase_stat_t> phases;
  std::map<int, worker_stat_t> workers;
  std::set<uint32_t> jobs;
  std::map<std::pair<uint32_t, uint32_t>, std::pair<double, double>> parts;  // (job, chain) -> [first, last]
  std::map<std::pair<uint32_t, uint32_t>, unsigned> spmv_node, ntt_node;     // (job, chain) -> memory node
  for (const runtime::trace_event_t& e : trace.events) {
    t0 = std::min(t0, e.start_us);
    t1 = std::max(t1, e.end_us);
    const double d = std::max(0.0, e.end_us - e.start_us);
    phase_stat_t& p = phases[phase_of(e)];
    p.phase = phase_of(e);
    ++p.tasks;
    p.total_s += d * 1e-6;
    p.max_ms = std::max(p.max_ms, d * 1e-3);
    worker_stat_t& w = workers[e.worker];
    w.worker = e.worker;
    w.kind = e.worker_kind;
    ++w.tasks;
    w.busy_s += d * 1e-6;
    jobs.insert(e.job);
    if (e.has_chain) {
      auto [it, fresh] = parts.try_emplace({e.job, e.chain}, e.start_us, e.end_us);
      if (!fresh) {
        it->second.first = std::min(it->second.first, e.start_us);
        it->second.second = std::max(it->second.second, e.end_us);
      }
    }
    if (phase_of(e) == "assemble") ++s.proofs;
    if (e.has_chain && (e.name == "spmv" || e.name == "ntt_h"))
      (e.name == "spmv" ? spmv_node : ntt_node)[{e.job, e.chain}] = e.domain;
  }
  for (const auto& [part, node] : ntt_node)
    if (auto it = spmv_node.find(part); it != spmv_node.end() && it->second != node) ++s.abc_moved;
  s.span_s = (t1 - t0) * 1e-6;
  s.jobs = jobs.size();
  s.partitions = parts.size();
  s.proofs_per_s = s.span_s > 0 ? double(s.proofs) / s.span_s : 0;
  std::vector<double> ends;
  for (auto& [key, range] : parts) {
    const double lat = (range.second - range.first) * 1e-6;
    s.latency_mean_s += lat / double(parts.size());
    s.latency_max_s = std::max(s.latency_max_s, lat);
    ends.push_back(range.second);
  }
  // The median gap between consecutive ends: the first chains' waits and
  // a partition that ends out of order (its last task run early or late)
  // move a few gaps, not the median.
  if (ends.size() >= 2) {
    std::sort(ends.begin(), ends.end());
    std::vector<double> gaps;
    for (size_t i = 1; i < ends.size(); ++i) gaps.push_back((ends[i] - ends[i - 1]) * 1e-6);
    std::sort(gaps.begin(), gaps.end());
    const size_t m = gaps.size() / 2;
    s.interval_s = gaps.size() % 2 ? gaps[m] : (gaps[m - 1] + gaps[m]) / 2;
  }
  // Per worker in start order: the idle time before each task while it was
  // fetching (after both its pop and the worker's previous task).
  std::map<int, std::vector<const runtime::trace_event_t*>> by_worker;
  for (const runtime::trace_event_t& e : trace.events) by_worker[e.worker].push_back(&e);
  for (auto& [worker, list] : by_worker) {
    std::sort(list.begin(), list.end(), [](auto* x, auto* y) { return x->start_us < y->start_us; });
    double prev_end = -1;
    for (const runtime::trace_event_t* e : list) {
      phase_stat_t& p = phases[phase_of(*e)];
      if (!e->missing.empty()) ++p.missing;
      if (e->popped_us >= 0) p.fetch_wait_s += std::max(0.0, e->start_us - std::max(e->popped_us, prev_end)) * 1e-6;
      prev_end = std::max(prev_end, e->end_us);
    }
  }
  for (const std::string& name : dag_phases())
    if (auto it = phases.find(name); it != phases.end()) {
      s.phases.push_back(it->second);
      phases.erase(it);
    }
  for (auto& [name, p] : phases) s.phases.push_back(p);
  for (phase_stat_t& p : s.phases) p.mean_ms = p.tasks ? p.total_s * 1e3 / double(p.tasks) : 0;
  for (auto& [id, w] : workers) {
    w.busy_fraction = s.span_s > 0 ? w.busy_s / s.span_s : 0;
    s.workers.push_back(w);
  }
  s.critical = critical_path(trace);
  s.idle = idle_reasons(trace);
  return s;
}

void print_trace_summary(const trace_summary_t& s, std::ostream& out) {
  std::ostringstream o;
  o << std::fixed;
  o << "run      policy " << (s.policy.empty() ? "?" : s.policy) << "  tasks " << s.tasks << "  jobs " << s.jobs
    << "  partitions " << s.partitions << "  proofs " << s.proofs << std::setprecision(3) << "  span_s " << s.span_s
    << "  proofs_per_s " << s.proofs_per_s << "  latency_mean_s " << s.latency_mean_s << "  latency_max_s "
    << s.latency_max_s << "  interval_s " << s.interval_s << "  abc_moved " << s.abc_moved << "\n";
  o << "#        " << std::left << std::setw(10) << "phase" << std::right << std::setw(7) << "tasks" << std::setw(11)
    << "total_s" << std::setw(11) << "mean_ms" << std::setw(11) << "max_ms" << std::setw(8) << "share" << std::setw(13)
    << "fetch_wait_s" << std::setw(8) << "missing"
    << "\n";
  double busy = 0;
  for (const phase_stat_t& p : s.phases) busy += p.total_s;
  for (const phase_stat_t& p : s.phases)
    o << "phase    " << std::left << std::setw(10) << p.phase << std::right << std::setw(7) << p.tasks
      << std::setprecision(3) << std::setw(11) << p.total_s << std::setw(11) << p.mean_ms << std::setw(11) << p.max_ms
      << std::setprecision(1) << std::setw(7) << (busy > 0 ? 100 * p.total_s / busy : 0) << "%" << std::setprecision(3)
      << std::setw(13) << p.fetch_wait_s << std::setw(8) << p.missing << "\n";
  o << "#        " << std::left << std::setw(10) << "worker" << std::right << std::setw(7) << "tasks" << std::setw(11)
    << "busy_s" << std::setw(11) << "busy%"
    << "  kind\n";
  for (const worker_stat_t& w : s.workers)
    o << "worker   " << std::left << std::setw(10) << w.worker << std::right << std::setw(7) << w.tasks
      << std::setprecision(3) << std::setw(11) << w.busy_s << std::setprecision(1) << std::setw(10)
      << 100 * w.busy_fraction << "%  " << w.kind << "\n";
  double run = 0, wait = 0;
  for (const critical_step_t& c : s.critical) run += c.run_s, wait += c.wait_s;
  o << std::setprecision(3) << "critical tasks " << s.critical.size() << "  run_s " << run << "  wait_s " << wait
    << "\n";
  o << "#        " << std::left << std::setw(10) << "step" << std::right << std::setw(7) << "worker" << std::setw(11)
    << "start_s" << std::setw(11) << "run_s" << std::setw(11) << "wait_s"
    << "\n";
  for (const critical_step_t& c : s.critical)
    o << "step     " << std::left << std::setw(10) << c.name << std::right << std::setw(7) << c.worker << std::setw(11)
      << c.start_s << std::setw(11) << c.run_s << std::setw(11) << c.wait_s << "\n";
  if (!s.idle.empty())
    o << "#        " << std::left << std::setw(10) << "idle" << std::right << std::setw(11) << "idle_s" << std::setw(11)
      << "nothing" << std::setw(11) << "waiting" << std::setw(11) << "fetching"
      << "  (nothing ready / work ready / of that, its own task fetching data)\n";
  for (const idle_stat_t& i : s.idle)
    o << "idle     " << std::left << std::setw(10) << i.worker << std::right << std::setw(11) << i.idle_s
      << std::setw(11) << i.nothing_ready_s << std::setw(11) << i.work_waiting_s << std::setw(11) << i.fetching_s
      << "\n";
  out << o.str();
}

void print_trace_summary_json(const trace_summary_t& s, std::ostream& out) {
  nlohmann::json j = {{"policy", s.policy},
                      {"tasks", s.tasks},
                      {"jobs", s.jobs},
                      {"partitions", s.partitions},
                      {"proofs", s.proofs},
                      {"span_s", s.span_s},
                      {"proofs_per_s", s.proofs_per_s},
                      {"latency_mean_s", s.latency_mean_s},
                      {"latency_max_s", s.latency_max_s},
                      {"interval_s", s.interval_s},
                      {"abc_moved", s.abc_moved}};
  j["phases"] = nlohmann::json::array();
  for (const phase_stat_t& p : s.phases)
    j["phases"].push_back({{"phase", p.phase},
                           {"tasks", p.tasks},
                           {"total_s", p.total_s},
                           {"mean_ms", p.mean_ms},
                           {"max_ms", p.max_ms},
                           {"fetch_wait_s", p.fetch_wait_s},
                           {"missing", p.missing}});
  j["workers"] = nlohmann::json::array();
  for (const worker_stat_t& w : s.workers)
    j["workers"].push_back({{"worker", w.worker},
                            {"kind", w.kind},
                            {"tasks", w.tasks},
                            {"busy_s", w.busy_s},
                            {"busy_fraction", w.busy_fraction}});
  j["critical_path"] = nlohmann::json::array();
  for (const critical_step_t& c : s.critical)
    j["critical_path"].push_back({{"id", c.id},
                                  {"task", c.name},
                                  {"worker", c.worker},
                                  {"start_s", c.start_s},
                                  {"run_s", c.run_s},
                                  {"wait_s", c.wait_s}});
  j["idle"] = nlohmann::json::array();
  for (const idle_stat_t& i : s.idle)
    j["idle"].push_back({{"worker", i.worker},
                         {"idle_s", i.idle_s},
                         {"nothing_ready_s", i.nothing_ready_s},
                         {"work_waiting_s", i.work_waiting_s},
                         {"fetching_s", i.fetching_s}});
  out << j.dump(1) << "\n";
}

std::string waterfall_gnuplot_script(const runtime::trace_t& trace, const std::string& png_path,
                                     const std::string& title) {
  // Rows: one per worker, in id order.
  std::map<int, std::string> rows;
  for (const runtime::trace_event_t& e : trace.events) rows[e.worker] = e.worker_kind;
  std::map<int, int> row_of;
  for (auto& [w, kind] : rows) row_of[w] = int(row_of.size());
  double t0 = 0;
  if (!trace.events.empty()) {
    t0 = trace.events.front().start_us;
    for (const runtime::trace_event_t& e : trace.events) t0 = std::min(t0, e.start_us);
  }
  auto quote = [](const std::string& s) {
    std::string q = "'";
    for (char ch : s) q += ch == '\'' ? std::string("''") : std::string(1, ch);
    return q + "'";
  };
  std::ostringstream g;
  g << "# starzk trace plot: one bar per task, one row per worker, colored by codelet.\n";
  const int height = std::max(300, 120 + 28 * int(rows.size()));
  g << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n  set terminal pngcairo size 1400," << height
    << " font 'sans,10'\n} else {\n  set terminal png size 1400," << height << "\n}\n";
  g << "set termoption noenhanced\n";  // codelet names hold underscores
  g << "set output " << quote(png_path) << "\n";
  g << "set title " << quote(title) << " noenhanced\n";
  g << "set xlabel 'time (s)'\nset grid xtics\nset key outside right top\n";
  g << "set style fill solid 0.9 noborder\n";
  g << "set yrange [" << double(rows.size()) - 0.5 << ":-0.5]\n";
  g << "set ytics (";
  bool first = true;
  for (auto& [w, kind] : rows) {
    g << (first ? "" : ", ") << "'" << (kind.empty() ? "worker" : kind) << " " << w << "' " << row_of[w];
    first = false;
  }
  g << ")\n";
  g << "$tasks << EOD\n";
  g << std::setprecision(9);
  for (const runtime::trace_event_t& e : trace.events) {
    const double s = (e.start_us - t0) * 1e-6, f = (e.end_us - t0) * 1e-6;
    const int r = row_of[e.worker];
    // x y xlow xhigh ylow yhigh color
    g << (s + f) / 2 << " " << r << " " << s << " " << f << " " << r - 0.4 << " " << r + 0.4 << " "
      << phase_color(phase_of(e)) << "\n";
  }
  g << "EOD\n";
  g << "plot $tasks using 1:2:3:4:5:6:7 with boxxyerror lc rgb variable notitle";
  for (starpu_codelet* cl : codelets::all_codelets())
    g << ", \\\n     keyentry with boxes lc rgb '" << hex_color(cl->color) << "' title '" << cl->name << "'";
  g << "\n";
  return g.str();
}

}  // namespace starzk::dag
