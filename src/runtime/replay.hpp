// replay.hpp: run a recorded task graph again without its math, under any
// scheduling policy, on this machine or on one StarPU only simulates.
//
// A trace (trace.hpp) holds, per task, what a scheduler sees of it: its
// codelet and performance model (symbol, footprint), the kinds of worker
// that could run it, its tag (job, chain, last, class) and priority, and
// its buffers (data id, bytes, access mode) in submission order. That is
// enough to rebuild the same graph: one StarPU vector per data id of the
// recorded size, one codelet per recorded codelet with the same model
// symbol and a footprint function returning the recorded footprint (so a
// model-driven policy reads the same history entries the run filed its
// times under), the same tags and priorities, and the tasks submitted in
// the recorded order, so that StarPU's implicit data dependencies give the
// same edges. A task may run on the kinds of worker the recorded run could
// use and on which the trace knows its time. Bodies never touch their
// buffers: on a real StarPU they wait the task's recorded time on the kind
// it ran on, on the other kind the trace's mean for its codelet and
// footprint there; under SimGrid StarPU runs no body and takes the
// model's time (models_from_trace gives it the trace's) and the bus's for
// every transfer.
//
// Memory: every vector that lives in main memory points into one
// anonymous mapping of the largest buffer's size, reserved without
// backing (the pages are touched only where a device copy comes back), and
// a buffer used only as SCRATCH has no home. After the last task that
// uses a buffer is submitted, the buffer is invalidated (its contents are
// never needed again, so nothing is copied home) and unregistered, as the
// program freed its data. A buffer that the tasks of several partitions
// only read and that the recorded run read on a GPU at its first use
// without fetching it (a key the program had put there before its first
// task, or had started to copy there) is prefetched to every GPU of the
// replay as the first task is submitted, not waited for: the replay starts
// with the same copies in flight as the recorded run, rather than copying
// each on demand (StarPU evicts nothing for a prefetch: what does not fit
// is copied when a task needs it).
//
// What a replay cannot know: edges the program declared with tags or
// through tasks it did not record, work it did outside StarPU, and when
// it would have submitted under another policy (its read-ahead and memory
// budget): `submission_t::recorded` keeps each task's recorded submission
// time, `asap` submits the whole graph at once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/perfmodel_history.hpp"
#include "runtime/trace.hpp"

namespace starzk::runtime {

struct replay_buffer_t {
  std::size_t data = 0;  // index into replay_plan_t::data
  std::string mode;      // R, W, RW, SCRATCH (REDUX is replayed as RW)
};

struct replay_task_t {
  std::uint64_t recorded_id = 0;  // the event's id in the trace
  std::string name, codelet, model;
  std::uint32_t footprint = 0;
  std::uint64_t tag = 0;  // starzk_tag_make word (policies/resource_class.h)
  int priority = 0;
  std::size_t codelet_index = 0;  // into replay_plan_t::codelets
  std::vector<replay_buffer_t> buffers;
  // The time to wait on each kind of worker (µs); -1 on a kind it may not
  // run on: one the recorded run could not use, or on which the trace
  // never saw its codelet at its footprint.
  double cpu_us = -1, cuda_us = -1;
  double submit_us = 0;  // recorded submission, from the first one
  // A plan from edges only (replay_plan_t::edges_only): the tasks (plan
  // indices, all earlier) it waits for.
  std::vector<std::size_t> after;
};

struct replay_data_t {
  std::uint64_t bytes = 0;
  bool scratch_only = false;  // every use is SCRATCH: registered with no home
  std::size_t last_task = 0;  // the last task (index) that uses it
  // On a GPU (or on its way there) before the recorded run began: read by
  // tasks of more than one chain, written by none, and read by its first
  // task (by start time) on a GPU without a fetch of its own. False in
  // traces that did not record fetches (popped_us < 0).
  bool on_device = false;
};

// One codelet per recorded (codelet, model, kinds that could run it).
struct replay_codelet_t {
  std::string name, model;
  bool cpu = false, cuda = false;
};

struct replay_plan_t {
  std::vector<replay_task_t> tasks;  // in the recorded submission order
  std::vector<replay_data_t> data;
  std::vector<replay_codelet_t> codelets;
  // The trace kept no buffers (recorded before traces did): no data, and
  // each task waits for the tasks its event lists as "after" instead.
  bool edges_only = false;
};

// Build the plan. Throws std::runtime_error naming the event and the
// problem when the trace cannot be replayed: a submitted task that never
// finished, an event with bytes but no buffers in a trace whose other
// events have them, a buffer whose size changes between tasks, a task with
// no kind of worker to run on, an edge to a task submitted later.
//
// A trace with no buffers at all is planned from its edges: the same
// tasks, tags, priorities and times, each waiting for its recorded
// predecessors, and no data: nothing is transferred, so a simulation
// counts no copies (the tasks' own times include what they moved
// themselves), and a policy that places by data sees none.
replay_plan_t plan_replay(const trace_t& trace);

// The share of rank `rank` of `ranks` nodes under `prove --mpi`, where
// partition p runs on rank p mod N (dag/mpi_session.hpp): the tasks of the
// chains c with c mod ranks == rank (a chain is a partition, numbered in
// submission order) and every task of no chain. Each node holds its own
// key and its partitions share no written data, so the shares are
// independent runs (the 192-byte proofs gathered at the end aside): a
// simulation of N nodes is N simulations of one. Edges to tasks left out
// are dropped. Throws std::invalid_argument when ranks is 0 or rank >=
// ranks, std::runtime_error when the share holds no partition.
trace_t rank_share(const trace_t& trace, unsigned rank, unsigned ranks);

// What if a codelet took `us` µs on every worker of `kind` ("cpu" or
// "cuda"), at every footprint the trace saw it at (`codelet` may also name
// one phase, msm_l: the tasks of that name, whose footprint is their own):
// its tasks that ran on that kind take it, and ten observations per
// footprint (events of no chain that the run did not submit, so no task of
// the replay) give the means plan_replay and models_from_trace read, and
// so the time a simulation takes, with the samples StarPU wants before it
// trusts a model entry. For questions such as "would a policy give the CPUs a
// codelet if it took this long there?". Throws std::invalid_argument for
// another kind, a negative time, or a codelet no task of the trace could
// run on that kind.
void assume_time(trace_t& trace, const std::string& codelet, const std::string& kind, double us);

// The trace's times as history models, per model symbol: one entry per
// (kind of worker, footprint) it saw, with the mean, deviation and count
// of the tasks' times and their bytes as the size; for a simulation to
// take a task's time from (write_history_file).
std::map<std::string, std::vector<history_entry_t>> models_from_trace(const trace_t& trace);

enum class submission_t { asap, recorded };

struct replay_options_t {
  submission_t submission = submission_t::asap;
  // Each task's priority, when set (else the recorded one): for a policy
  // that reads priorities its own way (heteroprio's buckets, which the
  // program sets from the codelet and the kinds it may run on).
  std::function<int(const replay_task_t&)> priority;
};

// Run the plan under the StarPU session that is running (profiling on),
// recording every task with `recorder`; returns when all have ended.
// Throws std::runtime_error when no worker of this StarPU can run a task
// (e.g. a CUDA-only task on a machine without GPUs) or a StarPU call fails.
void run_replay(const replay_plan_t& plan, const replay_options_t& options, trace_recorder& recorder);

}  // namespace starzk::runtime
