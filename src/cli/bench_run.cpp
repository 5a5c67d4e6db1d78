// bench_run.cpp: one `starzk bench` configuration, run in this process
// (see bench_run.hpp for what is measured), and the input folder it reads
// (made by the generator `starzk gen` uses, gen/write.hpp).
//
// The jobs go through the job runner (dag/job_runner.hpp) that `prove`
// uses, with their key loaded as `prove` loads a manifest job's
// (batch_jobs.hpp) and at most c jobs unfinished: it opens a job, submits
// its j partitions (each gets a copy of its witness when the batch takes
// it), and opens the next while fewer than c jobs are unfinished;
// otherwise it waits for the next finished partition. A job is finished
// when its last partition has been collected; its latency runs from its
// opening to that moment (bench_sink_t).
#include "cli/log_lines.hpp"
#include "cli/bench_run.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "cli/batch_jobs.hpp"
#include "cli/bench_models.hpp"
#include "cli/manifest.hpp"
#include "dag/heteroprio.hpp"
#include "dag/job_runner.hpp"
#include "dag/trace_report.hpp"
#include "gen/write.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "io/atomic_file.hpp"
#include "io/wtns.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"
#include "util/config.hpp"

namespace starzk::cli {

namespace fs = std::filesystem;

namespace {

using steady_t = std::chrono::steady_clock;

double seconds(steady_t::time_point a, steady_t::time_point b) { return std::chrono::duration<double>(b - a).count(); }

std::string inputs_stamp(unsigned log2, unsigned partitions) {
  return "starzk bench inputs v1\nlog2 " + std::to_string(log2) + "\npartitions " + std::to_string(partitions) +
         "\nseed 0\nkey bellman_coset key.szkc\n";
}

// The process's peak resident set in KiB: VmHWM of this process image
// (unlike getrusage's ru_maxrss, it does not inherit the parent's size at
// fork), else ru_maxrss.
uint64_t peak_rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return uint64_t(ru.ru_maxrss);
}

// A run's results as they come: every partition, and each job's latency
// (from its opening to its last partition's collection).
class bench_sink_t final : public dag::job_sink_t {
 public:
  explicit bench_sink_t(unsigned partitions) : partitions_(partitions) {}

  std::vector<dag::partition_result_t> done;
  std::vector<double> latencies;
  std::function<void()> on_deadline;  // must not return

  void key_failed(size_t, const std::string& why) override { throw std::runtime_error(why); }
  void opened(size_t job) override { open_[job] = {steady_t::now(), partitions_}; }
  void finished(size_t job, dag::partition_result_t r) override {
    auto& [opened, remaining] = open_.at(job);
    if (--remaining == 0) {
      latencies.push_back(seconds(opened, steady_t::now()));
      open_.erase(job);
    }
    done.push_back(std::move(r));
  }
  void deadline_passed(const dag::batch_t&) override { on_deadline(); }

 private:
  unsigned partitions_;
  std::map<size_t, std::pair<steady_t::time_point, unsigned>> open_;  // job -> (opened, partitions to come)
};

// What the trace of a run says: per-phase task time, per-worker busy
// fraction, GPU time per proof and the models the run used; the trace is
// saved where the configuration says.
void summarize_trace(const runtime::trace_t& trace, const bench_config_t& cfg, bench_result_t& res) {
  const dag::trace_summary_t sum = dag::summarize_trace(trace);
  for (const dag::phase_stat_t& p : sum.phases) res.phases.push_back({p.phase, p.tasks, p.total_s});
  for (const dag::worker_stat_t& w : sum.workers) res.workers.push_back({w.worker, w.kind, w.busy_fraction});
  double gpu_task_s = 0, gpu_busy = 0;
  unsigned gpus = 0;
  for (const runtime::trace_event_t& e : trace.events)
    if (e.worker_kind == "cuda") gpu_task_s += (e.end_us - e.start_us) * 1e-6;
  for (const bench_worker_t& w : res.workers)
    if (w.kind == "cuda") gpu_busy += w.busy_fraction, ++gpus;
  res.gpu_s_per_proof = res.proofs ? gpu_task_s / double(res.proofs) : 0;
  res.span_s_per_proof = res.proofs ? sum.span_s / double(res.proofs) : 0;
  res.gpu_busy = gpus ? gpu_busy / gpus : 0;
  res.model_needs = model_needs(trace);
  if (!cfg.trace.empty()) runtime::save_trace(trace, cfg.trace.string());
}

}  // namespace

void prepare_bench_inputs(const fs::path& dir, unsigned log2, unsigned partitions, unsigned threads) {
  const fs::path stamp = dir / "inputs.txt";
  const std::string want = inputs_stamp(log2, partitions);
  {
    std::ifstream f(stamp);
    const std::string have((std::istreambuf_iterator<char>(f)), {});
    if (have == want) {
      log_line(stderr, "message", "bench: reusing the inputs in " + dir.string());
      return;
    }
  }
  const auto t0 = steady_t::now();
  // The circuit, the witnesses and a development key (fresh toxic waste;
  // benchmarks only) in the bellman convention, as a key cache; its
  // fixed-base products on a GPU when there is one.
  setup_info_t info;
  gen_job_options_t jo;
  jo.partitions = jo.distinct = partitions;
  jo.key_cache = true;
  jo.convention = root_convention_t::bellman;
  // STARZK_SETUP_DEVICE=auto|on|off picks where (auto: a GPU when present).
  jo.setup = setup_options_t{.device = parse_setup_device(config::get_word("STARZK_SETUP_DEVICE").value_or("auto")),
                             .threads = threads,
                             .info = &info};
  jo.threads = threads;
  write_generated_job(gen_params_t{.log2_constraints = log2, .seed = 0}, dir, jo);
  char line[256];
  std::snprintf(line, sizeof line, "bench: development key in %.1f s (%s)", info.total_s,
                info.used_gpu ? ("fixed-base products on " + info.device).c_str() : "CPU");
  log_line(stderr, "setup", line);
  write_file_atomic(stamp, std::string_view(want));
  std::snprintf(line, sizeof line, "bench: inputs for 2^%u (%u witnesses, development key) in %.1f s: %s", log2,
                partitions, seconds(t0, steady_t::now()), dir.c_str());
  log_line(stderr, "message", line);
}

bench_result_t run_bench_config(const bench_config_t& cfg,
                                const std::function<void(const bench_result_t&)>& at_deadline) {
  bench_result_t res;
  res.config = cfg;
  try {
    if (cfg.concurrency == 0 || cfg.partitions == 0 || cfg.jobs == 0)
      throw std::runtime_error("concurrency, partitions and jobs must be at least 1");
    if (cfg.deadline_s && !at_deadline) throw std::logic_error("bench: a deadline needs at_deadline");

    unsetenv("STARPU_SCHED");  // the configuration names the policy
    runtime::session_options_t so;
    so.policy = cfg.policy;
    so.ncpu = cfg.ncpu;
    so.ncuda = cfg.ngpu;
    so.profiling = true;
    runtime::starpu_session session(so);
    res.cpu_workers = session.cpu_workers();
    res.cuda_workers = session.cuda_workers();
    runtime::trace_recorder recorder;
    recorder.set_meta("policy", session.policy_name());
    if (session.policy_name() == "heteroprio") recorder.set_meta("heteroprio", dag::heteroprio_plan_text());
    recorder.set_meta("bench", "k=" + std::to_string(cfg.log2) + " c=" + std::to_string(cfg.concurrency) +
                                   " j=" + std::to_string(cfg.partitions) + " jobs=" + std::to_string(cfg.jobs));

    // Every job proves the same witnesses on the folder's key, loaded as
    // `prove` loads a manifest job's; each partition gets a copy of its
    // witness, read once.
    manifest_job_t inputs;
    inputs.key = cfg.inputs / "key.szkc";
    inputs.circuit = cfg.inputs / "circuit.r1cs";
    std::vector<std::vector<fr_t>> witnesses;
    std::vector<dag::job_spec_t> jobs;
    for (unsigned n = 0; n < cfg.jobs; ++n) {
      dag::job_spec_t& job = jobs.emplace_back(dag::job_spec_t{.key_id = "inputs", .name = "job" + std::to_string(n)});
      for (unsigned i = 0; i < cfg.partitions; ++i)
        job.parts.push_back(
            {i, "job " + std::to_string(n) + " partition " + std::to_string(i), [&witnesses, i](std::span<fr_t> out) {
               std::copy(witnesses[i].begin(), witnesses[i].end(), out.begin());
             }});
    }
    bench_sink_t sink(cfg.partitions);
    verifying_key_t vk;
    const size_t expected = size_t(cfg.jobs) * cfg.partitions;
    // The figures from what has finished (the whole run, or the part of it
    // before the deadline): throughput, latencies, phases and workers from
    // the trace, then every proof verified.
    auto summarize = [&] {
      res.proofs = sink.done.size();
      res.s_per_proof = res.proofs ? res.wall_s / double(res.proofs) : 0;
      res.latency_mean_s = sink.latencies.empty() ? 0 : [&] {
        double s = 0;
        for (double x : sink.latencies) s += x;
        return s / double(sink.latencies.size());
      }();
      res.latency_p95_s = percentile(sink.latencies, 95);
      res.latency_max_s = percentile(sink.latencies, 100);
      summarize_trace(recorder.snapshot(), cfg, res);
      for (const dag::partition_result_t& r : sink.done) {
        if (!r.ok) {
          if (res.error.empty()) res.error = r.error;
          continue;
        }
        if (verify(vk, r.publics, r.proof))
          ++res.verified;
        else if (res.error.empty())
          res.error = r.label + ": the proof does not verify";
      }
    };
    {
      // No memory budget (c bounds what is in flight); proofs are verified
      // below, outside the timed window.
      dag::job_runner_t runner(
          std::move(jobs), [&](size_t) { return load_job_key(inputs, false); },
          dag::job_runner_options_t{
              .batch = {.mem_budget = 0, .verify = false, .trace = &recorder, .loaders = dag::default_loaders()},
              .max_open_jobs = cfg.concurrency});
      const std::shared_ptr<const dag::key_bundle_t> key = runner.key(0);
      vk = key->pk().vk;
      for (unsigned i = 0; i < cfg.partitions; ++i)
        witnesses.push_back(read_wtns(cfg.inputs / generated_witness_name(i), key->pk().n_vars));

      const auto t0 = steady_t::now();  // the window: the key is registered
      sink.on_deadline = [&] {
        // The deadline: report what finished; the rest stays in StarPU.
        res.wall_s = seconds(t0, steady_t::now());
        summarize();
        res.error = "stopped after " + std::to_string(cfg.deadline_s) + " s (--run-timeout) with " +
                    std::to_string(sink.done.size()) + " of " + std::to_string(expected) + " proofs done";
        res.peak_rss_kib = peak_rss_kib();
        at_deadline(res);
      };
      runner.run(sink, cfg.deadline_s ? std::optional(t0 + std::chrono::seconds(cfg.deadline_s)) : std::nullopt);
      res.wall_s = seconds(t0, steady_t::now());
    }  // the runner (batch and key) goes before the session
    summarize();
    if (res.proofs != expected && res.error.empty())
      res.error = "expected " + std::to_string(expected) + " proofs, got " + std::to_string(res.proofs);
  } catch (const std::exception& e) {
    res.error = e.what();
  }
  res.peak_rss_kib = peak_rss_kib();
  return res;
}

}  // namespace starzk::cli
