// starzk prove --manifest: a batch of jobs proved as StarPU task DAGs.
// Reads the manifest and checks every input exists, starts StarPU with the
// chosen policy, then streams through the job runner (dag/job_runner.hpp,
// with batch_jobs.hpp's key loader): for each job it registers the key once
// (shared with later jobs on the same key), submits its partitions
// (submission waits while the host-memory budget is full), and here
// (prove_sink_t) writes each finished proof: proof-<i>.json /
// public-<i>.json as soon as partition i is done, the 192-byte-per-proof
// .bin when the whole job is.
// Every proof was verified by the DAG's assemble task before it gets here.
// What is written, and what an earlier run left (refused aliases, cleaned
// leftovers, the journal that lets a rerun skip finished partitions), is
// batch_outputs.hpp. A failed partition is reported with its job and
// witness file; the others carry on; the exit status says whether all
// succeeded. SIGUSR1 (batch_watch.hpp) stops submission: the partitions in
// flight finish and are written, and the exit status is 5. Every run that
// ends by itself leaves M.complete or M.partial (batch_marker.hpp).
//
// Progress: on a terminal one line is redrawn (jobs done / total,
// partitions done and in flight, proofs per second, ETA); when stdout is
// not a terminal one such line is printed per finished partition, so a
// Slurm log is never silent for long. --json: the summary is one JSON
// object on stdout, everything else goes to stderr.
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/batch_jobs.hpp"
#include "cli/batch_marker.hpp"
#include "cli/batch_outputs.hpp"
#include "cli/batch_progress.hpp"
#include "cli/batch_run.hpp"
#include "cli/batch_watch.hpp"
#include "cli/commands.hpp"
#include "cli/file_errors.hpp"
#include "cli/log_lines.hpp"
#include "cli/manifest.hpp"
#include "cli/option_checks.hpp"
#include "codelets/codelets.hpp"
#include "dag/job_runner.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace starzk::cli {

namespace {

using clock_t_ = std::chrono::steady_clock;

double seconds_since(clock_t_::time_point t0) { return std::chrono::duration<double>(clock_t_::now() - t0).count(); }

// A job being proved: partitions back (journalled ones included) and failed.
struct job_state_t {
  size_t done = 0, failed = 0;
  clock_t_::time_point start = clock_t_::now();
};

// What `prove --manifest` does with the runner's news: each finished
// partition written (batch_outputs.hpp), each finished job's .bin and line,
// the counts for the summary, and the progress lines.
class prove_sink_t final : public dag::job_sink_t {
 public:
  prove_sink_t(const manifest_t& m, const batch_run_options_t& o, batch_outputs_t& outs, batch_watch_t& watch,
               progress_t& progress, partition_errors_t& errors)
      : m_(m), o_(o), outs_(outs), watch_(watch), progress_(progress), errors_(errors) {}

  size_t jobs_done = 0, parts_done = 0, failures = 0, retried = 0;

  bool stop() override { return watch_.stop_requested(); }  // SIGUSR1: nothing more is submitted

  // Every partition finished by an earlier run: no key, no proving.
  void skipped(size_t jx) override {
    const manifest_job_t& j = m_.jobs[jx];
    ++jobs_done;
    parts_done += j.witnesses.size();
    if (const std::string e = finish_job_outputs(outs_, j, jx); !e.empty()) {
      failures += 1;
      progress_.error("starzk: " + e);
    } else if (!o_.quiet) {
      progress_.line("job " + j.label() + ": " + std::to_string(j.witnesses.size()) +
                     " proofs finished by an earlier run");
    }
  }

  void key_failed(size_t jx, const std::string& why) override {
    const manifest_job_t& j = m_.jobs[jx];
    failures += j.witnesses.size();
    parts_done += j.witnesses.size();
    ++jobs_done;
    progress_.error("starzk: job " + j.label() + ": " + with_inputs(why, job_inputs(j)));
  }

  void key_ready(size_t jx, const dag::key_bundle_t& key, const dag::batch_t& batch, bool shrunk) override {
    if (o_.quiet) return;
    if (shrunk)
      progress_.line("starzk: memory budget " + std::to_string(batch.budget().cap() >> 20) + " MiB with key " +
                     m_.jobs[jx].key.filename().string() + " resident (" +
                     std::to_string(batch.reservation(key) >> 20) + " MiB per partition)");
    // Each key's device memory plan, once (docs/gpu.md, "Memory plan").
    if (described_.insert(&key).second)
      if (const std::string plan = key.describe_memory_plan(); !plan.empty()) {
        progress_.line("starzk: key " + key.name() + ": device memory: " + plan, "plan", {{"key", key.name()}});
        progress_.line("starzk: key " + key.name() + ": " + key.setup_times());
      }
  }

  void opened(size_t jx) override {
    job_state_t& js = states_[jx];
    for (size_t i = 0; i < m_.jobs[jx].witnesses.size(); ++i)
      if (outs_.done(jx, i)) {  // finished by an earlier run
        ++js.done;
        ++parts_done;
      }
  }

  void finished(size_t jx, dag::partition_result_t r) override {
    watch_.progressed();
    job_state_t& js = states_.at(jx);
    const manifest_job_t& j = m_.jobs[jx];
    ++parts_done;
    if (r.retries) {
      ++retried;
      progress_.line("starzk: " + r.label + ": run again on the CPUs after a device fault (" + r.first_error + ")",
                     "retry", {{"job", j.label()}, {"partition", r.index}, {"first_error", r.first_error}});
    }
    ++js.done;
    if (const std::string e = write_partition_result(outs_, j, jx, r.index, r, errors_); !e.empty()) {
      ++js.failed;
      progress_.error("starzk: " + e, {{"job", j.label()}, {"partition", r.index}});
    }
    if (js.done == j.witnesses.size()) job_finished(jx, js);
  }

  void progressed(const dag::batch_t& batch) override { progress_.update(jobs_done, parts_done, batch.in_flight()); }

 private:
  void job_finished(size_t jx, job_state_t& js) {
    const manifest_job_t& j = m_.jobs[jx];
    ++jobs_done;
    failures += js.failed;
    if (js.failed == 0)
      if (const std::string e = finish_job_outputs(outs_, j, jx); !e.empty()) {
        ++failures;
        js.failed = 1;
        progress_.error("starzk: " + e);
      }
    char line[256];
    std::snprintf(line, sizeof line, "job %s: %zu/%zu proofs %s (%.2f s)", j.label().c_str(),
                  j.witnesses.size() - js.failed, j.witnesses.size(), js.failed ? "FAILED" : "written",
                  seconds_since(js.start));
    const nlohmann::json jf = {{"job", j.label()},
                               {"proofs", j.witnesses.size() - js.failed},
                               {"partitions", j.witnesses.size()},
                               {"ok", js.failed == 0},
                               {"seconds", seconds_since(js.start)}};
    if (js.failed)
      progress_.error(std::string("starzk: ") + line, jf);
    else if (!o_.quiet)
      progress_.line(line, "job", jf);
    states_.erase(jx);
  }

  const manifest_t& m_;
  const batch_run_options_t& o_;
  batch_outputs_t& outs_;
  batch_watch_t& watch_;
  progress_t& progress_;
  partition_errors_t& errors_;
  std::map<size_t, job_state_t> states_;  // by manifest index, while open
  std::set<const dag::key_bundle_t*> described_;
};

}  // namespace

int run_manifest(const batch_run_options_t& o) {
  const auto t0 = clock_t_::now();
  const manifest_t m = read_manifest(o.manifest);
  check_manifest_inputs(m);
  const uint64_t budget = dag::parse_memory_budget(o.mem_budget);
  // Outputs checked against the inputs, leftovers cleaned, the journals
  // read: all before StarPU starts (cli/batch_outputs.hpp).
  batch_outputs_t outs(m, o.fresh);
  report_previous_run(m, outs);
  partition_errors_t errors;  // why a partition is not done, for M.partial

  const runtime::session_options_t so = batch_session_options(o);
  // Before StarPU starts its threads: they inherit the watch's signal mask.
  // A stop signal writes the trace recorded so far.
  std::atomic<runtime::trace_recorder*> trace_on_stop{nullptr};
  batch_watch_t watch(
      watch_quiet_seconds(), o.json ? stderr : stdout,
      [&] {
        if (runtime::trace_recorder* r = trace_on_stop.load()) runtime::save_trace(r->snapshot(), o.trace);
      },
      stall_abort_seconds());
  codelets::set_note_sink([](const std::string& text) { log_line(stderr, "note", "starzk: " + text); });
  runtime::starpu_session session(so);
  watch.runtime_running(true);
  struct runtime_ends_t {  // the watch stops asking StarPU before the session goes
    batch_watch_t& w;
    ~runtime_ends_t() { w.runtime_running(false); }
  } runtime_ends{watch};
  check_workers(o.gpus, o.place, session.cpu_workers(), session.cuda_workers());
  if (!o.place.empty()) codelets::set_placement(o.place);
  std::unique_ptr<runtime::trace_recorder> recorder;
  struct forget_t {  // the watch never sees the recorder after it is gone
    std::atomic<runtime::trace_recorder*>& p;
    ~forget_t() { p.store(nullptr); }
  } forget{trace_on_stop};
  if (!o.trace.empty()) {
    recorder = std::make_unique<runtime::trace_recorder>();
    trace_on_stop.store(recorder.get());
    recorder->set_meta("policy", session.policy_name());
    recorder->set_meta("manifest", m.file.string());
    recorder->set_meta("mem_budget", std::to_string(budget));
  }

  progress_t progress(m.jobs.size(), m.partitions(), o.json ? stderr : stdout, o.quiet);
  std::string budget_text = budget ? std::to_string(budget >> 20) + " MiB" : "none";
  if (!o.quiet)
    progress.line("starzk: " + std::to_string(m.jobs.size()) + " jobs, " + std::to_string(m.partitions()) +
                      " partitions, policy " + session.policy_name() + ", " + std::to_string(session.cpu_workers()) +
                      " CPU workers, " + std::to_string(session.cuda_workers()) + " GPU workers, memory budget " +
                      budget_text,
                  "start",
                  {{"jobs", m.jobs.size()},
                   {"partitions", m.partitions()},
                   {"policy", session.policy_name()},
                   {"cpu_workers", session.cpu_workers()},
                   {"gpu_workers", session.cuda_workers()},
                   {"memory_budget_bytes", budget}});
  const size_t resumed = outs.resumed();  // before this run writes any (resumed() counts those too)
  if (resumed)
    progress.line("starzk: " + std::to_string(resumed) + " of " + std::to_string(m.partitions()) +
                      " partitions were finished by an earlier run (journal); proving the other " +
                      std::to_string(m.partitions() - resumed),
                  "resume", {{"resumed", resumed}, {"partitions", m.partitions()}});
  prove_sink_t sink(m, o, outs, watch, progress, errors);
  {
    std::vector<dag::job_spec_t> jobs;
    for (size_t jx = 0; jx < m.jobs.size(); ++jx) {
      std::vector<uint32_t> parts;  // those an earlier run did not finish
      for (size_t i = 0; i < m.jobs[jx].witnesses.size(); ++i)
        if (!outs.done(jx, i)) parts.push_back(uint32_t(i));
      jobs.push_back(manifest_job_spec(m.jobs[jx], parts));
    }
    dag::job_runner_t runner(
        std::move(jobs), [&](size_t jx) { return load_job_key(m.jobs[jx], o.revalidate); },
        batch_runner_options(o, budget, recorder.get()));
    runner.run(sink);
  }  // the runner (batch and keys) goes before the session

  progress.finish();
  if (recorder) {
    recorder->set_meta("retried_partitions", std::to_string(sink.retried));
    runtime::save_trace(recorder->snapshot(), o.trace);
    if (!o.quiet) progress.line("trace written to " + o.trace + " (starzk trace summary " + o.trace + ")");
  }
  const double s = seconds_since(t0);
  const size_t parts_done = sink.parts_done, failures = sink.failures, retried = sink.retried;
  const size_t ok = parts_done - failures;
  // Partitions never submitted because SIGUSR1 stopped the submission.
  const size_t not_proved = m.partitions() - parts_done;
  const int status = failures ? exit_no : not_proved ? exit_stopped : exit_ok;
  if (const std::string w = write_batch_marker(m, outs, errors, not_proved ? "SIGUSR1" : ""); !w.empty())
    std::fprintf(stderr, "starzk: warning: %s\n", w.c_str());
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);  // ru_maxrss: KiB on Linux
  const nlohmann::json summary_fields = {{"command", "prove"},
                                         {"manifest", o.manifest},
                                         {"ok", failures == 0 && not_proved == 0},
                                         {"partitions", m.partitions()},
                                         {"proved", ok},
                                         {"failed", failures},
                                         {"resumed", resumed},
                                         {"retried", retried},
                                         {"stopped", not_proved > 0},
                                         {"not_proved", not_proved},
                                         {"seconds", s},
                                         {"proofs_per_second", s > 0 ? double(ok) / s : 0.0},
                                         {"peak_rss_gib", double(ru.ru_maxrss) / (1024.0 * 1024.0)}};
  if (o.json) {
    std::printf("%s\n", summary_fields.dump().c_str());
    return status;
  }
  char summary[320];
  const std::string stop_text =
      "; stopped by SIGUSR1, " + std::to_string(not_proved) + " partitions not proved (a rerun resumes)";
  std::snprintf(summary, sizeof summary,
                "%zu of %zu proofs verified and written in %.2f s (%.2f proofs/s), peak RSS %.1f GiB%s%s", ok,
                m.partitions(), s, s > 0 ? double(ok) / s : 0.0, double(ru.ru_maxrss) / (1024.0 * 1024.0),
                failures  ? "; some partitions FAILED"
                : retried ? "; some after a retry on the CPUs"
                          : "",
                not_proved ? stop_text.c_str() : "");
  log_line(stdout, "summary", summary, summary_fields);
  if (failures)
    log_line(stderr, "error",
             "starzk: " + std::to_string(failures) + " of " + std::to_string(m.partitions()) + " partitions FAILED");
  return status;
}

}  // namespace starzk::cli
