// trace_paths.hpp: where a recorded run's time went beyond busy fractions,
// for `starzk trace summary` (runtime/trace.hpp events with their ready
// times and dependencies):
//
// The critical path, as observed: from the task that ended last, step back
// each time to the predecessor (an "after" edge: the data it waited for)
// that ended last, until a task with none. Every step has its run time and
// its wait: from the later of its predecessor's end and its own ready time
// to its start, the time the task could have run but did not (a policy
// holding it, no free worker of its kind, its inputs being copied). The path's
// run time plus its waits plus the start of its first task is the span.
//
// Idle reasons per worker: the time in the span when the worker ran no
// task, split into "nothing ready" (no recorded task was ready and not yet
// started) and "work waiting" (some task was ready but not started: it
// waited for another worker, a lock, a memory interlock, or could not run
// on this worker's kind). Needs ready times; a trace without them gives
// none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/trace.hpp"

namespace starzk::dag {

struct critical_step_t {
  std::uint64_t id = 0;
  std::string name;
  int worker = -1;
  double start_s = 0, run_s = 0, wait_s = 0;  // start from the span's start
};

struct idle_stat_t {
  int worker = -1;
  double idle_s = 0, nothing_ready_s = 0, work_waiting_s = 0;
  // Of the idle time, how much one of the worker's own tasks had been taken
  // and was fetching its data (popped, not started: a transfer or a device
  // allocation); 0 in traces without pop times.
  double fetching_s = 0;
};

// In path order (first task first). Empty for a trace without events.
std::vector<critical_step_t> critical_path(const runtime::trace_t& trace);
// By worker id; empty when the trace has no ready times.
std::vector<idle_stat_t> idle_reasons(const runtime::trace_t& trace);

}  // namespace starzk::dag
