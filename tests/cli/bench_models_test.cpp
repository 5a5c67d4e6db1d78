// The model state of `starzk bench` rows (src/cli/bench_models.cpp): the
// entries a trace's tasks used, merged per (model, footprint); a row is
// "calibrated" only when every one holds the minimum samples on every kind
// that could have run it, else it names the first short ones; the needs
// survive the child's JSON; the calibration runs are the sweep's dm* rows,
// else one dmda run; a row of several runs keeps the first cold state.
#include <gtest/gtest.h>

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

  // Three runs of a row: the row keeps the first state that is not calibrated.
  std::vector<bench_result_t> runs(3);
  for (bench_result_t& r : runs) {
    r.config = eager;
    r.proofs = r.verified = 4;
    r.s_per_proof = 1;
    r.models = "calibrated";
  }
  EXPECT_EQ(aggregate_runs(runs)[0].models, "calibrated");
  runs[1].models = "uncalibrated:msm/cpu/00000020";
  runs[2].models = "uncalibrated:spmv/cpu/00000010";
  EXPECT_EQ(aggregate_runs(runs)[0].models, "uncalibrated:msm/cpu/00000020");
}

}  // namespace
}  // namespace starzk::cli
