// `starzk bench` end to end, on a tiny sweep (policies starzk and eager,
// c = 1, 2, j = 2, 2^10, 2 jobs, 2 CPU workers): the command succeeds, the
// CSV parses with the expected columns and exactly the expected rows (the
// one-at-a-time baseline plus one per policy × c), every proof of every row
// verified, the numbers are consistent (proofs = jobs × j, p95 ≥ mean, eager
// against itself is 1, busy fractions in (0, 1]), bench.json agrees, and a
// trace per run was written. Then the failure paths: a witness that no
// longer satisfies the circuit makes the run fail (exit status 1, the row
// marked FAILED with 0 verified), a run past --run-timeout stops and its
// row reports the proofs finished by then, and an unknown policy is refused
// by name before anything runs. Then repetitions and the run store, and the
// models column with --require-calibrated and --calibrate.
#include <gtest/gtest.h>

#include "../run_binary.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "groth16/r1cs.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"

namespace starzk {
namespace {

namespace fs = std::filesystem;
const fs::path starzk_bin = fs::path(STARZK_BINARY_DIR) / "bin" / "starzk";

struct run_t {
  int rc;
  std::string out;
};

run_t run(const std::string& args) {
  const test::run_result r = test::run_binary(starzk_bin.string(), args);
  return {r.status, r.output};
}

// A CSV without quoted fields (bench quotes only fields with commas, which
// this sweep's rows do not have); one map per row, keyed by the header.
std::vector<std::map<std::string, std::string>> read_csv(const fs::path& file, std::vector<std::string>& header) {
  std::ifstream f(file);
  auto split = [](const std::string& line) {
    std::vector<std::string> v;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) v.push_back(cell);
    if (!line.empty() && line.back() == ',') v.emplace_back();
    return v;
  };
  std::string line;
  std::vector<std::map<std::string, std::string>> rows;
  if (!std::getline(f, line)) return rows;
  header = split(line);
  while (std::getline(f, line)) {
    const std::vector<std::string> cells = split(line);
    EXPECT_EQ(cells.size(), header.size()) << line;
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < std::min(cells.size(), header.size()); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

class bench_cli : public test::binary_dir_test {
 protected:
  bench_cli() : binary_dir_test(starzk_bin, "starzk-bench-") {}
};

TEST_F(bench_cli, tiny_sweep_table_csv_json_and_failures) {
  const std::string sweep =
      "bench --policies starzk,eager --concurrency 1,2 --partitions 2 --log2 10 --jobs 2 --ncpu 2 --threads 2";
  const run_t b = run(sweep + " --out " + dir_.string());
  ASSERT_EQ(b.rc, 0) << b.out;
  EXPECT_NE(b.out.find("s/proof"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("eager, 1 at a time"), std::string::npos) << b.out;

  // The CSV: its columns, then exactly the expected rows.
  std::vector<std::string> header;
  const auto rows = read_csv(dir_ / "bench.csv", header);
  const std::vector<std::string> want_cols = {"log2",
                                              "mode",
                                              "policy",
                                              "concurrency",
                                              "partitions",
                                              "jobs",
                                              "proofs",
                                              "verified",
                                              "cpu_workers",
                                              "cuda_workers",
                                              "wall_s",
                                              "s_per_proof",
                                              "repeats",
                                              "s_per_proof_sd",
                                              "s_per_proof_ci95",
                                              "span_s_per_proof",
                                              "proofs_per_s",
                                              "speedup_vs_baseline",
                                              "speedup_vs_eager",
                                              "latency_mean_s",
                                              "latency_p95_s",
                                              "latency_max_s",
                                              "busy_mean",
                                              "busy_per_worker",
                                              "gpu_s_per_proof",
                                              "gpu_busy",
                                              "peak_rss_mib",
                                              "spmv_ms",
                                              "prep_msm_ms",
                                              "ntt_h_ms",
                                              "msm_h_ms",
                                              "msm_l_ms",
                                              "msm_a_ms",
                                              "msm_b1_ms",
                                              "b_g2_msm_ms",
                                              "assemble_ms",
                                              "free_ms",
                                              "status",
                                              "models"};
  EXPECT_EQ(header, want_cols);
  ASSERT_EQ(rows.size(), 5u) << b.out;

  std::set<std::string> seen;
  for (const auto& r : rows) {
    const std::string key =
        r.at("mode") + "/" + r.at("policy") + "/c" + r.at("concurrency") + "/j" + r.at("partitions");
    seen.insert(key);
    const bool baseline = r.at("mode") == "baseline";
    const int jobs = std::stoi(r.at("jobs")), parts = std::stoi(r.at("partitions"));
    EXPECT_EQ(r.at("status"), "ok") << key;
    EXPECT_EQ(r.at("log2"), "10") << key;
    EXPECT_EQ(std::stoi(r.at("proofs")), jobs * parts) << key;
    EXPECT_EQ(r.at("verified"), r.at("proofs")) << key;
    EXPECT_EQ(jobs, baseline ? 4 : 2) << key;  // the baseline proves jobs × max(j) proofs
    EXPECT_EQ(r.at("cpu_workers"), "2") << key;
    const double spp = std::stod(r.at("s_per_proof")), wall = std::stod(r.at("wall_s"));
    EXPECT_GT(spp, 0) << key;
    const double span = std::stod(r.at("span_s_per_proof"));  // the tasks' span lies inside the window
    EXPECT_GT(span, 0) << key;
    EXPECT_LE(span, spp * (1 + 1e-6)) << key;
    EXPECT_NEAR(spp * jobs * parts, wall, 1e-3 * wall + 1e-5) << key;
    EXPECT_GE(std::stod(r.at("latency_p95_s")), std::stod(r.at("latency_mean_s")) - 1e-6) << key;
    EXPECT_GE(std::stod(r.at("latency_max_s")), std::stod(r.at("latency_p95_s")) - 1e-6) << key;
    const double busy = std::stod(r.at("busy_mean"));
    EXPECT_GT(busy, 0) << key;
    EXPECT_LE(busy, 1.0001) << key;
    EXPECT_EQ(std::count(r.at("busy_per_worker").begin(), r.at("busy_per_worker").end(), ';'), 1) << key;
    EXPECT_GT(std::stod(r.at("peak_rss_mib")), 0) << key;
    EXPECT_GT(std::stod(r.at("msm_h_ms")), 0) << key;
    EXPECT_GT(std::stod(r.at("spmv_ms")), 0) << key;
    EXPECT_GT(std::stod(r.at("speedup_vs_baseline")), 0) << key;
    if (baseline) {
      EXPECT_NEAR(std::stod(r.at("speedup_vs_baseline")), 1.0, 1e-4) << key;
    }
    if (!baseline && r.at("policy") == "eager") {
      EXPECT_NEAR(std::stod(r.at("speedup_vs_eager")), 1.0, 1e-4) << key;
    }
    if (!baseline) {
      EXPECT_GT(std::stod(r.at("speedup_vs_eager")), 0) << key;
    }
    const std::string trace = std::string("k10-") + (baseline ? "baseline-eager" : r.at("policy")) + "-c" +
                              r.at("concurrency") + "-j" + r.at("partitions") + ".json";
    EXPECT_TRUE(fs::exists(dir_ / "traces" / trace)) << trace;
  }
  const std::set<std::string> want_rows = {"baseline/eager/c1/j1", "pipeline/starzk/c1/j2", "pipeline/eager/c1/j2",
                                           "pipeline/starzk/c2/j2", "pipeline/eager/c2/j2"};
  EXPECT_EQ(seen, want_rows);

  // bench.json: the same rows, all verified, with the machine described.
  std::ifstream jf(dir_ / "bench.json");
  const nlohmann::json j = nlohmann::json::parse(jf, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_EQ(j.at("rows").size(), 5u);
  EXPECT_GE(j.at("machine").at("nproc").get<unsigned>(), 1u);
  for (const auto& r : j.at("rows")) {
    EXPECT_TRUE(r.at("ok").get<bool>()) << r.dump();
    EXPECT_EQ(r.at("verified"), r.at("proofs"));
    EXPECT_EQ(r.at("workers").size(), 2u);
    EXPECT_FALSE(r.at("phases").empty());
  }

  // A witness that no longer satisfies the circuit: the first aux wire is
  // a bit with a boolean constraint, so 2 breaks it. The cached inputs are
  // reused (same size and partitions), the proof does not verify, the run
  // and the command fail, and the files still say which row.
  const fs::path inputs = dir_ / "inputs" / "k10";
  const r1cs_t cs = read_r1cs(inputs / "circuit.r1cs");
  std::vector<fr_t> w = read_wtns(inputs / "witness-0.wtns", cs.n_vars);
  w.at(1 + cs.n_public) = fr_t::from_u64(2);
  write_wtns(inputs / "witness-0.wtns", w);
  const run_t f =
      run("bench --policies eager --concurrency 1 --partitions 2 --log2 10 --jobs 2 --ncpu 2 --no-baseline --out " +
          dir_.string());
  EXPECT_EQ(f.rc, 1) << f.out;
  EXPECT_NE(f.out.find("FAILED"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("reusing the inputs"), std::string::npos) << f.out;
  const auto failed = read_csv(dir_ / "bench.csv", header);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].at("status").find("FAILED"), std::string::npos);
  EXPECT_NE(failed[0].at("verified"), failed[0].at("proofs"));

  // A run still proving at --run-timeout stops there: its row reports the
  // proofs finished by then (all verified, a throughput from them, a trace)
  // and says it was stopped; the sweep goes on to the next row and fails.
  const run_t t =
      run("bench --policies eager,starzk --concurrency 1 --partitions 2 --log2 10 --jobs 5000 --ncpu 2 "
          "--no-baseline --run-timeout 1 --out " +
          (dir_ / "t").string());
  EXPECT_EQ(t.rc, 1) << t.out;
  const auto stopped = read_csv(dir_ / "t" / "bench.csv", header);
  ASSERT_EQ(stopped.size(), 2u) << t.out;
  for (const auto& row : stopped) {
    EXPECT_NE(row.at("status").find("stopped after 1 s (--run-timeout)"), std::string::npos) << row.at("status");
    EXPECT_GT(std::stoul(row.at("proofs")), 0u);
    EXPECT_LT(std::stoul(row.at("proofs")), 10000u);
    EXPECT_EQ(row.at("verified"), row.at("proofs"));
    EXPECT_GT(std::stod(row.at("s_per_proof")), 0.0);
  }
  EXPECT_TRUE(fs::exists(dir_ / "t" / "traces" / "k10-starzk-c1-j2.json"));

  // An unknown policy is refused, by name, before any run.
  const run_t u = run("bench --policies starzk,no-such-policy --log2 10 --out " + (dir_ / "u").string());
  EXPECT_NE(u.rc, 0);
  EXPECT_NE(u.out.find("no-such-policy"), std::string::npos) << u.out;
  EXPECT_FALSE(fs::exists(dir_ / "u" / "bench.csv"));
}

// --repeat 3: every row runs three times in shuffled rounds (one run file
// and one trace per run), a row is the mean of its three runs with a 95%
// interval, and --store gets one JSON line per run with its provenance; the
// same --seed gives the same order.
TEST_F(bench_cli, repeats_give_means_intervals_and_a_run_store) {
  const fs::path store = dir_ / "runs.jsonl";
  const std::string sweep =
      "bench --policies starzk,eager --concurrency 1 --partitions 1 --log2 10 --jobs 1 "
      "--ncpu 2 --threads 2 --no-baseline --repeat 3 --seed 7 --store " +
      store.string();
  const run_t b = run(sweep + " --out " + (dir_ / "r").string());
  ASSERT_EQ(b.rc, 0) << b.out;
  EXPECT_NE(b.out.find("--seed 7"), std::string::npos) << b.out;
  std::vector<std::string> header;
  const auto rows = read_csv(dir_ / "r" / "bench.csv", header);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("repeats"), "3") << row.at("policy");
    EXPECT_GE(std::stod(row.at("s_per_proof_sd")), 0.0);
    EXPECT_GE(std::stod(row.at("s_per_proof_ci95")), std::stod(row.at("s_per_proof_sd")) / 2) << row.at("policy");
    EXPECT_EQ(row.at("status"), "ok");
  }
  for (int r = 1; r <= 3; ++r)
    for (const char* p : {"starzk", "eager"})
      EXPECT_TRUE(
          fs::exists(dir_ / "r" / "traces" / ("k10-" + std::string(p) + "-c1-j1-r" + std::to_string(r) + ".json")));
  // The store: six lines, each a run with its provenance; every policy in every round.
  std::ifstream f(store);
  std::string line;
  std::vector<nlohmann::json> lines;
  while (std::getline(f, line)) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 6u);
  std::map<int, std::set<std::string>> per_round;
  for (const nlohmann::json& j : lines) {
    EXPECT_TRUE(j.at("ok").get<bool>());
    EXPECT_EQ(j.at("seed").get<uint64_t>(), 7u);
    EXPECT_EQ(j.at("rounds").get<unsigned>(), 3u);
    EXPECT_FALSE(j.at("commit").get<std::string>().empty());
    EXPECT_FALSE(j.at("models_digest").get<std::string>().empty());
    EXPECT_FALSE(j.at("models").get<std::string>().empty());  // calibrated or not
    EXPECT_TRUE(j.at("environment").is_object());
    per_round[j.at("round").get<int>()].insert(j.at("policy").get<std::string>());
  }
  for (int r = 0; r < 3; ++r) EXPECT_EQ(per_round[r], (std::set<std::string>{"starzk", "eager"})) << r;
  // The same seed, the same order of runs.
  std::vector<std::string> order;
  for (const nlohmann::json& j : lines) order.push_back(j.at("policy").get<std::string>());
  fs::remove(store);
  ASSERT_EQ(run(sweep + " --out " + (dir_ / "r2").string()).rc, 0);
  std::ifstream g(store);
  std::vector<std::string> again;
  while (std::getline(g, line)) again.push_back(nlohmann::json::parse(line).at("policy").get<std::string>());
  EXPECT_EQ(again, order);
}

// The models column (bench_models.hpp), in a model folder of its own: a
// first run fills it with two samples per entry (STARPU_CALIBRATE=1, two
// proofs), which is too few, so the next run's row says "uncalibrated:" and
// names entries, and --require-calibrated fails naming the row; then
// --calibrate runs the size under dmda until every entry has StarPU's
// minimum, and the row says "calibrated" and passes.
TEST_F(bench_cli, models_column_require_calibrated_and_calibrate) {
  const std::string env = "STARPU_PERF_MODEL_DIR=" + (dir_ / "models").string() + " STARPU_HOSTNAME=benchhost";
  const fs::path out = dir_ / "m";
  const std::string sweep =
      "bench --policies eager --concurrency 1 --partitions 2 --log2 10 --ncpu 2 --gpus 0 "
      "--threads 2 --no-baseline --out " +
      out.string();
  auto models_of = [&] {
    std::vector<std::string> header;
    const auto rows = read_csv(out / "bench.csv", header);
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? std::string() : rows[0].at("models");
  };
  const test::run_result a = test::run_binary(starzk_bin.string(), sweep + " --jobs 1", env + " STARPU_CALIBRATE=1");
  ASSERT_EQ(a.status, 0) << a.output;
  EXPECT_EQ(models_of().rfind("uncalibrated:", 0), 0u) << models_of();  // no model at all

  const test::run_result b = test::run_binary(starzk_bin.string(), sweep + " --jobs 1 --require-calibrated", env);
  EXPECT_EQ(b.status, 1) << b.output;
  EXPECT_NE(b.output.find("starzk: bench: row k10-eager-c1-j2 was measured with models that were not calibrated"),
            std::string::npos)
      << b.output;
  const std::string cold = models_of();
  EXPECT_EQ(cold.rfind("uncalibrated:", 0), 0u) << cold;
  EXPECT_NE(cold.find("/cpu/"), std::string::npos) << cold;
  EXPECT_EQ(cold.find("/cuda/"), std::string::npos) << cold;  // no CUDA worker: no CUDA entry needed
  std::ifstream jf(out / "bench.json");
  const nlohmann::json j = nlohmann::json::parse(jf, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j.at("rows").at(0).at("models").get<std::string>(), cold);
  EXPECT_FALSE(j.at("rows").at(0).at("model_needs").empty());

  // StarPU leaves out a measurement more than STARPU_HISTORY_MAX_ERROR
  // (50%) off its entry's mean, which makes the µs-long free task's count
  // wander on a busy machine; here every measurement counts, so two
  // calibration runs of four proofs suffice.
  const test::run_result c = test::run_binary(starzk_bin.string(), sweep + " --jobs 2 --calibrate --require-calibrated",
                                              env + " STARPU_HISTORY_MAX_ERROR=1000000");
  EXPECT_EQ(c.status, 0) << c.output;
  EXPECT_NE(c.output.find("--calibrate: the models of 2^10 hold at least 10 samples"), std::string::npos) << c.output;
  EXPECT_EQ(models_of(), "calibrated");
}

}  // namespace
}  // namespace starzk
