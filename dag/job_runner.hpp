// job_runner.hpp: the one loop that proves a batch of jobs: keys, then
// batch_t, then submit, collect and hand over. `starzk prove --manifest`
// (cli/cmd_batch.cpp), each rank of `prove --mpi` (cli/mpi_run.cpp) and a
// `starzk bench` run (cli/bench_run.cpp) all run it; they differ only in the
// jobs they bring, where a finished partition goes and when they stop,
// which they say through a job_sink_t.
//
// For each job, in order:
//   1. stop? (the sink: SIGUSR1, a peer's word): nothing more is submitted;
//   2. a job with no partition to prove is skipped: no key is loaded;
//   3. the first partition's read-ahead hint is given (the disk works
//      while the key loads); then its key, loaded once per key id by the
//      caller's loader and shared by every job naming that id, dropped
//      once the last of them is submitted; a key that cannot be loaded
//      fails the job (key_failed);
//   4. an "auto" memory budget, the first time a key is resident, is cut to
//      what is in use plus half of what is left (never more than before);
//   5. the job is opened; with max_open_jobs, only once fewer jobs than
//      that are unfinished (the runner waits for results meanwhile);
//   6. each partition: stop? then its hint (read_ahead.hpp), then submit
//      (blocking while the budget is full, the hint's read going on); a
//      partition that cannot be submitted becomes a failed result; results
//      already finished are handed over between submissions, so a finished
//      job is not charged for the time spent submitting others;
//   7. the job is closed.
// Then every partition in flight is waited for. With a deadline, a wait
// that reaches it with partitions still in StarPU calls the sink's
// deadline_passed(), which must not return (those partitions cannot be
// waited for, and the batch's destructor would).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dag/batch.hpp"
#include "dag/read_ahead.hpp"

namespace starzk::dag {

// One partition to prove: its index in its job, the label that names it in
// errors and traces, what writes its witness (batch_t::submit), and
// optionally a hint run ahead of that (read_ahead.hpp: e.g. the witness
// file read into the page cache while the part waits for memory).
struct job_part_t {
  uint32_t index = 0;
  std::string label;
  witness_fill_t fill;
  std::function<void()> read_ahead = {};
};

struct job_spec_t {
  std::string key_id;                  // jobs with the same id share one loaded key
  std::string name;                    // the job's name (batch_t::open_job)
  std::vector<job_part_t> parts = {};  // to prove, in order; none: the job is skipped
};

// Loads the key of job `job` (StarPU is running); throws why it cannot.
using key_loader_t = std::function<std::shared_ptr<const key_bundle_t>(size_t job)>;

struct job_runner_options_t {
  batch_options_t batch;
  bool auto_budget = false;                           // the budget is "auto": step 4
  std::optional<blinding_t> fixed_rs = std::nullopt;  // TEST ONLY: batch_t::submit's fixed r, s
  size_t max_open_jobs = 0;                           // unfinished jobs at most (0: any)
};

// What a caller does with the run; every call comes from run()'s thread.
class job_sink_t {
 public:
  virtual ~job_sink_t() = default;
  // Submit nothing more (asked before each job and each partition).
  virtual bool stop() { return false; }
  // Job `job` has no partition to prove.
  virtual void skipped(size_t /*job*/) {}
  // Its key could not be loaded: none of its partitions is submitted.
  virtual void key_failed(size_t job, const std::string& why) = 0;
  // Its key is ready, just before the job opens; `shrunk`: step 4 cut the
  // budget now (batch.budget().cap() is the new cap).
  virtual void key_ready(size_t /*job*/, const key_bundle_t& /*key*/, const batch_t& /*batch*/, bool /*shrunk*/) {}
  virtual void opened(size_t /*job*/) {}
  virtual void submitted(size_t /*job*/, uint32_t /*index*/) {}
  // A finished partition, or one that failed before reaching StarPU.
  virtual void finished(size_t job, partition_result_t result) = 0;
  // After each finished partition and after each submission.
  virtual void progressed(const batch_t& /*batch*/) {}
  // The deadline passed with partitions in flight; must not return.
  virtual void deadline_passed(const batch_t& /*batch*/) {}
};

class job_runner_t {
 public:
  // StarPU must be running; the runner goes before the session does.
  job_runner_t(std::vector<job_spec_t> jobs, key_loader_t load, const job_runner_options_t& options);
  ~job_runner_t();  // the batch waits for what is in flight, then the keys go
  job_runner_t(const job_runner_t&) = delete;
  job_runner_t& operator=(const job_runner_t&) = delete;

  // Job `job`'s key, loaded now if no job has it yet (a caller that wants it
  // before run(), e.g. to start a timer once it is registered); throws.
  std::shared_ptr<const key_bundle_t> key(size_t job);
  // Runs every job (steps 1-7), then waits for the partitions in flight;
  // no wait goes past `deadline` (deadline_passed()).
  using time_point = std::chrono::steady_clock::time_point;
  void run(job_sink_t& sink, std::optional<time_point> deadline = std::nullopt);
  const batch_t& batch() const { return batch_; }

 private:
  // The next finished partition, handed to the sink; false when none is in
  // flight.
  bool wait_one(job_sink_t& sink);
  void hand_over(job_sink_t& sink, partition_result_t r);
  void submit(job_sink_t& sink, size_t job, uint32_t seq, job_part_t& part);
  void key_submitted(size_t job);  // the job no longer needs its key
  void read_ahead(job_part_t& part) { reader_.give(std::exchange(part.read_ahead, {})); }

  std::vector<job_spec_t> jobs_;
  key_loader_t load_;
  job_runner_options_t options_;
  std::optional<time_point> deadline_;      // run()'s
  std::map<std::string, size_t> key_uses_;  // key id -> jobs still to submit
  std::map<std::string, std::shared_ptr<const key_bundle_t>> keys_;
  bool loaded_ = false;                    // a key was loaded since step 4 last looked
  std::map<uint32_t, size_t> job_of_;      // batch job sequence -> index in jobs_
  std::map<uint32_t, size_t> unfinished_;  // batch job sequence -> partitions not yet back
  read_ahead_t reader_;                    // the parts' hints
  batch_t batch_;                          // last: goes first, while the keys are still there
};

}  // namespace starzk::dag
