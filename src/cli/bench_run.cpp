// bench_run.cpp: one `starzk bench` configuration, run in this process
// (see bench_run.hpp for what is measured), and the input folder it reads.
//
// The jobs loop keeps at most c jobs open: it opens a job, submits its j
// partitions (each gets a copy of its witness when the batch takes it),
// and opens the next while fewer than c jobs are unfinished; otherwise it
// waits for the next finished partition. A job is finished when its last
// partition has been collected; its latency runs from its opening to that
// moment. Ready partitions are drained (poll) between submissions so that a
// finished job is not charged for the time spent submitting others.
#include "cli/log_lines.hpp"
#include "cli/bench_run.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>

#include "cli/bench_models.hpp"
#include "dag/batch.hpp"
#include "dag/heteroprio.hpp"
#include "dag/key_bundle.hpp"
#include "dag/trace_report.hpp"
#include "gen/write.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "io/atomic_file.hpp"
#include "io/key_cache.hpp"
#include "io/r1cs.hpp"
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

struct job_clock_t {
  steady_t::time_point opened;
  unsigned remaining = 0;
};

}  // namespace

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const double rank = std::ceil(p / 100.0 * double(values.size()));
  const size_t i = size_t(std::clamp(rank, 1.0, double(values.size()))) - 1;
  return values[i];
}

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
  fs::create_directories(dir);
  const auto t0 = steady_t::now();
  const gen_params_t params{.log2_constraints = log2, .seed = 0};
  write_generated(params, dir, partitions, threads);
  const r1cs_t cs = read_r1cs(dir / "circuit.r1cs");
  // A development key (fresh toxic waste; benchmarks only), bellman
  // convention; its fixed-base products on a GPU when there is one.
  setup_info_t info;
  // STARZK_SETUP_DEVICE=auto|on|off picks where (auto: a GPU when present).
  const setup_options_t so{.device = parse_setup_device(config::get_word("STARZK_SETUP_DEVICE").value_or("auto")),
                           .threads = threads,
                           .info = &info};
  write_key_cache(dir / "key.szkc", setup(cs, h_convention_t::bellman_coset, so), threads);
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
    auto cs = std::make_shared<const r1cs_t>(read_r1cs(cfg.inputs / "circuit.r1cs"));
    auto pk = std::make_shared<const proving_key_t>(read_key_cache(cfg.inputs / "key.szkc", cache_check_t::header));
    std::vector<std::vector<fr_t>> witnesses;
    for (unsigned i = 0; i < cfg.partitions; ++i)
      witnesses.push_back(read_wtns(cfg.inputs / generated_witness_name(i), pk->n_vars));

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

    std::vector<dag::partition_result_t> done;
    std::vector<double> latencies;
    const size_t expected = size_t(cfg.jobs) * cfg.partitions;
    // The figures from what has finished (the whole run, or the part of it
    // before the deadline): throughput, latencies, phases and workers from
    // the trace, then every proof verified.
    auto summarize = [&] {
      res.proofs = done.size();
      res.s_per_proof = res.proofs ? res.wall_s / double(res.proofs) : 0;
      res.latency_mean_s = latencies.empty() ? 0 : [&] {
        double s = 0;
        for (double x : latencies) s += x;
        return s / double(latencies.size());
      }();
      res.latency_p95_s = percentile(latencies, 95);
      res.latency_max_s = percentile(latencies, 100);

      const runtime::trace_t trace = recorder.snapshot();
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
      res.gpu_busy = gpus ? gpu_busy / gpus : 0;
      res.model_needs = model_needs(trace);
      if (!cfg.trace.empty()) runtime::save_trace(trace, cfg.trace.string());

      for (const dag::partition_result_t& r : done) {
        if (!r.ok) {
          if (res.error.empty()) res.error = r.error;
          continue;
        }
        if (verify(pk->vk, r.publics, r.proof))
          ++res.verified;
        else if (res.error.empty())
          res.error = r.label + ": the proof does not verify";
      }
    };
    {
      auto key = std::make_shared<const dag::key_bundle_t>(pk, cs, "bench-k" + std::to_string(cfg.log2));
      // No memory budget (c bounds what is in flight); proofs are verified
      // below, outside the timed window.
      dag::batch_t batch(dag::batch_options_t{
          .mem_budget = 0, .verify = false, .trace = &recorder, .loaders = dag::default_loaders()});
      std::map<uint32_t, job_clock_t> open;
      auto collect = [&](dag::partition_result_t r) {
        job_clock_t& jc = open.at(r.job);
        if (--jc.remaining == 0) {
          latencies.push_back(seconds(jc.opened, steady_t::now()));
          open.erase(r.job);
        }
        done.push_back(std::move(r));
      };
      const auto t0 = steady_t::now();
      const auto deadline = t0 + std::chrono::seconds(cfg.deadline_s);
      unsigned next_job = 0;
      while (next_job < cfg.jobs || !open.empty()) {
        while (next_job < cfg.jobs && open.size() < cfg.concurrency) {
          const uint32_t seq = batch.open_job(key, "job" + std::to_string(next_job));
          open[seq] = job_clock_t{steady_t::now(), cfg.partitions};
          for (unsigned i = 0; i < cfg.partitions; ++i) {
            const std::vector<fr_t>& w = witnesses[i];
            batch.submit(
                seq, i, [&w](std::span<fr_t> out) { std::copy(w.begin(), w.end(), out.begin()); },
                "job " + std::to_string(next_job) + " partition " + std::to_string(i));
            while (auto r = batch.poll()) collect(std::move(*r));
          }
          batch.close_job(seq);
          ++next_job;
        }
        if (open.empty()) break;
        auto r = cfg.deadline_s ? batch.wait_next_until(deadline) : batch.wait_next();
        if (!r && cfg.deadline_s && batch.in_flight() > 0) {
          // The deadline: report what finished; the rest stays in StarPU.
          res.wall_s = seconds(t0, steady_t::now());
          summarize();
          res.error = "stopped after " + std::to_string(cfg.deadline_s) + " s (--run-timeout) with " +
                      std::to_string(done.size()) + " of " + std::to_string(expected) + " proofs done";
          res.peak_rss_kib = peak_rss_kib();
          at_deadline(res);
          std::abort();  // at_deadline must not return
        }
        if (!r)
          throw std::runtime_error("the batch has nothing in flight but " + std::to_string(open.size()) +
                                   " jobs are unfinished");
        collect(std::move(*r));
      }
      res.wall_s = seconds(t0, steady_t::now());
    }  // batch and key go before the session
    summarize();
    if (res.proofs != expected && res.error.empty())
      res.error = "expected " + std::to_string(expected) + " proofs, got " + std::to_string(res.proofs);
  } catch (const std::exception& e) {
    res.error = e.what();
  }
  res.peak_rss_kib = peak_rss_kib();
  return res;
}

nlohmann::json bench_result_to_json(const bench_result_t& r) {
  const bench_config_t& c = r.config;
  nlohmann::json j = {
      {"log2", c.log2},
      {"mode", c.baseline ? "baseline" : "pipeline"},
      {"policy", c.policy},
      {"concurrency", c.concurrency},
      {"partitions", c.partitions},
      {"jobs", c.jobs},
      {"ncpu", c.ncpu},
      {"ngpu", c.ngpu},
      {"error", r.error},
      {"proofs", r.proofs},
      {"verified", r.verified},
      {"cpu_workers", r.cpu_workers},
      {"cuda_workers", r.cuda_workers},
      {"wall_s", r.wall_s},
      {"s_per_proof", r.s_per_proof},
      {"latency_mean_s", r.latency_mean_s},
      {"latency_p95_s", r.latency_p95_s},
      {"latency_max_s", r.latency_max_s},
      {"gpu_s_per_proof", r.gpu_s_per_proof},
      {"gpu_busy", r.gpu_busy},
      {"peak_rss_kib", r.peak_rss_kib},
      {"speedup_vs_baseline", r.speedup_vs_baseline},
      {"speedup_vs_eager", r.speedup_vs_eager},
      {"repeats", r.repeats},
      {"s_per_proof_sd", r.s_per_proof_sd},
      {"s_per_proof_ci95", r.s_per_proof_ci95},
      {"models", r.models},
      {"model_needs", model_needs_to_json(r.model_needs)},
  };
  j["phases"] = nlohmann::json::array();
  for (const bench_phase_t& p : r.phases)
    j["phases"].push_back({{"phase", p.phase}, {"tasks", p.tasks}, {"total_s", p.total_s}});
  j["workers"] = nlohmann::json::array();
  for (const bench_worker_t& w : r.workers)
    j["workers"].push_back({{"worker", w.worker}, {"kind", w.kind}, {"busy_fraction", w.busy_fraction}});
  return j;
}

bench_result_t bench_result_from_json(const nlohmann::json& j) {
  auto get = [&](const char* key) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(key))
      throw std::runtime_error(std::string("bench result: no field '") + key + "'");
    return j.at(key);
  };
  bench_result_t r;
  try {
    r.config.log2 = get("log2").get<unsigned>();
    r.config.baseline = get("mode").get<std::string>() == "baseline";
    r.config.policy = get("policy").get<std::string>();
    r.config.concurrency = get("concurrency").get<unsigned>();
    r.config.partitions = get("partitions").get<unsigned>();
    r.config.jobs = get("jobs").get<unsigned>();
    r.config.ncpu = get("ncpu").get<int>();
    r.config.ngpu = j.value("ngpu", -1);
    r.gpu_s_per_proof = j.value("gpu_s_per_proof", 0.0);
    r.gpu_busy = j.value("gpu_busy", 0.0);
    r.error = get("error").get<std::string>();
    r.proofs = get("proofs").get<size_t>();
    r.verified = get("verified").get<size_t>();
    r.cpu_workers = get("cpu_workers").get<unsigned>();
    r.cuda_workers = get("cuda_workers").get<unsigned>();
    r.wall_s = get("wall_s").get<double>();
    r.s_per_proof = get("s_per_proof").get<double>();
    r.latency_mean_s = get("latency_mean_s").get<double>();
    r.latency_p95_s = get("latency_p95_s").get<double>();
    r.latency_max_s = get("latency_max_s").get<double>();
    r.peak_rss_kib = get("peak_rss_kib").get<uint64_t>();
    for (const auto& p : get("phases")) r.phases.push_back({p.at("phase"), p.at("tasks"), p.at("total_s")});
    for (const auto& w : get("workers")) r.workers.push_back({w.at("worker"), w.at("kind"), w.at("busy_fraction")});
    r.models = j.value("models", std::string());
    if (j.contains("model_needs")) r.model_needs = model_needs_from_json(j.at("model_needs"));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("bench result: malformed: ") + e.what());
  }
  return r;
}

}  // namespace starzk::cli
