// batch_watch.hpp: a thread beside `starzk prove --manifest` that speaks
// when the batch goes quiet or is told to stop.
//
// A 2^27 partition takes seconds; a batch that finishes none for minutes
// is waiting on something (device or host memory, a witness on a slow
// disk, a placement that cannot happen), and a log that says nothing gives
// an operator, or a Slurm log read the next morning, no way to tell which.
// After `quiet` seconds without a finished partition the watch prints one
// line: what the codelet bodies are doing (codelets/activity.hpp), the
// device memory StarPU counts on each GPU, the host RSS; then again every
// `quiet` seconds while nothing finishes.
//
// SIGTERM and SIGINT (Slurm's time limit, Ctrl-C) are taken by this thread:
// the constructor blocks them in the calling thread, so every thread
// started after it (StarPU's workers, the loaders) inherits the mask. On
// either signal the watch prints the same line, runs `on_stop` (the trace
// is written there, so a run cut short still leaves its trace), then lets
// the signal end the process with its usual status. Finished partitions
// are already on disk (output sets, journal): a rerun resumes.
//
// A batch that has stopped moving altogether (no codelet body running,
// beginning or ending for `abort_after` seconds, once one has run: a lost
// worker, a placement that can never happen) is given up: the watch prints
// what it saw, runs `on_stop`, and ends the process with status 4. The
// finished partitions are on disk and journalled, so a rerun proves only
// the rest. A long body (a CPU MSM of minutes) is running, so it never
// counts as a stall.
//
// SIGUSR1 (what the slurm/ scripts forward from `sbatch --signal` before
// the time limit) asks for a clean stop instead: the watch prints one line
// and sets stop_requested() (a second SIGUSR1 changes nothing); the batch
// then submits no more partitions, finishes those in flight, writes their
// outputs and its marker, and exits with status 5 (cmd_batch.cpp; on every
// rank under --mpi, mpi_run.cpp), well before a SIGKILL could cut a proof.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

#include <signal.h>

namespace starzk::cli {

class batch_watch_t {
 public:
  // quiet: seconds without a finished partition before the first line
  // (0: never; signals are still taken). abort_after: seconds of a stalled
  // batch before it is given up (0: never).
  batch_watch_t(double quiet, FILE* out, std::function<void()> on_stop, double abort_after = 0);
  ~batch_watch_t();
  batch_watch_t(const batch_watch_t&) = delete;
  batch_watch_t& operator=(const batch_watch_t&) = delete;

  void progressed() noexcept;  // a partition finished
  // SIGUSR1 came: submit nothing more, finish what is in flight.
  bool stop_requested() const noexcept { return stop_requested_.load(); }
  // Whether StarPU may be asked for its memory counts: set once the
  // session is up, cleared before it shuts down.
  void runtime_running(bool yes) noexcept { runtime_.store(yes); }
  // Whether an idle runtime counts as a stall (on by default). An MPI
  // rank turns it off once its own partitions are done: it then waits for
  // the other ranks, with nothing to run, for as long as they prove.
  void stall_check(bool on) noexcept { stall_check_.store(on); }

  // The line the watch prints (also for tests); device memory only when
  // `runtime` says StarPU is up.
  static std::string describe_state(bool runtime);

 private:
  void run();

  double quiet_;
  double abort_after_;
  FILE* out_;
  std::function<void()> on_stop_;
  sigset_t taken_{}, old_mask_{};
  std::atomic<bool> stop_{false};
  std::atomic<bool> runtime_{false};
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> stall_check_{true};
  std::atomic<long long> last_ms_;
  std::thread thread_;
};

// Seconds of quiet before the watch speaks: STARZK_WATCH_S (default 60;
// 0 turns the lines off).
double watch_quiet_seconds();
// Seconds of a stalled batch before it is given up: STARZK_STALL_ABORT_S
// (default 1800; 0: never).
double stall_abort_seconds();

}  // namespace starzk::cli
