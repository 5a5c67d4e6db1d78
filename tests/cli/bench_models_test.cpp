// The model state of `starzk bench` rows (src/cli/bench_models.cpp): the
// entries a trace's tasks used, merged per (model, footprint); a row is
// "calibrated" only when every one holds the minimum samples on every kind
// that could have run it, else it names the first short ones; the needs
// survive the child's JSON; the calibration runs are the sweep's dm* rows,
// else one dmda run, after the CPU workers' side measured under eager on
// the cores alone where the rows may use GPUs; a row of several runs keeps
// the first cold state.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/bench_models.hpp"
#include "cli/bench_repeat.hpp"

namespace starzk::cli {
namespace {

runtime::trace_event_t event(const std::string& codelet, uint32_t fp, std::vector<std::string> could_run) {
  runtime::trace_event_t e;
  e.codelet = codelet;
  e.model = "starzk_" + codelet;
  e.footprint = fp;
  e.could_run = std::move(could_run);
  return e;
}

TEST(bench_models, needs_state_and_json) {
  runtime::trace_t t;
  t.events = {event("msm", 0x20, {"cpu"}), event("spmv", 0x10, {"cpu", "cuda"}), event("msm", 0x20, {"cuda"}),
              event("msm", 0x21, {"cpu"})};
  t.events.push_back(runtime::trace_event_t{});  // a task without a model
  const std::vector<model_need_t> needs = model_needs(t);
  ASSERT_EQ(needs.size(), 3u);
  EXPECT_EQ(needs[0].codelet, "msm");
  EXPECT_EQ(needs[0].footprint, 0x20u);
  EXPECT_EQ(needs[0].archs, (std::vector<std::string>{"cpu", "cuda"}));  // merged over its tasks
  EXPECT_EQ(needs[2].codelet, "spmv");
  EXPECT_EQ(model_needs_from_json(model_needs_to_json(needs)), needs);
  EXPECT_THROW(model_needs_from_json(nlohmann::json::parse(R"([{"codelet":"a","model":"b","footprint":"xyz",
                                                               "archs":[]}])")),
               std::runtime_error);

  model_counts_t c;
  c.minimum = 10;
  EXPECT_EQ(model_state({}, c), "unknown");
  // Nothing measured yet: every (need, kind) is short, the first three named.
  EXPECT_EQ(model_state(needs, c), "uncalibrated:msm/cpu/00000020 msm/cuda/00000020 msm/cpu/00000021 (+2 more)");
  for (const model_need_t& n : needs)
    for (const std::string& a : n.archs) c.samples[{n.model, a, n.footprint}] = 10;
  EXPECT_EQ(model_state(needs, c), "calibrated");
  c.samples[{"starzk_spmv", "cuda", 0x10}] = 9;  // one sample short on one kind
  EXPECT_EQ(model_state(needs, c), "uncalibrated:spmv/cuda/00000010");
  const std::vector<model_gap_t> gaps = model_gaps(needs, c);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(describe_gaps(gaps, 10), "spmv/cuda/00000010 (9 of 10 samples)");
  c.minimum = 9;
  EXPECT_EQ(model_state(needs, c), "calibrated");
}

TEST(bench_models, calibration_runs_and_rows_of_several_runs) {
  bench_config_t base;
  base.log2 = 10;
  base.baseline = true;
  base.policy = "dmdas";
  bench_config_t eager = base, dmdas = base, dmda = base;
  eager.baseline = dmdas.baseline = dmda.baseline = false;
  eager.policy = "eager";
  eager.partitions = 4;
  dmdas.policy = "dmdas";
  dmda.policy = "dmda";
  dmda.trace = "t.json";
  // The sweep's dm* rows (not the baseline), without traces.
  std::vector<bench_config_t> c = calibration_configs({base, eager, dmdas, dmda});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].policy, "dmdas");
  EXPECT_EQ(c[1].policy, "dmda");
  EXPECT_TRUE(c[1].trace.empty());
  // None: one dmda run shaped like the first pipeline row.
  c = calibration_configs({base, eager});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].policy, "dmda");
  EXPECT_EQ(c[0].partitions, 4u);
  EXPECT_FALSE(c[0].baseline);
  EXPECT_TRUE(calibrates_models("dmdar"));
  EXPECT_FALSE(calibrates_models("heteroprio"));

  // Three runs of a row: with none calibrated the row keeps the first
  // state; with some, their samples alone make the row.
  std::vector<bench_result_t> runs(3);
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].config = eager;
    runs[i].proofs = runs[i].verified = 4;
    runs[i].s_per_proof = double(i + 1);
    runs[i].models = "calibrated";
  }
  EXPECT_EQ(aggregate_runs(runs)[0].models, "calibrated");
  EXPECT_DOUBLE_EQ(aggregate_runs(runs)[0].s_per_proof, 2.0);
  runs[0].models = "uncalibrated:b_g2_msm/cpu/00000030";
  runs[1].models = "uncalibrated:msm/cpu/00000020";
  runs[2].models = "uncalibrated:spmv/cpu/00000010";
  EXPECT_EQ(aggregate_runs(runs)[0].models, "uncalibrated:b_g2_msm/cpu/00000030");
  EXPECT_FALSE(calibrated_row(aggregate_runs(runs)[0]));
  runs[2].models = "calibrated";  // the first two calibrating, the last not
  const bench_result_t row = aggregate_runs(runs)[0];
  EXPECT_EQ(row.models, "calibrated (1 of 3)");
  EXPECT_TRUE(calibrated_row(row));
  EXPECT_EQ(row.repeats, 1u);
  EXPECT_DOUBLE_EQ(row.s_per_proof, 3.0);
}

// The CPU workers' run: eager on the cores alone, jobs enough for the
// minimum, all in flight; none for rows without GPUs.
TEST(bench_models, cpu_calibration_run) {
  bench_config_t like;
  like.log2 = 24;
  like.policy = "dmdas";
  like.partitions = 4;
  like.jobs = 4;
  like.concurrency = 2;
  like.ngpu = -1;
  like.trace = "t.json";
  const std::optional<bench_config_t> c = cpu_calibration_config(like, 10);  // proofs
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->policy, "eager");
  EXPECT_EQ(c->ngpu, 0);
  EXPECT_EQ(c->jobs, 3u);  // 12 proofs >= 10
  EXPECT_EQ(c->concurrency, 3u);
  EXPECT_EQ(c->partitions, 4u);
  EXPECT_EQ(c->log2, 24u);
  EXPECT_TRUE(c->trace.empty());
  like.partitions = 16;
  EXPECT_EQ(cpu_calibration_config(like, 10)->jobs, 1u);
  like.ngpu = 0;
  EXPECT_FALSE(cpu_calibration_config(like, 10).has_value());
}

// The order of the calibration runs, with runs that record no task unless
// told (so no phase ends early). Where the rows may use GPUs and nothing
// is known of the size: a probe (one job under starzk), then the CPU
// workers' run `rounds` times, sized for half again the minimum (15
// proofs: 8 jobs of 2), then the dm* runs. No CPU workers' run when the
// CPU entries known from earlier runs, or from the probe, hold the minimum
// (here 0), nor when the probe finds no CUDA worker; without GPUs the dm*
// runs only.
TEST(bench_models, calibration_order) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("starzk-calibration-order-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  ASSERT_EQ(setenv("STARPU_PERF_MODEL_DIR", dir.c_str(), 1), 0);
  bench_config_t row;
  row.log2 = 10;
  row.policy = "dmdas";
  row.partitions = 2;
  row.jobs = 4;
  row.ngpu = -1;
  const model_need_t on_cpu{"msm", "starzk_msm", 7, {"cpu", "cuda"}}, on_cuda{"msm", "starzk_msm", 7, {"cuda"}};
  std::vector<std::string> ran;
  unsigned host_gpus = 1;                 // CUDA workers the fake runs report where ngpu allows
  std::vector<model_need_t> probe_needs;  // what the probe reports
  auto run = [&](const bench_config_t& c, unsigned round) {
    ran.push_back(c.policy + "/" + std::to_string(c.ngpu) + "/" + std::to_string(c.jobs) + "/" + std::to_string(round));
    bench_result_t r;
    r.proofs = r.verified = c.jobs * c.partitions;
    r.cuda_workers = c.ngpu == 0 ? 0 : host_gpus;
    if (c.policy == "starzk") r.model_needs = probe_needs;
    return r;
  };
  EXPECT_FALSE(calibrate_models({row}, 2, run).empty());
  EXPECT_EQ(ran,
            (std::vector<std::string>{"starzk/-1/1/0", "eager/0/8/0", "eager/0/8/1", "dmdas/-1/4/0", "dmdas/-1/4/1"}));
  ran.clear();
  ASSERT_EQ(setenv("STARPU_CALIBRATE_MINIMUM", "0", 1), 0);
  EXPECT_FALSE(calibrate_models({row}, 2, run, {on_cpu}).empty());
  EXPECT_EQ(ran, (std::vector<std::string>{"dmdas/-1/4/0", "dmdas/-1/4/1"}));
  ran.clear();
  EXPECT_FALSE(calibrate_models({row}, 1, run, {on_cuda}).empty());
  EXPECT_EQ(ran, (std::vector<std::string>{"starzk/-1/1/0", "eager/0/1/0", "dmdas/-1/4/0"}));
  ran.clear();
  probe_needs = {on_cpu};
  EXPECT_FALSE(calibrate_models({row}, 1, run).empty());
  EXPECT_EQ(ran, (std::vector<std::string>{"starzk/-1/1/0", "dmdas/-1/4/0"}));
  ran.clear();
  probe_needs.clear();
  unsetenv("STARPU_CALIBRATE_MINIMUM");
  host_gpus = 0;
  EXPECT_FALSE(calibrate_models({row}, 1, run).empty());
  EXPECT_EQ(ran, (std::vector<std::string>{"starzk/-1/1/0", "dmdas/-1/4/0"}));
  ran.clear();
  row.ngpu = 0;
  EXPECT_FALSE(calibrate_models({row}, 2, run).empty());
  EXPECT_EQ(ran, (std::vector<std::string>{"dmdas/0/4/0", "dmdas/0/4/1"}));
  unsetenv("STARPU_PERF_MODEL_DIR");
  std::filesystem::remove_all(dir);
}

// The needs of earlier runs come from the result files of the size asked
// for; another size's and a file that is not a result are left out.
TEST(bench_models, earlier_needs_from_result_files) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("starzk-earlier-needs-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, unsigned k, std::vector<model_need_t> needs) {
    bench_result_t r;
    r.config.log2 = k;
    r.config.policy = "dmdas";
    r.model_needs = std::move(needs);
    std::ofstream(dir / name) << bench_result_to_json(r).dump();
  };
  const model_need_t a{"msm", "starzk_msm", 7, {"cpu", "cuda"}}, b{"spmv", "starzk_spmv", 9, {"cpu"}};
  write("one.json", 24, {a});
  write("two.json", 24, {b});
  write("other.json", 22, {model_need_t{"ntt_h", "starzk_ntt_h", 3, {"cuda"}}});
  std::ofstream(dir / "stopped.json") << "{\"log2\": 24";
  std::ofstream(dir / "notes.txt") << "not a result";
  std::vector<model_need_t> got = earlier_needs(dir, 24);
  std::sort(got.begin(), got.end(), [](const model_need_t& x, const model_need_t& y) { return x.codelet < y.codelet; });
  EXPECT_EQ(got, (std::vector<model_need_t>{a, b}));
  EXPECT_TRUE(earlier_needs(dir, 20).empty());
  EXPECT_TRUE(earlier_needs(dir / "missing", 24).empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace starzk::cli
