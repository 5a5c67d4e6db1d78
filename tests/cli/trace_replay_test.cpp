// `starzk trace replay` end to end (docs/policies.md, "Replaying a run"):
// a batch proved and recorded on this machine's CPUs, replayed under
// another policy, shows the same tasks and keeps the recorded policy's
// invariants when replayed under it; its --json names both runs; the
// trace's times written as StarPU model files only where
// STARPU_PERF_MODEL_DIR names a folder; a trace without buffers replayed
// from its edges, one with some missing, or that is not a trace, refused
// naming the file; one node's share of the run replayed alone.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"
#include "dag/heteroprio.hpp"
#include "runtime/perfmodel_history.hpp"
#include "runtime/trace.hpp"

namespace starzk::test {
namespace {

class TraceReplay : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("starzk-replay-cli-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const run_result g = run_starzk("gen --log2 10 --partitions 3 --out " + (dir_ / "batch").string());
    ASSERT_EQ(g.status, 0) << g.output;
    const run_result r = run_starzk("prove --manifest " + (dir_ / "batch" / "jobs.toml").string() +
                                    " --policy starzk --cpus 2 --gpus 0 --trace " + trace());
    ASSERT_EQ(r.status, 0) << r.output;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string trace() { return (dir_ / "run.json").string(); }
  static std::string p(const char* f) { return (dir_ / f).string(); }
  // `trace replay <run> args`: first without STARPU_PERF_MODEL_DIR, which
  // must be refused, then with it set to `models` and STARPU_HOSTNAME to
  // `host`; the second run's result.
  static run_result replay_into_models(const std::string& args, const fs::path& models, const char* host) {
    run_result r = run_starzk("trace replay " + trace() + " " + args);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("set STARPU_PERF_MODEL_DIR"), std::string::npos) << r.output;
    setenv("STARPU_PERF_MODEL_DIR", models.c_str(), 1);
    setenv("STARPU_HOSTNAME", host, 1);
    r = run_starzk("trace replay " + trace() + " " + args);
    unsetenv("STARPU_PERF_MODEL_DIR");
    unsetenv("STARPU_HOSTNAME");
    return r;
  }
  static fs::path dir_;
};
fs::path TraceReplay::dir_;

TEST_F(TraceReplay, ReplaysTheSameTasksUnderAnotherPolicyAndKeepsTheInvariantsUnderItsOwn) {
  const runtime::trace_t recorded = runtime::load_trace(trace());
  ASSERT_FALSE(recorded.events.empty());

  run_result r =
      run_starzk("trace replay " + trace() + " --policy eager --cpus 2 --gpus 0 --json --trace " + p("eager.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto at = r.output.rfind("\n{");
  const auto j = nlohmann::json::parse(r.output.substr(at == std::string::npos ? 0 : at + 1), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j["tasks"], recorded.events.size());
  EXPECT_EQ(j["recorded"]["policy"], "starzk");
  EXPECT_EQ(j["replay"]["policy"], "eager");
  EXPECT_FALSE(j["simulated"].get<bool>());
  EXPECT_GT(j["replay"]["span_s"].get<double>(), 0);
  const runtime::trace_t eager = runtime::load_trace(p("eager.json"));
  EXPECT_EQ(eager.events.size(), recorded.events.size());
  EXPECT_EQ(eager.meta.at("replay_of"), trace());

  r = run_starzk("trace replay " + trace() + " --policy starzk --cpus 2 --gpus 0 --trace " + p("starzk.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("replayed on this machine under starzk"), std::string::npos) << r.output;
  r = run_starzk("trace check " + p("starzk.json"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("every invariant held"), std::string::npos) << r.output;
}

TEST_F(TraceReplay, WritesModelsOnlyIntoTheFolderNamedForThem) {
  const fs::path models = dir_ / "models";
  const run_result r = replay_into_models("--policy eager --cpus 2 --gpus 0 --models-from-trace", models, "replaytest");
  ASSERT_EQ(r.status, 0) << r.output;
  const fs::path msm = models / "codelets" / "45" / "starzk_msm.replaytest";
  ASSERT_TRUE(fs::exists(msm)) << r.output;
  const std::vector<runtime::history_entry_t> entries = runtime::read_history_file(msm);
  ASSERT_FALSE(entries.empty());
  unsigned samples = 0;
  for (const runtime::history_entry_t& e : entries) {
    EXPECT_EQ(e.arch, "cpu");
    EXPECT_GT(e.mean_us, 0);
    samples += e.nsample;
  }
  // Four G1 MSMs per proof (h, l, a, b1), three proofs; StarPU's own runs
  // since then may have added samples, never removed them.
  EXPECT_GE(samples, 12u);
}

TEST_F(TraceReplay, ModelsOnlyWritesTheModelsAndReplaysNothing) {
  const fs::path models = dir_ / "models-only";
  const run_result r =
      replay_into_models("--models-only --assume msm=cpu:0.25 --trace " + p("none.json"), models, "modelsonly");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("written from the trace"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("replayed"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(p("none.json"))) << "a models-only run recorded a replay";
  const fs::path msm = models / "codelets" / "45" / "starzk_msm.modelsonly";
  ASSERT_TRUE(fs::exists(msm)) << r.output;
  // The assumed time, not the recorded ones.
  for (const runtime::history_entry_t& e : runtime::read_history_file(msm)) {
    EXPECT_EQ(e.arch, "cpu");
    EXPECT_NEAR(e.mean_us, 250000.0, 1.0);
  }
}

TEST_F(TraceReplay, ReplaysATraceWithoutBuffersFromItsEdgesAndRefusesOneWithSomeMissing) {
  std::ifstream in(trace());
  nlohmann::json j = nlohmann::json::parse(in);
  nlohmann::json some = j;
  for (auto& e : j["traceEvents"])
    if (e.contains("args") && e["args"].contains("buffers")) e["args"].erase("buffers");
  std::ofstream(p("old.json")) << j.dump();
  run_result r = run_starzk("trace replay " + p("old.json") + " --cpus 2 --gpus 0");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("0 data (no buffers recorded: edges only)"), std::string::npos) << r.output;

  for (auto& e : some["traceEvents"])
    if (e.contains("args") && e["args"].value("codelet", "") == "ntt_h") {
      e["args"].erase("buffers");
      break;
    }
  std::ofstream(p("some.json")) << some.dump();
  r = run_starzk("trace replay " + p("some.json") + " --cpus 2 --gpus 0");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("some.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("it has bytes but no buffers"), std::string::npos) << r.output;

  std::ofstream(p("junk.json")) << "{\"traceEvents\": 7}";
  r = run_starzk("trace replay " + p("junk.json"));
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("junk.json"), std::string::npos) << r.output;

  r = run_starzk("trace replay " + trace() + " --submit later");
  EXPECT_EQ(r.status, 2) << r.output;
}

// heteroprio reads a task's priority as its bucket, and a bucket holds only
// tasks every kind it serves can run: the replay sets the buckets as the
// program does, whatever the recorded priorities were (here every task's
// set to 3, spmv's CUDA-only bucket, which StarPU's heteroprio would
// refuse with an assertion for a task on CPUs).
TEST_F(TraceReplay, ReplaysUnderHeteroprioWithItsBuckets) {
  std::ifstream in(trace());
  nlohmann::json j = nlohmann::json::parse(in);
  for (auto& e : j["traceEvents"])
    if (e.contains("args") && e["args"].contains("priority")) e["args"]["priority"] = 3;
  std::ofstream(p("prio.json")) << j.dump();
  const run_result r = run_starzk("trace replay " + p("prio.json") + " --policy heteroprio --cpus 2 --gpus 0 --trace " +
                                  p("heteroprio.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const runtime::trace_t replayed = runtime::load_trace(p("heteroprio.json"));
  ASSERT_FALSE(replayed.events.empty());
  for (const runtime::trace_event_t& e : replayed.events) {
    SCOPED_TRACE(e.name);
    EXPECT_NE(e.priority, 3);
    EXPECT_EQ(e.priority, int(dag::heteroprio_bucket(e.codelet, true, false)));
  }
}

// --assume: the replay's msm tasks take the assumed time on the CPUs; a
// malformed one is refused with the form it expects.
TEST_F(TraceReplay, ReplaysWithAnAssumedTime) {
  run_result r = run_starzk("trace replay " + trace() +
                            " --policy eager --cpus 2 --gpus 0 --assume msm=cpu:0.05 --trace " + p("assumed.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const runtime::trace_t replayed = runtime::load_trace(p("assumed.json"));
  unsigned msms = 0;
  for (const runtime::trace_event_t& e : replayed.events)
    if (e.codelet == "msm") {
      EXPECT_GE(e.end_us - e.start_us, 50'000 - 1) << e.name;
      ++msms;
    }
  EXPECT_EQ(msms, 12u);  // h, l, a, b1 of three proofs

  for (const char* bad :
       {"msm", "msm=cpu", "msm=cpu:x", "msm=cpu:inf", "msm=cpu:-1", "=cpu:1", "msm=gpu:1", "nope=cpu:1"}) {
    r = run_starzk("trace replay " + trace() + " --cpus 2 --gpus 0 --assume " + bad);
    EXPECT_NE(r.status, 0) << bad;
    const bool named =
        r.output.find("--assume") != std::string::npos || r.output.find("assumed time") != std::string::npos;
    EXPECT_TRUE(named) << bad << ": " << r.output;
  }
}

// Three proofs over two nodes: rank 0 holds partitions 0 and 2, rank 1
// partition 1; a rank past the last is refused.
TEST_F(TraceReplay, ReplaysOneNodesShareOfTheRun) {
  const runtime::trace_t recorded = runtime::load_trace(trace());
  std::size_t sum = 0;
  for (unsigned rank : {0u, 1u}) {
    const run_result r =
        run_starzk("trace replay " + trace() + " --policy starzk --cpus 2 --gpus 0 --json --ranks 2 --rank " +
                   std::to_string(rank));
    ASSERT_EQ(r.status, 0) << r.output;
    const auto at = r.output.rfind("\n{");
    const auto j = nlohmann::json::parse(r.output.substr(at == std::string::npos ? 0 : at + 1), nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.output;
    EXPECT_EQ(j["ranks"], 2);
    EXPECT_EQ(j["rank"], rank);
    EXPECT_EQ(j["partitions"], rank == 0 ? 2 : 1);
    EXPECT_EQ(j["partitions_recorded"], 3);
    sum += j["tasks"].get<std::size_t>();
  }
  EXPECT_EQ(sum, recorded.events.size());  // every task here belongs to a partition

  run_result r = run_starzk("trace replay " + trace() + " --cpus 2 --gpus 0 --ranks 4 --rank 3");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("rank 3 of 4: no partition of the trace falls to it (the trace has 3)"), std::string::npos)
      << r.output;
  r = run_starzk("trace replay " + trace() + " --rank 1");
  EXPECT_EQ(r.status, 2) << r.output;
}

}  // namespace
}  // namespace starzk::test
