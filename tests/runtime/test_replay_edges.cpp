// test_replay_edges.cpp: replays of traces that kept no buffers, planned
// from their dependency edges, and one node's share of a run spread over
// several (runtime/replay.hpp). The plan keeps each task's predecessors
// (and refuses an edge to a later task); a replay on this machine's CPUs
// starts no task before its predecessors ended and still waits the
// recorded times; a share holds the partitions p with p mod N == rank and
// every task of no partition, minus the edges to tasks left out; an
// assumed time reaches the plan and the models.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "runtime/replay.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"
#include "cpu_session.hpp"
#include "replay_traces.hpp"

namespace {

using namespace starzk::runtime;
using starzk::test::two_chains;
using starzk::test::what_of;

trace_t without_buffers(trace_t t) {
  for (trace_event_t& e : t.events) e.buffers.clear();
  return t;
}

TEST(replay_edges, a_trace_without_buffers_is_planned_from_its_edges) {
  const trace_t t = without_buffers(two_chains());
  const replay_plan_t plan = plan_replay(t);
  EXPECT_TRUE(plan.edges_only);
  EXPECT_TRUE(plan.data.empty());
  ASSERT_EQ(plan.tasks.size(), t.events.size());
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(plan.tasks[i].buffers.empty());
    const std::vector<std::size_t> want(t.events[i].after.begin(), t.events[i].after.end());  // ids are indices
    EXPECT_EQ(plan.tasks[i].after, want);
  }
  EXPECT_EQ(plan.tasks[8].after, (std::vector<std::size_t>{2, 6}));
  EXPECT_EQ(plan.tasks[2].tag, plan_replay(two_chains()).tasks[2].tag);

  // With buffers, no edges are kept: StarPU finds them through the data.
  const replay_plan_t with = plan_replay(two_chains());
  EXPECT_FALSE(with.edges_only);
  for (const replay_task_t& task : with.tasks) EXPECT_TRUE(task.after.empty());
}

TEST(replay_edges, refuses_an_edge_to_a_task_submitted_later) {
  trace_t t = without_buffers(two_chains());
  t.events[1].after = {5};
  EXPECT_NE(what_of([&] { plan_replay(t); }).find("task 1 (ntt_h): it comes after task 5, which was not submitted"),
            std::string::npos);
  t.events[1].after = {77};
  EXPECT_NE(what_of([&] { plan_replay(t); }).find("after task 77"), std::string::npos);
}

class replay_edges_on_cpus : public ::testing::TestWithParam<const char*> {};

TEST_P(replay_edges_on_cpus, starts_no_task_before_its_predecessors_ended) {
  const trace_t t = without_buffers(two_chains());
  trace_t got;
  {
    starpu_session s(starzk::test::cpu_session(GetParam()));
    trace_recorder r;
    run_replay(plan_replay(t), {}, r);
    got = r.snapshot();
  }
  ASSERT_EQ(got.events.size(), t.events.size());
  std::map<std::uint64_t, const trace_event_t*> by_id;
  for (const trace_event_t& e : got.events) by_id[e.id] = &e;
  for (const trace_event_t& want : t.events) {
    SCOPED_TRACE(want.name + " " + std::to_string(want.id));
    const trace_event_t& e = *by_id.at(want.id);
    EXPECT_EQ(e.chain, want.chain);
    EXPECT_EQ(e.rc, want.rc);
    EXPECT_GE(e.end_us - e.start_us, want.end_us - want.start_us - 1);
    for (std::uint64_t a : want.after) EXPECT_GE(e.start_us, by_id.at(a)->end_us);
  }
}

INSTANTIATE_TEST_SUITE_P(policies, replay_edges_on_cpus, ::testing::Values("starzk", "eager", "dmdas"));

std::vector<std::uint64_t> ids(const trace_t& t) {
  std::vector<std::uint64_t> v;
  for (const trace_event_t& e : t.events) v.push_back(e.id);
  std::sort(v.begin(), v.end());
  return v;
}

TEST(rank_share, holds_its_partitions_and_the_tasks_of_none) {
  const trace_t t = two_chains();  // chain 0: tasks 0-3, chain 1: tasks 4-7, task 8 of no chain
  const trace_t r0 = rank_share(t, 0, 2), r1 = rank_share(t, 1, 2);
  EXPECT_EQ(ids(r0), (std::vector<std::uint64_t>{0, 1, 2, 3, 8}));
  EXPECT_EQ(ids(r1), (std::vector<std::uint64_t>{4, 5, 6, 7, 8}));
  EXPECT_EQ(r0.submitted, (std::vector<std::uint64_t>{0, 1, 2, 3, 8}));
  EXPECT_EQ(r0.events.back().after, (std::vector<std::uint64_t>{2}));  // the edge to chain 1's msm went
  EXPECT_EQ(r1.events.back().after, (std::vector<std::uint64_t>{6}));
  EXPECT_EQ(r0.meta, t.meta);
  EXPECT_EQ(ids(rank_share(t, 0, 1)), ids(t));

  // A share plans as a graph of its own: its data are its tasks' data.
  const replay_plan_t plan = plan_replay(r1);
  EXPECT_EQ(plan.tasks.size(), 5u);
  // key, chain 1's rows, out and scratch, total, and chain 0's out, which
  // the sum still reads (written on the other node: no edge here).
  EXPECT_EQ(plan.data.size(), 6u);

  // The same split for a trace without buffers keeps the edges of each share.
  const replay_plan_t edges = plan_replay(rank_share(without_buffers(t), 1, 2));
  EXPECT_EQ(edges.tasks.back().after, (std::vector<std::size_t>{2}));  // msm_h of chain 1, third in the share
}

TEST(rank_share, refuses_a_rank_out_of_range_or_without_a_partition) {
  const trace_t t = two_chains();
  EXPECT_THROW(rank_share(t, 2, 2), std::invalid_argument);
  EXPECT_THROW(rank_share(t, 0, 0), std::invalid_argument);
  EXPECT_NE(what_of([&] { rank_share(t, 2, 3); }).find("rank 2 of 3: no partition of the trace falls to it"),
            std::string::npos);
}

TEST(assume_time, a_codelet_timed_as_asked_on_a_kind_for_the_plan_and_the_models) {
  trace_t t = two_chains();
  for (trace_event_t& e : t.events)
    if (e.name == "msm_h") e.could_run = {"cpu", "cuda"};
  assume_time(t, "msm_h", "cuda", 500);  // CUDA: never measured; now 0.5 ms
  assume_time(t, "msm_h", "cpu", 7000);  // CPU: its tasks ran there in 4 ms; now 7 ms
  const replay_plan_t plan = plan_replay(t);
  ASSERT_EQ(plan.tasks.size(), 9u);  // the observations are no tasks
  for (const replay_task_t& task : plan.tasks) {
    SCOPED_TRACE(task.name);
    if (task.name == "msm_h") {
      EXPECT_DOUBLE_EQ(task.cuda_us, 500);
      EXPECT_DOUBLE_EQ(task.cpu_us, 7000);
    } else {
      EXPECT_LT(task.cuda_us, 0);
    }
  }
  const auto models = models_from_trace(t);
  unsigned cuda_entries = 0;
  for (const history_entry_t& h : models.at("replay_test_msm_h")) {
    EXPECT_NEAR(h.mean_us, h.arch == "cuda" ? 500 : 7000, 1e-6);
    EXPECT_GE(h.nsample, 10u);  // what StarPU wants before it trusts an entry
    cuda_entries += h.arch == "cuda";
  }
  EXPECT_EQ(cuda_entries, 2u);  // one per footprint: the two chains' msm_h differ in id, so in footprint

  // Every node's share keeps the observations (they belong to no chain).
  EXPECT_DOUBLE_EQ(plan_replay(rank_share(t, 1, 2)).tasks[2].cuda_us, 500);
}

TEST(assume_time, one_phase_of_a_shared_codelet) {
  // Chain 0's msm_h and ntt_h as two phases of one codelet (as msm_h and
  // msm_l of the msm codelet): naming the phase times its tasks alone.
  trace_t t = two_chains();
  for (trace_event_t& e : t.events) {
    if (e.name == "msm_h" || e.name == "ntt_h") e.codelet = "shared";
    if (e.name == "msm_h") e.could_run = {"cpu", "cuda"};
  }
  assume_time(t, "msm_h", "cuda", 500);
  const replay_plan_t plan = plan_replay(t);
  for (const replay_task_t& task : plan.tasks) {
    SCOPED_TRACE(task.name);
    if (task.name == "msm_h") {
      EXPECT_DOUBLE_EQ(task.cuda_us, 500);
    } else if (task.name == "ntt_h") {
      EXPECT_LT(task.cuda_us, 0);  // untouched: never on a GPU
    }
  }
  // The codelet's name still covers all its tasks that could run there.
  trace_t u = two_chains();
  for (trace_event_t& e : u.events)
    if (e.name == "msm_h" || e.name == "ntt_h") e.codelet = "shared";
  assume_time(u, "shared", "cpu", 7000);
  for (const replay_task_t& task : plan_replay(u).tasks) {
    if (task.name == "msm_h" || task.name == "ntt_h") {
      EXPECT_DOUBLE_EQ(task.cpu_us, 7000) << task.name;
    }
  }
}

TEST(assume_time, refuses_a_kind_a_time_or_a_codelet_it_cannot_use) {
  trace_t t = two_chains();
  EXPECT_THROW(assume_time(t, "msm_h", "opencl", 1), std::invalid_argument);
  EXPECT_THROW(assume_time(t, "msm_h", "cpu", -1), std::invalid_argument);
  EXPECT_THROW(assume_time(t, "msm_h", "cpu", std::numeric_limits<double>::infinity()), std::invalid_argument);
  const auto refusal = [&](const char* codelet, const char* kind) -> std::string {
    try {
      assume_time(t, codelet, kind, 1);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refusal("msm_h", "cuda").find("no task of the trace could run there"), std::string::npos);
  EXPECT_NE(refusal("nope", "cpu").find("assumed time of nope on cpu"), std::string::npos);
  EXPECT_EQ(t.events.size(), two_chains().events.size());  // nothing added by a refusal
}

}  // namespace
