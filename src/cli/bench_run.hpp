// bench_run.hpp: one configuration of `starzk bench` (cmd_bench.cpp) and
// what it measured.
//
// A configuration is (size 2^k, policy, concurrency c, partitions j, jobs):
// `jobs` jobs of j partitions each, all on one key, with at most c jobs in
// flight at once. It runs in a process of its own (the hidden `starzk
// bench-one` subcommand), so that every configuration gets a fresh StarPU
// with its policy and its own peak RSS. The inputs come from a folder that
// prepare_bench_inputs() fills once per size: a Filecoin-shaped circuit
// (src/gen), max(j) witnesses and a development key in the bellman
// convention, stored as a resident key cache (.szkc) so that loading it is
// cheap. The key is loaded as `prove` loads one (cli/inputs.hpp load_key:
// validated on its first use, then vouched for by its record).
//
// What is measured (the window starts after the key is registered and ends
// when the last partition is collected; reading inputs and verifying are
// outside it):
//   wall_s          the window;  s_per_proof = wall_s / proofs (throughput)
//   latency         per job, from opening it (its first submit) to the
//                   collection of its last partition; mean, p95 (nearest
//                   rank) and max over jobs
//   phases, workers per-phase task time and per-worker busy fraction, from
//                   the trace of the run (dag/trace_report.hpp)
//   gpu_s_per_proof task time on CUDA workers per proof (the "GPU time" of
//                   a proof); gpu_busy the CUDA workers' mean busy fraction
//   span_s_per_proof the trace's span (first task start to last task end)
//                   per proof: the window less its edges
//   peak_rss_kib    the process's high-water resident set (VmHWM)
//   model_needs     the performance-model entries its tasks used
// Every proof is then verified against the key's verifying key; the
// process exits non-zero when one does not verify.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace starzk::cli {

struct bench_config_t {
  unsigned log2 = 12;            // domain 2^k
  std::string policy;            // ours or StarPU's built-in
  unsigned concurrency = 1;      // c: jobs in flight at most
  unsigned partitions = 1;       // j: partitions per job
  unsigned jobs = 4;             // jobs in the run (proofs = jobs * j)
  int ncpu = -1;                 // StarPU CPU workers; -1: StarPU's default
  int ngpu = -1;                 // StarPU CUDA workers; -1: StarPU's default (every GPU)
  bool baseline = false;         // the one-proof-at-a-time row (c = j = 1)
  std::filesystem::path inputs;  // prepare_bench_inputs()'s folder
  std::filesystem::path trace;   // where to save the run's trace; empty: nowhere
  unsigned deadline_s = 0;       // stop proving after this many seconds (0: never)
};

struct bench_phase_t {
  std::string phase;
  size_t tasks = 0;
  double total_s = 0;  // summed task time
};

struct bench_worker_t {
  int worker = -1;
  std::string kind;
  double busy_fraction = 0;
};

// A performance-model entry a run used (bench_models.hpp): the codelet,
// its model's symbol, StarPU's footprint of the task and the kinds of
// worker ("cpu", "cuda") that could have run it.
struct model_need_t {
  std::string codelet, model;
  uint32_t footprint = 0;
  std::vector<std::string> archs;
  bool operator==(const model_need_t&) const = default;
};

struct bench_result_t {
  bench_config_t config;
  std::string error;    // empty: the run completed
  size_t proofs = 0;    // partitions proved
  size_t verified = 0;  // of which verified
  unsigned cpu_workers = 0, cuda_workers = 0;
  double wall_s = 0, s_per_proof = 0;
  double latency_mean_s = 0, latency_p95_s = 0, latency_max_s = 0;
  double gpu_s_per_proof = 0;  // summed task time on CUDA workers ÷ proofs
  // The trace's span (first task's start to last task's end) ÷ proofs:
  // s/proof without the window's edges (reading the first inputs before
  // the first task, collecting after the last), which every policy pays
  // alike.
  double span_s_per_proof = 0;
  double gpu_busy = 0;  // mean busy fraction of the CUDA workers (0 without)
  std::vector<bench_phase_t> phases;
  std::vector<bench_worker_t> workers;
  uint64_t peak_rss_kib = 0;
  // Filled by the sweep (cmd_bench.cpp), 0 when there is nothing to compare with:
  double speedup_vs_baseline = 0;  // baseline s/proof ÷ this row's
  double speedup_vs_eager = 0;     // eager's s/proof (same k, c, j) ÷ this row's
  // Filled where runs of the row are aggregated (bench --repeat; bench_repeat.hpp):
  unsigned repeats = 1;         // completed runs behind s_per_proof (their mean)
  double s_per_proof_sd = 0;    // their sample standard deviation
  double s_per_proof_ci95 = 0;  // half-width of the 95% confidence interval of the mean
  // The model entries the run used (from its trace), and whether the
  // models held StarPU's minimum samples for all of them when it started:
  // "calibrated", "uncalibrated:<codelet>/<arch>/<footprint> ..." or
  // "unknown" (bench_models.hpp; filled by the sweep).
  std::vector<model_need_t> model_needs;
  std::string models;

  bool ok() const { return error.empty() && proofs > 0 && verified == proofs; }
};

// Fills dir (created if missing) with circuit.r1cs, witness-<i>.wtns for
// i < partitions and key.szkc (bellman convention), unless a previous call
// with the same (log2, partitions) left them there complete (inputs.txt is
// written last and names them). threads = 0: all cores. Progress lines go
// to stderr.
void prepare_bench_inputs(const std::filesystem::path& dir, unsigned log2, unsigned partitions, unsigned threads = 0);

// Runs one configuration in this process (StarPU must not be running;
// STARPU_SCHED is ignored: the configuration names the policy). Errors
// while running are returned in result.error, not thrown.
//
// With config.deadline_s, a run still proving at the deadline stops there:
// the result covers the proofs finished by then (s_per_proof = elapsed ÷
// those proofs, their latencies, the trace so far) and its error says it was
// stopped. The proofs still in StarPU cannot be waited for, so that result
// goes to at_deadline, which must not return (bench-one writes it and
// exits); without at_deadline a deadline is refused.
bench_result_t run_bench_config(const bench_config_t& config,
                                const std::function<void(const bench_result_t&)>& at_deadline = {});

// Nearest-rank percentile (p in (0, 100]) of the values; 0 for none
// (this and the JSON form: bench_result.cpp).
double percentile(std::vector<double> values, double p);

// The result as JSON and back (the child process hands it to the sweep in
// a file). from_json throws std::runtime_error naming the missing field.
nlohmann::json bench_result_to_json(const bench_result_t& r);
bench_result_t bench_result_from_json(const nlohmann::json& j);

}  // namespace starzk::cli
