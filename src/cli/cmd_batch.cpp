// starzk prove --manifest: a batch of jobs proved as StarPU task DAGs
// (dag/batch.hpp). Reads the manifest and checks every input exists, starts
// StarPU with the chosen policy, then streams: for each job it registers
// the key once (shared with later jobs on the same key), submits its
// partitions (submission waits while the host-memory budget is full), and
// writes each finished proof: proof-<i>.json / public-<i>.json as soon as
// partition i is done, the 192-byte-per-proof .bin when the whole job is.
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
#include <future>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/option_checks.hpp"
#include "cli/batch_marker.hpp"
#include "cli/batch_outputs.hpp"
#include "cli/batch_watch.hpp"
#include "cli/batch_run.hpp"
#include "cli/commands.hpp"
#include "cli/file_errors.hpp"
#include "cli/batch_progress.hpp"
#include "cli/inputs.hpp"
#include "cli/log_lines.hpp"
#include "cli/manifest.hpp"
#include "codelets/codelets.hpp"
#include "dag/batch.hpp"
#include "dag/key_bundle.hpp"
#include "io/wtns.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace starzk::cli {

namespace {

using clock_t_ = std::chrono::steady_clock;

double seconds_since(clock_t_::time_point t0) { return std::chrono::duration<double>(clock_t_::now() - t0).count(); }

// The files a job's messages may speak of by role ("the key").
std::array<input_file_t, 2> job_inputs(const manifest_job_t& j) {
  return {input_file_t{j.key.string(), "key"}, input_file_t{j.circuit.string(), "circuit"}};
}

struct job_state_t {
  const manifest_job_t* job = nullptr;
  size_t index = 0;  // in the manifest
  std::vector<proof_t> proofs;
  size_t done = 0, failed = 0;
  clock_t_::time_point start = clock_t_::now();
};

// Keys shared by the jobs that name the same key and circuit; dropped from
// the cache after the last job using them has been submitted.
class key_cache_t {
 public:
  key_cache_t(const manifest_t& m, bool revalidate) : revalidate_(revalidate) {
    for (const manifest_job_t& j : m.jobs) ++remaining_[id(j)];
  }
  std::shared_ptr<const dag::key_bundle_t> get(const manifest_job_t& j, unsigned threads) {
    auto& slot = cache_[id(j)];
    if (!slot) {
      const auto t = clock_t_::now();
      // The circuit is read beside a packed key's unpacking (a GPU or all
      // cores busy with square roots); a .params key places its points
      // with the circuit's wires, so it waits for it.
      std::shared_ptr<const r1cs_t> cs;
      std::future<std::shared_ptr<const r1cs_t>> reading;
      if (!j.circuit.empty())
        reading = std::async(std::launch::async, [path = j.circuit.string()] {
          return std::make_shared<const r1cs_t>(load_circuit(path));
        });
      auto circuit = [&]() -> const r1cs_t* {
        if (reading.valid()) cs = reading.get();
        return cs.get();
      };
      key_load_options_t ko{.revalidate = revalidate_, .circuit_path = j.circuit.string()};
      const bool packed = !j.key_is_params() && is_packed_key(j.key.string());
      if (packed && reading.valid()) ko.circuit_later = circuit;
      loaded_key_t key = j.key_is_params() ? load_key("", j.key.string(), circuit(), ko)
                                           : load_key(j.key.string(), "", packed ? nullptr : circuit(), ko);
      circuit();  // a circuit the key did not need is still the job's
      auto pk = std::make_shared<const proving_key_t>(std::move(key.pk));
      slot = std::make_shared<const dag::key_bundle_t>(pk, cs, j.key.filename().string(), threads);
      char text[64];
      std::snprintf(text, sizeof text, " and its circuit ready in %.2f s", seconds_since(t));
      log_line(stderr, "key_ready", "starzk: key " + j.key.filename().string() + text,
               {{"key", j.key.string()}, {"seconds", seconds_since(t)}});
      loaded_ = true;
    }
    return slot;
  }
  void submitted(const manifest_job_t& j) {
    if (--remaining_[id(j)] == 0) cache_.erase(id(j));
  }
  // Whether a key was loaded since the last call.
  bool take_loaded() { return std::exchange(loaded_, false); }

 private:
  static std::string id(const manifest_job_t& j) { return j.key.string() + "\n" + j.circuit.string(); }
  bool revalidate_;
  bool loaded_ = false;
  std::map<std::string, size_t> remaining_;
  std::map<std::string, std::shared_ptr<const dag::key_bundle_t>> cache_;
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
  for (const std::string& note : outs.notes()) std::fprintf(stderr, "starzk: warning: %s\n", note.c_str());
  if (const std::string w = remove_batch_markers(m); !w.empty())
    std::fprintf(stderr, "starzk: warning: %s\n", w.c_str());
  partition_errors_t errors;  // why a partition is not done, for M.partial

  runtime::session_options_t so;
  so.policy = o.policy;
  so.policy_plugin = o.policy_plugin;
  so.ncpu = o.cpus;
  so.ncuda = o.gpus;
  so.profiling = !o.trace.empty();
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

  size_t jobs_done = 0, parts_done = 0, failures = 0, retried = 0;
  std::map<uint32_t, job_state_t> states;
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
  {
    key_cache_t keys(m, o.revalidate);
    dag::batch_t batch(dag::batch_options_t{.mem_budget = budget,
                                            .threads_per_task = o.threads_per_task,
                                            .verify = true,
                                            .trace = recorder.get(),
                                            .loaders = dag::default_loaders(),
                                            .inject_fault = o.inject_fault});

    auto handle = [&](const dag::partition_result_t& r) {
      watch.progressed();
      job_state_t& js = states.at(r.job);
      const manifest_job_t& j = *js.job;
      ++parts_done;
      if (r.retries) {
        ++retried;
        progress.line("starzk: " + r.label + ": run again on the CPUs after a device fault (" + r.first_error + ")",
                      "retry", {{"job", j.label()}, {"partition", r.index}, {"first_error", r.first_error}});
      }
      ++js.done;
      if (r.ok) {
        try {
          js.proofs[r.index] = r.proof;
          outs.write_partition(js.index, r.index, r.proof, r.publics);
        } catch (const std::exception& e) {
          ++js.failed;
          errors[{js.index, r.index}] = std::string("cannot write the proof: ") + e.what();
          progress.error("starzk: " + r.label + ": cannot write the proof: " + e.what(),
                         {{"job", j.label()}, {"partition", r.index}});
        }
      } else {
        ++js.failed;
        errors[{js.index, r.index}] = r.error;
        progress.error("starzk: " + with_inputs(r.error, job_inputs(j)), {{"job", j.label()}, {"partition", r.index}});
      }
      if (js.done == j.witnesses.size()) {
        ++jobs_done;
        failures += js.failed;
        if (js.failed == 0 && !j.proofs_bin.empty()) {
          try {
            outs.finish_job(js.index, js.proofs);
          } catch (const std::exception& e) {
            ++failures;
            js.failed = 1;
            progress.error("starzk: job " + j.label() + ": cannot write " + printable(j.proofs_bin.string()) + ": " +
                           e.what());
          }
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
          progress.error(std::string("starzk: ") + line, jf);
        else if (!o.quiet)
          progress.line(line, "job", jf);
        states.erase(r.job);
      }
      progress.update(jobs_done, parts_done, batch.in_flight());
    };
    auto drain_ready = [&] {
      while (auto r = batch.poll()) handle(*r);
    };

    std::set<const dag::key_bundle_t*> described;
    for (const manifest_job_t& j : m.jobs) {
      if (watch.stop_requested()) break;  // SIGUSR1: nothing more is submitted
      const size_t jx = size_t(&j - m.jobs.data());
      if (outs.done_count(jx) == j.witnesses.size()) {
        // Every partition finished by an earlier run: no key, no proving.
        ++jobs_done;
        parts_done += j.witnesses.size();
        keys.submitted(j);
        try {
          outs.finish_job_if_done(jx);
          if (!o.quiet)
            progress.line("job " + j.label() + ": " + std::to_string(j.witnesses.size()) +
                          " proofs finished by an earlier run");
        } catch (const std::exception& e) {
          failures += 1;
          progress.error("starzk: job " + j.label() + ": cannot write " + printable(j.proofs_bin.string()) + ": " +
                         e.what());
        }
        continue;
      }
      std::shared_ptr<const dag::key_bundle_t> key;
      try {
        key = keys.get(j, 0);
      } catch (const std::exception& e) {
        keys.submitted(j);
        failures += j.witnesses.size();
        parts_done += j.witnesses.size();
        ++jobs_done;
        progress.error("starzk: job " + j.label() + ": " + with_inputs(e.what(), job_inputs(j)));
        continue;
      }
      // The "auto" budget was half of MemAvailable before any key: once a
      // key is resident, half of what is left (never more than before).
      if (keys.take_loaded() && o.mem_budget == "auto") {
        const uint64_t cap = std::min(batch.budget().cap(), batch.budget().in_use() + dag::default_memory_budget());
        batch.set_memory_cap(cap);
        if (!o.quiet)
          progress.line("starzk: memory budget " + std::to_string(cap >> 20) + " MiB with key " +
                        j.key.filename().string() + " resident (" + std::to_string(batch.reservation(*key) >> 20) +
                        " MiB per partition)");
      }
      // Each key's device memory plan, once (docs/gpu.md, "Memory plan").
      if (!o.quiet && described.insert(key.get()).second)
        if (const std::string plan = key->describe_memory_plan(); !plan.empty()) {
          progress.line("starzk: key " + key->name() + ": device memory: " + plan, "plan", {{"key", key->name()}});
          progress.line("starzk: key " + key->name() + ": " + key->setup_times());
        }
      const uint32_t seq = batch.open_job(key, j.name);
      job_state_t& js = states[seq];
      js.job = &j;
      js.index = jx;
      js.proofs.resize(j.witnesses.size());
      for (size_t i = 0; i < j.witnesses.size(); ++i) {
        if (const proof_t* p = outs.done(jx, i)) {  // finished by an earlier run
          js.proofs[i] = *p;
          ++js.done;
          ++parts_done;
        }
      }
      for (size_t i = 0; i < j.witnesses.size(); ++i) {
        if (watch.stop_requested()) break;
        if (outs.done(jx, i)) continue;
        const std::string label = "job " + j.label() + " partition " + std::to_string(i) + " (" +
                                  printable(j.witnesses[i].filename().string()) + ")";
        const std::filesystem::path wpath = j.witnesses[i];
        try {
          batch.submit(
              seq, uint32_t(i), [wpath](std::span<fr_t> out) { read_wtns_into(wpath, out); }, label, o.fixed_rs);
        } catch (const std::exception& e) {
          dag::partition_result_t failed;
          failed.job = seq;
          failed.index = uint32_t(i);
          failed.label = label;
          failed.error = label + ": " + e.what();
          handle(failed);
        }
        drain_ready();
        progress.update(jobs_done, parts_done, batch.in_flight());
      }
      batch.close_job(seq);
      keys.submitted(j);
    }
    while (auto r = batch.wait_next()) handle(*r);
  }  // batch and keys go before the session

  progress.finish();
  if (recorder) {
    recorder->set_meta("retried_partitions", std::to_string(retried));
    runtime::save_trace(recorder->snapshot(), o.trace);
    if (!o.quiet) progress.line("trace written to " + o.trace + " (starzk trace summary " + o.trace + ")");
  }
  const double s = seconds_since(t0);
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
