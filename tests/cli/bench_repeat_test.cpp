// The statistics and run order of `starzk bench --repeat`
// (src/cli/bench_repeat.cpp), against values worked by hand: the sample
// standard deviation and Student's t interval of small samples, rounds
// that are permutations and repeat with their seed, runs folded into rows
// (means over the completed runs, a failed run reported), and the digest of
// a model folder that changes when a file does; a phase's CSV column
// counting the small-GPU form of its codelet too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "cli/bench_repeat.hpp"
#include "cli/bench_report.hpp"

namespace starzk::cli {
namespace {

namespace fs = std::filesystem;

TEST(bench_repeat, sample_statistics_match_hand_values) {
  // 1, 2, 3, 4: mean 2.5, sd = sqrt(5/3) = 1.29099, t(0.975, 3) = 3.182,
  // ci95 = 3.182 * 1.29099 / 2 = 2.05397.
  const sample_stats_t s = sample_stats({1, 2, 3, 4});
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.sd, 1.290994, 1e-6);
  EXPECT_NEAR(s.ci95, 2.053971, 1e-5);
  const sample_stats_t one = sample_stats({0.3});
  EXPECT_DOUBLE_EQ(one.mean, 0.3);
  EXPECT_EQ(one.sd, 0.0);
  EXPECT_EQ(one.ci95, 0.0);
  EXPECT_EQ(sample_stats({}).n, 0u);
  EXPECT_NEAR(student_t975(1), 12.706, 1e-3);
  EXPECT_NEAR(student_t975(30), 2.042, 1e-3);
  EXPECT_NEAR(student_t975(1000), 1.962, 1e-3);
}

TEST(bench_repeat, rounds_are_permutations_and_follow_the_seed) {
  const auto a = run_rounds(9, 5, 42), b = run_rounds(9, 5, 42), c = run_rounds(9, 5, 43);
  ASSERT_EQ(a.size(), 5u);
  for (const auto& round : a) {
    std::vector<size_t> sorted = round;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < 9; ++i) EXPECT_EQ(sorted[i], i);
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a[0], a[1]);  // a fresh order per round (9! orders: equal by chance ~3e-6)
}

bench_result_t run_of(const std::string& policy, double s_per_proof, bool ok = true) {
  bench_result_t r;
  r.config.log2 = 10;
  r.config.policy = policy;
  r.config.concurrency = 1;
  r.config.partitions = 2;
  r.config.jobs = 2;
  r.proofs = 4;
  r.verified = ok ? 4 : 0;
  r.s_per_proof = s_per_proof;
  r.gpu_s_per_proof = s_per_proof / 2;
  r.span_s_per_proof = s_per_proof * 0.9;
  if (!ok) r.error = "a proof did not verify";
  return r;
}

TEST(bench_repeat, runs_fold_into_rows_in_first_seen_order) {
  const std::vector<bench_result_t> runs = {run_of("eager", 1.0), run_of("starzk", 0.5), run_of("starzk", 0.7),
                                            run_of("eager", 3.0), run_of("starzk", 0.6), run_of("eager", 9.0, false)};
  const std::vector<bench_result_t> rows = aggregate_runs(runs);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].config.policy, "eager");
  EXPECT_EQ(rows[0].repeats, 2u);
  EXPECT_DOUBLE_EQ(rows[0].s_per_proof, 2.0);  // the failed run's 9.0 is no sample
  EXPECT_FALSE(rows[0].ok());
  EXPECT_EQ(rows[0].error, "1 of 3 runs failed: a proof did not verify");
  EXPECT_EQ(rows[1].config.policy, "starzk");
  EXPECT_EQ(rows[1].repeats, 3u);
  EXPECT_NEAR(rows[1].s_per_proof, 0.6, 1e-12);
  EXPECT_NEAR(rows[1].s_per_proof_sd, 0.1, 1e-12);
  EXPECT_NEAR(rows[1].s_per_proof_ci95, 4.303 * 0.1 / std::sqrt(3.0), 1e-9);
  EXPECT_NEAR(rows[1].gpu_s_per_proof, 0.3, 1e-12);
  EXPECT_NEAR(rows[1].span_s_per_proof, 0.54, 1e-12);
  EXPECT_TRUE(rows[1].ok());
}

TEST(bench_repeat, the_model_digest_follows_the_files) {
  const fs::path d = fs::temp_directory_path() / ("starzk-models-" + std::to_string(std::random_device{}()));
  EXPECT_EQ(tree_digest(d), "none");
  fs::create_directories(d / "codelets" / "45");
  std::ofstream(d / "codelets" / "45" / "starzk_msm.host") << "samples 1\n";
  const std::string first = tree_digest(d);
  EXPECT_EQ(first.size(), 16u);
  EXPECT_EQ(tree_digest(d), first);
  std::ofstream(d / "codelets" / "45" / "starzk_msm.host") << "samples 2\n";
  EXPECT_NE(tree_digest(d), first);
  fs::remove_all(d);
}

// The witness map and the H phase have a second form where a, b, c stay in
// host memory (spmv_passes, ntt_h_passes): their time goes to the same
// column, and a phase that did not run gives 0.
TEST(bench_report, phase_columns_count_the_passes_forms) {
  bench_result_t r;
  r.proofs = 4;
  r.phases = {{"spmv_passes", 4, 1.0}, {"ntt_h", 2, 0.4}, {"ntt_h_passes", 2, 0.6}, {"msm_h", 4, 2.0}};
  EXPECT_DOUBLE_EQ(phase_ms_per_proof(r, "spmv"), 250.0);
  EXPECT_DOUBLE_EQ(phase_ms_per_proof(r, "ntt_h"), 250.0);
  EXPECT_DOUBLE_EQ(phase_ms_per_proof(r, "msm_h"), 500.0);
  EXPECT_DOUBLE_EQ(phase_ms_per_proof(r, "msm_l"), 0.0);
  r.proofs = 0;
  EXPECT_DOUBLE_EQ(phase_ms_per_proof(r, "spmv"), 0.0);
}

}  // namespace
}  // namespace starzk::cli
