// bench_result.cpp: a bench row's result as JSON and back (the child
// process hands it to the sweep in a file, bench_run.hpp) and the
// nearest-rank percentile of its latencies. Apart from bench_run.cpp, which
// runs a configuration, so that the sweep's bookkeeping (bench_repeat,
// bench_report) and its tests link without StarPU or the prover.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cli/bench_models.hpp"
#include "cli/bench_run.hpp"

namespace starzk::cli {

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const double rank = std::ceil(p / 100.0 * double(values.size()));
  const size_t i = size_t(std::clamp(rank, 1.0, double(values.size()))) - 1;
  return values[i];
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
      {"span_s_per_proof", r.span_s_per_proof},
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
    r.span_s_per_proof = j.value("span_s_per_proof", 0.0);
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
