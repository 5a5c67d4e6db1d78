// mpi_run.cpp: the multi-node batch (see mpi_run.hpp). Four steps, each
// rank running them in the same order:
//   0. resume: rank 0 reads the journals, clears what an earlier run left
//      unfinished and removes the markers; every rank learns which
//      partitions are already done (dag::share_bytes);
//   1. prove: the partitions this rank owns and that are not done go
//      through the job runner (dag/job_runner.hpp) as in the single-process
//      path, with the keys they need loaded once here the same way; a stop
//      (own SIGUSR1 or a peer's word, dag::mpi_stop_t) ends the submission;
//   2. gather: every result moves to rank 0 (dag::gather_results);
//   3. write (rank 0): the outputs in manifest order and the marker; then
//      rank 0's exit status is shared with every rank (dag::share_status).
// Failures of a partition (unreadable witness, key that cannot load, a
// DAG that fails) are results like the others: they travel to rank 0,
// which names them. A partition never submitted (the stop) travels as "no
// result" and is listed missing. A failure that stops a rank from
// reaching step 2 ends the whole run (dag::mpi_session_t::abort_all).
#include "cli/mpi_run.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/batch_jobs.hpp"
#include "cli/batch_marker.hpp"
#include "cli/batch_outputs.hpp"
#include "cli/batch_watch.hpp"
#include "cli/commands.hpp"
#include "cli/log_lines.hpp"
#include "cli/manifest.hpp"
#include "dag/job_runner.hpp"
#include "dag/memory_budget.hpp"
#include "dag/mpi_gather.hpp"
#include "dag/mpi_session.hpp"
#include "dag/mpi_stop.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace starzk::cli {

namespace {

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t0) { return std::chrono::duration<double>(steady::now() - t0).count(); }

// "run.json" -> "run.rank3.json" for rank 3 (rank 0 keeps the name).
std::string trace_path(const std::string& path, int rank) {
  if (rank == 0) return path;
  std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + ".rank" + std::to_string(rank) + p.extension().string())).string();
}

// What this rank's proving loop asks and tells about stopping: whether it
// submits no more (its own SIGUSR1, or a peer's word, said once in the
// log), each finished partition (for the watch's quiet lines), and its
// first submission (the --test-mpi-stop hook, mpi_run.hpp).
class rank_watch_t {
 public:
  rank_watch_t(batch_watch_t& watch, dag::mpi_stop_t& stop, int rank, std::string hook)
      : watch_(watch), stop_(stop), rank_(rank), hook_(std::move(hook)) {}

  bool stopping() {
    if (stopped_) return true;
    if (watch_.stop_requested()) return stopped_ = true;
    if (const int by = stop_.stopped_by(); by >= 0) {
      log_line(stdout, "signal",
               "starzk: rank " + std::to_string(rank_) + ": rank " + std::to_string(by) +
                   " stopped (SIGUSR1): submitting no more partitions, finishing those in flight",
               {{"signal", "SIGUSR1"}, {"rank", rank_}, {"stopped_by", by}});
      return stopped_ = true;
    }
    return false;
  }
  bool stopped() const { return stopped_; }
  void finished() { watch_.progressed(); }
  void submitted() {
    if (++submitted_ == 1) test_hook();
  }

 private:
  void test_hook() {
    const auto until = [](auto done, double seconds) {
      const auto t0 = steady::now();
      while (!done() && seconds_since(t0) < seconds) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    };
    if (hook_ == "signal") {
      ::kill(::getpid(), SIGUSR1);  // to the process, as Slurm or mpirun sends it: the watch takes it
      until([&] { return watch_.stop_requested(); }, 10);
    } else if (hook_ == "await") {
      until([&] { return stop_.stopped_by() >= 0; }, 60);
    }
  }

  batch_watch_t& watch_;
  dag::mpi_stop_t& stop_;
  int rank_;
  std::string hook_;
  bool stopped_ = false;
  size_t submitted_ = 0;
};

// Step 1's news: every partition this rank proved (or failed), by global
// index; a key that cannot be loaded fails the job's partitions here.
class rank_sink_t final : public dag::job_sink_t {
 public:
  rank_sink_t(const manifest_t& m, std::vector<size_t> first, std::vector<std::vector<uint32_t>> parts,
              rank_watch_t& watch)
      : m_(m), first_(std::move(first)), parts_(std::move(parts)), watch_(watch) {}

  std::map<size_t, dag::partition_result_t> local;

  bool stop() override { return watch_.stopping(); }
  void submitted(size_t, uint32_t) override { watch_.submitted(); }
  void key_failed(size_t j, const std::string& why) override {
    for (const uint32_t i : parts_[j]) {
      dag::partition_result_t& r = local[first_[j] + i];
      r.label = partition_label(m_.jobs[j], i);
      r.error = r.label + ": cannot load the key: " + why;
    }
  }
  void finished(size_t j, dag::partition_result_t r) override {
    local[first_[j] + r.index] = std::move(r);
    watch_.finished();
  }

 private:
  const manifest_t& m_;
  std::vector<size_t> first_;                 // per job: the global index of its partition 0
  std::vector<std::vector<uint32_t>> parts_;  // per job: the partitions this rank proves
  rank_watch_t& watch_;
};

// Step 1: prove the partitions this rank owns that are not `done` (by
// global index); results by global index.
std::map<size_t, dag::partition_result_t> prove_mine(const manifest_t& m, const std::vector<uint8_t>& done,
                                                     const batch_run_options_t& o, const dag::mpi_session_t& mpi,
                                                     rank_watch_t& watch, runtime::trace_recorder* recorder) {
  std::vector<dag::job_spec_t> jobs;
  std::vector<size_t> first;
  std::vector<std::vector<uint32_t>> parts(m.jobs.size());
  size_t g = 0;
  for (size_t j = 0; j < m.jobs.size(); ++j) {
    first.push_back(g);
    for (size_t i = 0; i < m.jobs[j].witnesses.size(); ++i, ++g)
      if (dag::partition_owner(g, mpi.size()) == mpi.rank() && !done[g]) parts[j].push_back(uint32_t(i));
    jobs.push_back(manifest_job_spec(m.jobs[j], parts[j]));
  }
  rank_sink_t sink(m, std::move(first), std::move(parts), watch);
  dag::job_runner_t runner(
      std::move(jobs), [&](size_t j) { return load_job_key(m.jobs[j], o.revalidate); },
      batch_runner_options(o, dag::parse_memory_budget(o.mem_budget), recorder));
  runner.run(sink);
  return std::move(sink.local);
}

// What rank 0 wrote (step 3).
struct written_t {
  size_t written = 0, failed = 0, not_proved = 0, resumed = 0;
  partition_errors_t errors;  // for M.partial
};

// Step 3 (rank 0): every output, in manifest order. `done` says which
// partitions an earlier run finished; an empty result was not proved.
written_t write_outputs(const manifest_t& m, const std::vector<uint8_t>& done,
                        const std::vector<std::optional<dag::partition_result_t>>& all, batch_outputs_t& outs,
                        bool quiet) {
  written_t w;
  size_t g = 0;
  for (size_t jx = 0; jx < m.jobs.size(); ++jx) {
    const manifest_job_t& job = m.jobs[jx];
    size_t failed = 0, missing = 0, resumed = 0;
    for (size_t i = 0; i < job.witnesses.size(); ++i, ++g) {
      if (done[g]) {
        ++resumed;
      } else if (!all[g]) {
        ++missing;
      } else if (const std::string e = write_partition_result(outs, job, jx, i, *all[g], w.errors); !e.empty()) {
        ++failed;
        log_line(stderr, "error", "starzk: " + e, {{"job", job.label()}, {"partition", i}});
      } else {
        ++w.written;
      }
    }
    if (failed == 0 && missing == 0)
      if (const std::string e = finish_job_outputs(outs, job, jx); !e.empty()) {
        failed = 1;
        log_line(stderr, "error", "starzk: " + e, {{"job", job.label()}});
      }
    const size_t n = job.witnesses.size(), ok = n - std::min(failed + missing, n);
    const nlohmann::json jf = {{"job", job.label()},        {"proofs", ok},       {"partitions", n},
                               {"ok", !failed && !missing}, {"resumed", resumed}, {"not_proved", missing}};
    const std::string head = "job " + job.label() + ": ";
    if (resumed == n && !quiet)
      log_line(stdout, "job", head + std::to_string(n) + " proofs finished by an earlier run", jf);
    else if (failed)
      log_line(stderr, "error", head + std::to_string(ok) + "/" + std::to_string(n) + " proofs FAILED", jf);
    else if (missing)
      log_line(stdout, "job",
               head + std::to_string(ok) + "/" + std::to_string(n) + " proofs written, " + std::to_string(missing) +
                   " not proved (stopped)",
               jf);
    else if (!quiet)
      log_line(stdout, "job", head + std::to_string(ok) + "/" + std::to_string(n) + " proofs written", jf);
    w.failed += failed;
    w.not_proved += missing;
    w.resumed += resumed;
  }
  return w;
}

}  // namespace

int run_manifest_mpi(const batch_run_options_t& o) {
  const auto t0 = steady::now();
  const runtime::session_options_t so = batch_session_options(o);
  // Before StarPU and StarPU-MPI start their threads: they inherit the
  // watch's signal mask, so SIGUSR1 reaches the watch alone.
  batch_watch_t watch(watch_quiet_seconds(), stdout, {}, stall_abort_seconds());
  runtime::starpu_session session(so);
  dag::mpi_session_t mpi;       // ends (starpu_mpi_shutdown) before the StarPU session
  watch.runtime_running(true);  // cleared before the session goes (below; abort_all never returns)

  int status = exit_no;
  try {
    const manifest_t m = read_manifest(o.manifest);
    check_manifest_inputs(m);
    const size_t partitions = m.partitions();
    // Step 0. Rank 0 writes: it checks the outputs against the inputs,
    // reads the journals and clears what an earlier run left unfinished
    // before any rank proves; then every rank learns what is done.
    std::unique_ptr<batch_outputs_t> outs;
    std::vector<uint8_t> done(partitions, 0);
    if (mpi.is_root()) {
      outs = std::make_unique<batch_outputs_t>(m, o.fresh);
      report_previous_run(m, *outs);
      size_t g = 0;
      for (size_t j = 0; j < m.jobs.size(); ++j)
        for (size_t i = 0; i < m.jobs[j].witnesses.size(); ++i) done[g++] = outs->done(j, i) ? 1 : 0;
    }
    dag::share_bytes(mpi, done);
    dag::mpi_stop_t stop(mpi);  // every rank, before any submission

    std::unique_ptr<runtime::trace_recorder> recorder;
    if (!o.trace.empty()) {
      recorder = std::make_unique<runtime::trace_recorder>();
      recorder->set_meta("policy", session.policy_name());
      recorder->set_meta("manifest", m.file.string());
      recorder->set_meta("mpi_rank", std::to_string(mpi.rank()));
    }
    if (mpi.is_root() && !o.quiet) {
      char line[320];
      std::snprintf(line, sizeof line,
                    "starzk: %zu jobs, %zu partitions on %d MPI ranks (partition p on rank p mod %d), policy %s, "
                    "%u CPU + %u CUDA workers on rank 0",
                    m.jobs.size(), partitions, mpi.size(), mpi.size(), session.policy_name().c_str(),
                    session.cpu_workers(), session.cuda_workers());
      log_line(stdout, "start", line,
               {{"jobs", m.jobs.size()},
                {"partitions", partitions},
                {"ranks", mpi.size()},
                {"policy", session.policy_name()},
                {"cpu_workers", session.cpu_workers()},
                {"gpu_workers", session.cuda_workers()}});
      if (const size_t resumed = outs->resumed())
        log_line(stdout, "resume",
                 "starzk: " + std::to_string(resumed) + " of " + std::to_string(partitions) +
                     " partitions were finished by an earlier run (journal); proving the other " +
                     std::to_string(partitions - resumed),
                 {{"resumed", resumed}, {"partitions", partitions}});
    }

    // Step 1.
    const auto t_prove = steady::now();
    rank_watch_t rank_watch(watch, stop, mpi.rank(), o.test_mpi_stop);
    const std::map<size_t, dag::partition_result_t> local = prove_mine(m, done, o, mpi, rank_watch, recorder.get());
    stop.announce(rank_watch.stopped());
    watch.stall_check(false);  // from now on this rank only waits for the others
    if (!o.quiet) {
      char line[160];
      std::snprintf(line, sizeof line, "starzk: rank %d: %zu partitions proved in %.2f s%s", mpi.rank(), local.size(),
                    seconds_since(t_prove), rank_watch.stopped() ? " (stopped)" : "");
      log_line(stdout, "rank", line,
               {{"rank", mpi.rank()},
                {"proved", local.size()},
                {"seconds", seconds_since(t_prove)},
                {"stopped", rank_watch.stopped()}});
    }
    if (recorder) runtime::save_trace(recorder->snapshot(), trace_path(o.trace, mpi.rank()));

    // Step 2: every rank's word first (no request outstanding), then the results.
    stop.wait_all();
    const std::vector<std::optional<dag::partition_result_t>> all = dag::gather_results(mpi, partitions, local);

    // Step 3.
    if (mpi.is_root()) {
      const written_t w = write_outputs(m, done, all, *outs, o.quiet);
      if (const std::string warn = write_batch_marker(m, *outs, w.errors, w.not_proved ? "SIGUSR1" : ""); !warn.empty())
        log_line(stderr, "warning", "starzk: warning: " + warn);
      const double s = seconds_since(t0);
      const size_t ok = w.resumed + w.written;
      const std::string stop_text =
          "; stopped by SIGUSR1, " + std::to_string(w.not_proved) + " partitions not proved (a rerun resumes)";
      char line[400];
      std::snprintf(line, sizeof line,
                    "%zu of %zu proofs verified and written in %.2f s (%.2f proofs/s) on %d rank%s%s%s", ok, partitions,
                    s, s > 0 ? double(w.written) / s : 0.0, mpi.size(), mpi.size() == 1 ? "" : "s",
                    w.failed ? "; some partitions FAILED" : "", w.not_proved ? stop_text.c_str() : "");
      log_line(stdout, "summary", line,
               {{"command", "prove"},
                {"manifest", o.manifest},
                {"mpi_ranks", mpi.size()},
                {"ok", !w.failed && !w.not_proved},
                {"partitions", partitions},
                {"proved", ok},
                {"failed", w.failed},
                {"resumed", w.resumed},
                {"stopped", w.not_proved > 0},
                {"not_proved", w.not_proved},
                {"seconds", s},
                {"proofs_per_second", s > 0 ? double(w.written) / s : 0.0}});
      status = w.failed ? exit_no : w.not_proved ? exit_stopped : exit_ok;
    }
    status = dag::share_status(mpi, status);
    watch.runtime_running(false);
  } catch (const std::exception& e) {
    log_line(stderr, "error",
             "starzk: rank " + std::to_string(mpi.rank()) + " of " + std::to_string(mpi.size()) + ": " + e.what(),
             {{"rank", mpi.rank()}});
    dag::mpi_session_t::abort_all(1);
  }
  return status;
}

}  // namespace starzk::cli
