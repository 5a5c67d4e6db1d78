// The trace report on a recorded batch: the summary counts every phase,
// proof and worker of the run, busy fractions lie in (0, 1], the JSON form
// parses back to the same numbers, and the waterfall script holds one bar
// per task and a legend entry per codelet. A hand-made trace pins the
// arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>
#include <sstream>

#include "codelets/codelets.hpp"
#include "dag/batch.hpp"
#include "dag/trace_report.hpp"
#include "dag_test_util.hpp"
#include "runtime/trace.hpp"

namespace starzk {
namespace {

runtime::trace_event_t ev(const char* name, int worker, double s, double e, uint32_t job, uint32_t chain) {
  runtime::trace_event_t x;
  x.name = name;
  x.codelet = name;
  x.worker = worker;
  x.worker_kind = "cpu";
  x.start_us = s;
  x.end_us = e;
  x.job = job;
  x.chain = chain;
  x.has_chain = true;
  return x;
}

TEST(trace_report, arithmetic_on_a_hand_made_trace) {
  runtime::trace_t t;
  t.meta["policy"] = "eager";
  t.events = {ev("spmv", 0, 0, 400000, 1, 0), ev("assemble", 1, 500000, 1000000, 1, 0), ev("spmv", 1, 0, 200000, 2, 1),
              ev("assemble", 0, 600000, 800000, 2, 1)};
  const dag::trace_summary_t s = dag::summarize_trace(t);
  EXPECT_DOUBLE_EQ(s.span_s, 1.0);
  EXPECT_EQ(s.proofs, 2u);
  EXPECT_EQ(s.jobs, 2u);
  EXPECT_EQ(s.partitions, 2u);
  EXPECT_DOUBLE_EQ(s.proofs_per_s, 2.0);
  EXPECT_DOUBLE_EQ(s.latency_max_s, 1.0);
  EXPECT_DOUBLE_EQ(s.latency_mean_s, 0.9);
  EXPECT_NEAR(s.interval_s, 0.2, 1e-12);  // ends at 0.8 and 1.0
  ASSERT_EQ(s.phases.size(), 2u);
  EXPECT_EQ(s.phases[0].phase, "spmv");  // DAG order
  EXPECT_NEAR(s.phases[0].total_s, 0.6, 1e-12);
  EXPECT_NEAR(s.phases[0].mean_ms, 300, 1e-9);
  EXPECT_NEAR(s.phases[0].max_ms, 400, 1e-9);
  ASSERT_EQ(s.workers.size(), 2u);
  EXPECT_NEAR(s.workers[0].busy_fraction, 0.6, 1e-12);
  EXPECT_NEAR(s.workers[1].busy_fraction, 0.7, 1e-12);
  EXPECT_EQ(s.policy, "eager");
  EXPECT_EQ(s.abc_moved, 0u);  // no ntt_h in this trace
}

// The interval: partitions end at 1.0, 1.5, 2.2 and 5.0 s, whatever order
// their tasks come in: gaps 0.5, 0.7 and 2.8, median 0.7 (the mean would
// be 1.33); without the last one the median of 0.5 and 0.7.
TEST(trace_report, interval_is_the_median_gap_between_partition_ends) {
  runtime::trace_t t;
  t.events = {ev("assemble", 0, 1900000, 2200000, 1, 2), ev("spmv", 0, 0, 300000, 1, 0),
              ev("assemble", 1, 900000, 1000000, 1, 0), ev("assemble", 1, 1400000, 1500000, 1, 1),
              ev("assemble", 1, 4000000, 5000000, 1, 3)};
  const dag::trace_summary_t s = dag::summarize_trace(t);
  EXPECT_EQ(s.partitions, 4u);
  EXPECT_NEAR(s.interval_s, 0.7, 1e-12);
  t.events.pop_back();
  EXPECT_NEAR(dag::summarize_trace(t).interval_s, 0.6, 1e-12);
  t.events.resize(2);  // one partition ends at 2.2, the other's only task at 0.3
  EXPECT_NEAR(dag::summarize_trace(t).interval_s, 1.9, 1e-12);
  t.events.resize(1);
  EXPECT_EQ(dag::summarize_trace(t).interval_s, 0.0);
}

// Fetch waits per phase: on worker 0, ntt_h taken at 5 starts at 10 (5 us
// idle fetching); msm_h taken at 12, while ntt_h runs until 20, starts at
// 25 (5 us idle, not 13) having found buffer 0 missing; a second msm_h
// taken at 31 starts at once; on worker 1 a task without a pop time waits
// nothing.
TEST(trace_report, fetch_waits_count_only_the_idle_time_before_a_task) {
  runtime::trace_t t;
  auto add = [&](const char* name, int worker, double popped, double s, double e, std::vector<unsigned> missing) {
    runtime::trace_event_t x = ev(name, worker, s, e, 0, 0);
    x.popped_us = popped;
    x.missing = std::move(missing);
    t.events.push_back(x);
  };
  add("msm_h", 0, 31, 31, 40, {});
  add("ntt_h", 0, 5, 10, 20, {});
  add("msm_h", 0, 12, 25, 30, {0});
  add("spmv", 1, -1, 50, 60, {1, 2});
  const dag::trace_summary_t s = dag::summarize_trace(t);
  std::map<std::string, dag::phase_stat_t> by;
  for (const dag::phase_stat_t& p : s.phases) by[p.phase] = p;
  EXPECT_NEAR(by["ntt_h"].fetch_wait_s, 5e-6, 1e-12);
  EXPECT_NEAR(by["msm_h"].fetch_wait_s, 5e-6, 1e-12);
  EXPECT_EQ(by["spmv"].fetch_wait_s, 0.0);
  EXPECT_EQ(by["ntt_h"].missing, 0u);
  EXPECT_EQ(by["msm_h"].missing, 1u);
  EXPECT_EQ(by["spmv"].missing, 1u);
  std::stringstream js;
  dag::print_trace_summary_json(s, js);
  const nlohmann::json j = nlohmann::json::parse(js.str());
  EXPECT_EQ(j["phases"][0]["phase"], "spmv");
  EXPECT_EQ(j["phases"][0]["missing"], 1);
  std::stringstream text;
  dag::print_trace_summary(s, text);
  EXPECT_NE(text.str().find("fetch_wait_s"), std::string::npos) << text.str();
}

// a, b, c moved: a partition whose ntt_h ran on another memory node than its
// spmv counts; one whose ntt_h ran where its spmv did does not.
// Three tasks: a (worker 0, 0-10 us), b after a (worker 1, ready at 10,
// started at 14, ends 30), c after a (worker 0, ready 10, runs 10-20). The
// critical path is a then b, with b's 4 us wait; worker 1 idles 0-14 (a
// was running, nothing else ready, until 10; b waited 10-14, and, once its
// worker took it at 12, fetched its data 12-14) and worker 0 idles 20-30
// with nothing ready.
TEST(trace_report, critical_path_and_idle_reasons_of_a_hand_made_trace) {
  runtime::trace_t t;
  auto add = [&](const char* name, std::uint64_t id, int worker, double ready, double s, double e,
                 std::vector<std::uint64_t> after) {
    runtime::trace_event_t x = ev(name, worker, s, e, 0, 0);
    x.id = id;
    x.ready_us = ready;
    x.submit_us = 0;
    x.after = std::move(after);
    t.events.push_back(x);
  };
  add("a", 1, 0, 0, 0, 10, {});
  add("c", 3, 0, 10, 10, 20, {1});
  add("b", 2, 1, 10, 14, 30, {1});
  const std::vector<dag::critical_step_t> path = dag::critical_path(t);
  ASSERT_EQ(path.size(), 2u);
  EXPECT_EQ(path[0].name, "a");
  EXPECT_EQ(path[1].name, "b");
  EXPECT_NEAR(path[1].wait_s, 4e-6, 1e-12);
  EXPECT_NEAR(path[1].run_s, 16e-6, 1e-12);
  const std::vector<dag::idle_stat_t> idle = dag::idle_reasons(t);
  ASSERT_EQ(idle.size(), 2u);
  EXPECT_NEAR(idle[0].idle_s, 10e-6, 1e-12);
  EXPECT_NEAR(idle[0].nothing_ready_s, 10e-6, 1e-12);
  EXPECT_NEAR(idle[1].idle_s, 14e-6, 1e-12);
  EXPECT_NEAR(idle[1].work_waiting_s, 4e-6, 1e-12);
  EXPECT_NEAR(idle[1].nothing_ready_s, 10e-6, 1e-12);
  EXPECT_EQ(idle[1].fetching_s, 0);  // no pop times
  // b taken by worker 1 at 12 and fetching its data until it started at 14.
  t.events[2].popped_us = 12;
  EXPECT_NEAR(dag::idle_reasons(t)[1].fetching_s, 2e-6, 1e-12);
  // Without ready times (an older trace): no idle reasons, the path still.
  for (auto& e : t.events) e.ready_us = -1;
  EXPECT_TRUE(dag::idle_reasons(t).empty());
  EXPECT_EQ(dag::critical_path(t).size(), 2u);
}

TEST(trace_report, counts_partitions_whose_rows_changed_memory_node) {
  runtime::trace_t t;
  auto on = [](runtime::trace_event_t e, unsigned node) {
    e.domain = node;
    e.worker_kind = node ? "cuda" : "cpu";
    return e;
  };
  t.events = {on(ev("spmv", 2, 0, 10, 1, 0), 1), on(ev("ntt_h", 3, 20, 30, 1, 0), 2),
              on(ev("spmv", 2, 0, 10, 1, 1), 1), on(ev("ntt_h", 2, 20, 30, 1, 1), 1),
              on(ev("spmv", 0, 0, 10, 1, 2), 0), on(ev("ntt_h", 3, 40, 50, 1, 2), 2)};
  const dag::trace_summary_t s = dag::summarize_trace(t);
  EXPECT_EQ(s.abc_moved, 2u);
  std::ostringstream text;
  dag::print_trace_summary(s, text);
  EXPECT_NE(text.str().find("abc_moved 2"), std::string::npos) << text.str();
}

TEST(trace_report, summary_and_plot_of_a_recorded_batch) {
  const test::prove_case_t& c = test::prove_case("gen-snarkjs");
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  runtime::trace_recorder recorder;
  recorder.set_meta("policy", session.policy_name());
  {
    auto key = test::bundle(c);
    dag::batch_t batch(dag::batch_options_t{.trace = &recorder});
    for (int j = 0; j < 2; ++j) {
      const uint32_t job = batch.open_job(key);
      for (int p = 0; p < 2; ++p) batch.submit(job, p, c.witnesses[p], "t" + std::to_string(j) + std::to_string(p));
      batch.close_job(job);
    }
    while (auto r = batch.wait_next()) ASSERT_TRUE(r->ok) << r->error;
  }
  // Through the JSON file, as the CLI reads it.
  std::stringstream file;
  runtime::write_trace_json(recorder.snapshot(), file);
  const runtime::trace_t trace = runtime::read_trace_json(file);
  const dag::trace_summary_t s = dag::summarize_trace(trace);
  EXPECT_EQ(s.proofs, 4u);
  EXPECT_EQ(s.partitions, 4u);
  EXPECT_EQ(s.jobs, 2u);
  EXPECT_EQ(s.tasks, 48u);
  EXPECT_EQ(s.policy, "starzk");
  ASSERT_EQ(s.phases.size(), 11u);
  const char* order[] = {"spmv",   "prep_msm", "ntt_h",    "msm_h",     "msm_l", "msm_a",
                         "msm_b1", "b_g2_msm", "assemble", "free_rows", "free"};
  for (size_t i = 0; i < 11; ++i) {
    EXPECT_EQ(s.phases[i].phase, order[i]);
    EXPECT_EQ(s.phases[i].tasks, std::string(order[i]) == "free_rows" ? 8u : 4u);
  }
  ASSERT_EQ(s.workers.size(), 2u);
  for (const dag::worker_stat_t& w : s.workers) {
    EXPECT_GT(w.busy_fraction, 0.0);
    EXPECT_LE(w.busy_fraction, 1.0 + 1e-9);
  }
  std::stringstream js;
  dag::print_trace_summary_json(s, js);
  const nlohmann::json j = nlohmann::json::parse(js.str());
  EXPECT_EQ(j["proofs"], 4);
  EXPECT_EQ(j["phases"].size(), 11u);
  EXPECT_EQ(j["workers"].size(), 2u);
  std::stringstream text;
  dag::print_trace_summary(s, text);
  int phase_lines = 0, worker_lines = 0;
  for (std::string line; std::getline(text, line);) {
    phase_lines += line.rfind("phase ", 0) == 0;
    worker_lines += line.rfind("worker ", 0) == 0;
  }
  EXPECT_EQ(phase_lines, 11);
  EXPECT_EQ(worker_lines, 2);

  // Dependencies and times recorded: every task submitted before it was
  // ready, ready before its worker took it, and that before it started; each partition's ntt_h came after
  // its spmv, and every assemble after that partition's four G1 MSMs; the
  // critical path ends with the last task and starts with one that waited
  // for nothing recorded.
  std::map<std::pair<uint32_t, uint32_t>, std::map<std::string, std::uint64_t>> ids;  // (job, chain) -> name -> id
  for (const runtime::trace_event_t& e : trace.events) {
    EXPECT_LE(e.submit_us, e.ready_us + 1) << e.name;
    EXPECT_LE(e.ready_us, e.start_us + 1) << e.name;
    // Taken by its worker after it was ready, its data there before it ran.
    EXPECT_GE(e.popped_us, 0) << e.name;
    EXPECT_LE(e.ready_us, e.popped_us + 1) << e.name;
    if (e.fetched_us >= 0) {
      EXPECT_LE(e.popped_us, e.fetched_us + 1) << e.name;
      EXPECT_LE(e.fetched_us, e.start_us + 1) << e.name;
    }
    ids[{e.job, e.chain}][e.name] = e.id;
  }
  for (const runtime::trace_event_t& e : trace.events) {
    const auto& mine = ids[{e.job, e.chain}];
    auto after = [&](const char* name) {
      return std::find(e.after.begin(), e.after.end(), mine.at(name)) != e.after.end();
    };
    if (e.name == "ntt_h") {
      EXPECT_TRUE(after("spmv"));
    }
    if (e.name == "assemble") {
      for (const char* m : {"msm_h", "msm_l", "msm_a", "msm_b1"}) EXPECT_TRUE(after(m)) << m;
    }
  }
  ASSERT_FALSE(s.critical.empty());
  EXPECT_NEAR(s.critical.back().start_s + s.critical.back().run_s, s.span_s, 1e-6);
  EXPECT_EQ(s.idle.size(), 2u);
  for (const dag::idle_stat_t& i : s.idle) EXPECT_NEAR(i.idle_s, i.nothing_ready_s + i.work_waiting_s, 1e-9);

  const std::string gp = dag::waterfall_gnuplot_script(trace, "out.png", "title");
  size_t bars = 0;
  std::istringstream in(gp);
  bool in_data = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "EOD") in_data = false;
    if (in_data) ++bars;
    if (line == "$tasks << EOD") in_data = true;
  }
  EXPECT_EQ(bars, 48u);
  size_t legend = 0;
  for (size_t pos = gp.find("keyentry"); pos != std::string::npos; pos = gp.find("keyentry", pos + 1)) ++legend;
  EXPECT_EQ(legend, codelets::all_codelets().size());  // one entry per codelet
  EXPECT_NE(gp.find("set output 'out.png'"), std::string::npos);
}

}  // namespace
}  // namespace starzk
