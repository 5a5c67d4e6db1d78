// trace_report.hpp: what `starzk trace summary` and `starzk trace plot`
// compute from a recorded run (runtime/trace.hpp's Chrome trace JSON).
//
// Summary: the run's span (first task start to last task end), proofs (one
// per assemble task) and proofs per second; per phase (task name: spmv,
// prep_msm, ntt_h, msm_h, msm_l, msm_a, msm_b1, b_g2_msm, assemble, free)
// the task count, total / mean / max time, the time its worker sat idle
// fetching its data and how many found a buffer missing; per worker the tasks run,
// the busy time and the busy fraction (busy / span); per partition (job,
// chain) the latency from its first task's start to its last task's end,
// and the median interval between consecutive partitions' ends (the
// sustained cost of a partition once the pipeline is full: what the first
// chains wait for, e.g. the key's first copies, stays out of it); and how
// many partitions moved a, b, c between memory nodes (their ntt_h ran
// on another node than their spmv: a device-to-device or PCIe copy of 3n
// scalars that chain locality, docs/policies.md, is there to avoid).
//
// Then the observed critical path (its run time and waits) and, per worker,
// its idle time split into "nothing ready" and "work waiting"
// (trace_paths.hpp).
//
// Plot: a gnuplot script drawing the waterfall: one row per worker, one
// horizontal bar per task from its start to its end, colored by codelet
// (the codelet's own .color), with a legend of codelets. The task list is
// embedded in the script (a data block), so the script is self-contained.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "dag/trace_paths.hpp"
#include "runtime/trace.hpp"

namespace starzk::dag {

struct phase_stat_t {
  std::string phase;
  size_t tasks = 0;
  double total_s = 0, mean_ms = 0, max_ms = 0;
  // Its worker idle before the task's start while fetching its data (from
  // when the worker took it, or finished the task before, whichever is
  // later), and the tasks that found a buffer they read off their node when
  // taken (the trace's `missing`): where a phase's data copies cost time.
  double fetch_wait_s = 0;
  size_t missing = 0;
};

struct worker_stat_t {
  int worker = -1;
  std::string kind;
  size_t tasks = 0;
  double busy_s = 0;
  double busy_fraction = 0;
};

struct trace_summary_t {
  double span_s = 0;
  size_t tasks = 0, jobs = 0, partitions = 0, proofs = 0;
  double proofs_per_s = 0;
  double latency_mean_s = 0, latency_max_s = 0;  // per partition
  double interval_s = 0;                         // median gap between partitions' ends (0 with fewer than 2)
  size_t abc_moved = 0;                          // partitions with spmv and ntt_h on different memory nodes
  std::vector<phase_stat_t> phases;              // DAG order, then any others
  std::vector<worker_stat_t> workers;            // by worker id
  std::string policy;                            // from the trace's metadata
  std::vector<critical_step_t> critical;         // trace_paths.hpp
  std::vector<idle_stat_t> idle;                 // by worker; empty without ready times
};

trace_summary_t summarize_trace(const runtime::trace_t& trace);

// A fixed-column text table (one "phase" line per phase and one "worker"
// line per worker, so it greps and parses).
void print_trace_summary(const trace_summary_t& s, std::ostream& out);
// The same as one JSON object.
void print_trace_summary_json(const trace_summary_t& s, std::ostream& out);

// The gnuplot script that draws `trace` into png_path.
std::string waterfall_gnuplot_script(const runtime::trace_t& trace, const std::string& png_path,
                                     const std::string& title);

// The codelet color (0xRRGGBB) used for a phase or codelet name; grey when unknown.
unsigned phase_color(const std::string& phase_or_codelet);

}  // namespace starzk::dag
