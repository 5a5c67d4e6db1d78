// trace.hpp: record every finished task of a StarPU run and save it as a
// Chrome trace-event file (opens in Perfetto / chrome://tracing), then read
// it back for the invariant checks (invariants.hpp).
//
// How a task is recorded: trace_recorder::attach() wraps the task's
// callback (keeping the program's own callback, and the codelet's, which
// it still calls). StarPU runs callbacks after the task's end time is
// stamped, so the wrapper reads the task's profiling info (start and end
// times, worker), its resource class and tag (policies/resource_class.h),
// its codelet name and the bytes of its buffers, and appends one event
// under a mutex. Profiling must be on (session_options_t::profiling) before
// the first attached task is submitted.
//
// Dependencies: attach() sees tasks in submission order and follows each
// buffer with sequential consistency as StarPU does (a reader waits for the
// last writer; a writer for the last writer and the readers since), so each
// event lists the recorded tasks it came after ("after"); edges through
// tasks not attached, or declared with tags, are not seen.
//
// In the file: one "X" (complete) event per task, pid = lock domain (the
// worker's memory node), tid = worker id, ts/dur in microseconds from the
// recorder's creation, details in "args"; "M" events name the rows. The
// list of attached task ids goes in "starzk": {"submitted": [...]}, so a
// reader can tell whether every submitted task finished.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <mutex>
#include <string>
#include <vector>

struct starpu_task;
struct _starpu_data_state;  // starpu_data_handle_t is a pointer to it (starpu_data.h)

namespace starzk::runtime {

// One buffer a task accessed: the data (an id the recorder gives each
// handle, the same for every task that used it), its size in bytes and
// the access mode ("R", "W", "RW", "SCRATCH" or "REDUX"): with the order of
// the tasks, what a replay of the graph needs to move the same data.
struct trace_buffer_t {
  std::uint64_t data = 0;
  std::uint64_t bytes = 0;
  std::string mode;
  bool operator==(const trace_buffer_t&) const = default;
};

struct trace_event_t {
  std::uint64_t id = 0;          // recorder's id (attach order)
  std::uint64_t starpu_job = 0;  // StarPU's job id
  std::string name;              // task name, else codelet name
  std::string codelet;
  int rc = 0;  // enum starzk_resource_class
  int worker = -1;
  std::string worker_kind;          // "cpu", "cuda", "other"
  unsigned domain = 0;              // lock domain = memory node
  double start_us = 0, end_us = 0;  // from the recorder's epoch
  bool has_chain = false;
  std::uint32_t chain = 0;
  bool last = false;
  std::uint32_t job = 0;
  std::uint64_t bytes = 0;
  int priority = 0;
  // When the task was submitted and when it became ready (all its inputs
  // produced: StarPU pushed it to the scheduler), from the same epoch; -1
  // in traces recorded before these were kept.
  double submit_us = -1, ready_us = -1;
  // When its worker took it from the scheduler and when the worker had its
  // data in its memory node (StarPU's pop_end and acquire_data_end): the
  // time from popped to start is the task's data fetch on that worker,
  // idle time a transfer or a device allocation explains. -1 in older
  // traces.
  double popped_us = -1, fetched_us = -1;
  // The buffers it reads (their indices in the task) that had no valid copy
  // on the node it reads them on when its worker took it (a prefetch under
  // way included): what the fetch between popped and start waited for.
  // Empty in older traces.
  std::vector<unsigned> missing;
  // The recorded tasks it waited for through its data: the last writer of
  // each buffer it accesses, and for a buffer it writes, the readers since
  // (StarPU's implicit dependencies, in submission order).
  std::vector<std::uint64_t> after;
  // Its buffers in the task's order. Empty in older traces.
  std::vector<trace_buffer_t> buffers;
  // The codelet's performance model (its symbol; empty without one), the
  // history entry StarPU files the task under (its footprint), and the
  // kinds of worker ("cpu", "cuda") that could have run it: what a model
  // must have measured for a model-driven policy to decide without
  // calibrating (perfmodel_history.hpp). Older traces lack them.
  std::string model;
  std::uint32_t footprint = 0;
  std::vector<std::string> could_run;
};

struct trace_t {
  std::vector<trace_event_t> events;        // in completion order
  std::vector<std::uint64_t> submitted;     // ids of attached tasks
  std::map<std::string, std::string> meta;  // e.g. policy, mem_heavy_max
};

class trace_recorder {
 public:
  // Throws if StarPU is not running with profiling enabled.
  trace_recorder();
  ~trace_recorder();
  trace_recorder(const trace_recorder&) = delete;
  trace_recorder& operator=(const trace_recorder&) = delete;

  // Record `task` when it finishes. Call before submitting it.
  void attach(starpu_task* task);
  // attach() then starpu_task_submit(); throws on a submit error.
  void submit(starpu_task* task);
  void set_meta(const std::string& key, const std::string& value);
  // `h` is about to be unregistered: drop what was recorded of its accesses,
  // so that a handle registered later at the same address (StarPU reuses
  // freed handle memory) starts with no writer and no readers instead of
  // inheriting dependency edges from tasks that never touched its data.
  // Call it for every handle a recorded task used, before unregistering.
  void forget(const _starpu_data_state* h) noexcept;

  // A copy of what was recorded so far.
  trace_t snapshot() const;
  std::size_t submitted() const;
  std::size_t finished() const;

 private:
  friend struct trace_hook_access;
  void record(const trace_event_t& e);

  mutable std::mutex mu_;
  trace_t trace_;
  struct access_t {          // per data handle, in submission order
    std::uint64_t data = 0;  // the handle's id in trace_buffer_t
    std::uint64_t writer = 0;
    bool has_writer = false;
    std::vector<std::uint64_t> readers;  // since the writer
  };
  std::map<const void*, access_t> access_;
  double epoch_us_ = 0;
  std::uint64_t next_id_ = 0;
  std::uint64_t next_data_ = 0;
};

// Chrome trace-event JSON.
void write_trace_json(const trace_t& trace, std::ostream& out);
void save_trace(const trace_t& trace, const std::string& path);
// Throw std::runtime_error naming the event and field on malformed input.
trace_t read_trace_json(std::istream& in);
trace_t load_trace(const std::string& path);

}  // namespace starzk::runtime
