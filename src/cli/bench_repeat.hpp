// bench_repeat.hpp: what makes `starzk bench` rows comparable (docs/policies.md,
// "Comparing policies fairly"):
//   - repetitions: every row runs N times; each round visits the rows in a
//     fresh random order (a seeded shuffle, printed, so a sweep can be
//     replayed), so that a slow phase of the machine (another job, thermal
//     state, a model still calibrating) does not land on one policy only;
//   - statistics: each row's s/proof as mean, sample standard deviation and
//     the half-width of the 95% confidence interval of the mean, Student's t
//     with n - 1 degrees of freedom: ci95 = t(0.975, n-1) · sd / √n;
//   - provenance: one JSON object per run appended to a JSON-lines store
//     (--store), with the build's commit, the machine, the command, the
//     STARPU_* and STARZK_* environment, the state of the performance models
//     the run started from ("models", bench_models.hpp) and a digest of their
//     files ("models_digest"), so rows from different days can be told
//     apart and compared only where the models agree.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/bench_report.hpp"
#include "cli/bench_run.hpp"

namespace starzk::cli {

struct sample_stats_t {
  unsigned n = 0;
  double mean = 0, sd = 0, ci95 = 0;  // sd and ci95 are 0 below two samples
};

// Mean, sample standard deviation and 95% half-width of `x`.
sample_stats_t sample_stats(const std::vector<double>& x);
// Student's t quantile t(0.975, df), df >= 1 (tabulated to 30, then the
// normal 1.960 approached as 1.96 + 2.4/df).
double student_t975(unsigned df);

// The order of `rows` runs over `rounds` rounds: round r is a permutation of
// 0..rows-1 drawn from a generator seeded with seed + r. Every row appears
// once per round.
std::vector<std::vector<size_t>> run_rounds(size_t rows, unsigned rounds, uint64_t seed);

// One row per distinct configuration, in the order of first appearance,
// from the runs of all rounds: the first completed run's details (phases,
// workers, latencies), s/proof and GPU s/proof the means over the completed
// runs, repeats = completed runs, sd and ci95 of s/proof; a row with a
// failed run keeps the first error (prefixed "k of N runs failed: "); the
// models state of the first run not "calibrated", if any. Where some but
// not all completed runs started from calibrated models, the samples are
// those runs alone (the others measured StarPU calibrating too) and the
// state reads "calibrated (K of N)": K calibrated of N completed.
std::vector<bench_result_t> aggregate_runs(const std::vector<bench_result_t>& runs);
// True where a row's samples all started from calibrated models: its state
// is "calibrated" or "calibrated (K of N)".
bool calibrated_row(const bench_result_t& row);

// A digest (64-bit FNV-1a, hex) of the names and bytes of every regular
// file under `dir` (recursively, in name order); "none" if it does not
// exist. For StarPU's codelet models: perfmodel_dir().
std::string tree_digest(const std::filesystem::path& dir);
// Where StarPU keeps its codelet performance models: $STARPU_PERF_MODEL_DIR,
// else $STARPU_HOME/.starpu/sampling, else $HOME/.starpu/sampling.
std::filesystem::path perfmodel_dir();
// The STARPU_* and STARZK_* variables of this process, by name.
std::map<std::string, std::string> scheduling_environment();

// What a store line says besides the run.
struct run_provenance_t {
  std::string commit;         // the build's source revision
  std::string models_digest;  // tree_digest(perfmodel_dir()) before the run
  unsigned round = 0;         // 0-based
  unsigned rounds = 1;
  uint64_t seed = 0;
};

nlohmann::json store_line(const bench_result_t& run, const bench_machine_t& machine, const run_provenance_t& p);
// Appends one line (the JSON, compact) to `store` in one write; throws a
// std::runtime_error naming the file if it cannot.
void append_store_line(const std::filesystem::path& store, const nlohmann::json& line);

}  // namespace starzk::cli
