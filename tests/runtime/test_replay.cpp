// test_replay.cpp: the replay of a recorded graph (runtime/replay.hpp).
// The plan from hand-made traces (replay_traces.hpp: order, data, tags,
// times per kind, the errors that refuse a trace), then replays on this machine's CPUs whose
// own recording must show the same graph: the same tasks in the same
// order, the same dependency edges (StarPU's, through the same buffers),
// tags, buffers and model footprints, and bodies that took the recorded
// time.

#include <gtest/gtest.h>

#include <starpu.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>

#include "policies/resource_class.h"
#include "runtime/replay.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"
#include "cpu_session.hpp"
#include "replay_traces.hpp"

namespace {

using namespace starzk::runtime;
using starzk::test::event;
using starzk::test::two_chains;
using starzk::test::what_of;

TEST(replay_plan, keeps_the_order_the_data_the_tags_and_the_times) {
  trace_t t = two_chains();
  std::reverse(t.events.begin(), t.events.end());  // completion order does not matter
  const replay_plan_t plan = plan_replay(t);
  ASSERT_EQ(plan.tasks.size(), 9u);
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) EXPECT_EQ(plan.tasks[i].recorded_id, i);
  ASSERT_EQ(plan.data.size(), 8u);  // key, rows/out/scratch of two chains, total
  EXPECT_EQ(plan.data[plan.tasks[2].buffers[0].data].bytes, 1u << 20);
  EXPECT_EQ(plan.data[plan.tasks[2].buffers[0].data].last_task, 8u);  // the key's last user: assemble
  EXPECT_TRUE(plan.data[plan.tasks[2].buffers[3].data].scratch_only);
  EXPECT_FALSE(plan.data[plan.tasks[0].buffers[0].data].scratch_only);
  EXPECT_EQ(plan.data[plan.tasks[0].buffers[0].data].last_task, 3u);  // chain 0's rows: its free
  starzk_task_tag tag;
  ASSERT_TRUE(starzk_tag_decode(plan.tasks[6].tag, &tag));
  EXPECT_TRUE(tag.has_chain && tag.is_last);
  EXPECT_EQ(tag.chain, 1u);
  EXPECT_EQ(tag.job, 1u);
  EXPECT_EQ(tag.class_override, STARZK_RC_GPU_CHAIN);
  ASSERT_TRUE(starzk_tag_decode(plan.tasks[8].tag, &tag));
  EXPECT_FALSE(tag.has_chain);
  EXPECT_EQ(plan.tasks[8].priority, 3);
  EXPECT_EQ(plan.tasks[8].buffers.size(), 11u);
  EXPECT_DOUBLE_EQ(plan.tasks[1].cpu_us, 3000);
  EXPECT_LT(plan.tasks[1].cuda_us, 0);  // could not run on CUDA
  EXPECT_DOUBLE_EQ(plan.tasks[5].submit_us, 5);
  EXPECT_EQ(plan.codelets.size(), 5u);  // spmv, ntt_h, msm_h, free, assemble
  EXPECT_EQ(plan.tasks[0].codelet_index, plan.tasks[4].codelet_index);
}

TEST(replay_plan, a_task_recorded_on_one_kind_takes_the_mean_of_its_codelet_and_size_on_the_other) {
  trace_t t;
  for (std::uint64_t i = 0; i < 3; ++i) {
    t.events.push_back(event(i, "msm_l", 0, i == 2 ? 9000 : 1000 + 1000.0 * double(i), {{i, 64, "RW"}}, {}));
    t.events.back().could_run = {"cpu", "cuda"};
    t.events.back().footprint = 7;
    t.submitted.push_back(i);
  }
  t.events[2].worker_kind = "cuda";  // 9 ms on CUDA; 1 and 2 ms on CPUs
  const replay_plan_t plan = plan_replay(t);
  EXPECT_DOUBLE_EQ(plan.tasks[0].cpu_us, 1000);
  EXPECT_DOUBLE_EQ(plan.tasks[0].cuda_us, 9000);
  EXPECT_DOUBLE_EQ(plan.tasks[2].cuda_us, 9000);
  EXPECT_DOUBLE_EQ(plan.tasks[2].cpu_us, 1500);
  EXPECT_EQ(plan.codelets.size(), 1u);
  EXPECT_TRUE(plan.codelets[0].cpu && plan.codelets[0].cuda);

  // A size the trace saw on CPUs only stays on CPUs, though CUDA could run it.
  t.events.push_back(event(3, "msm_l", 0, 500, {{3, 64, "RW"}}, {}));
  t.events.back().could_run = {"cpu", "cuda"};
  t.events.back().footprint = 8;
  t.submitted.push_back(3);
  const replay_plan_t more = plan_replay(t);
  EXPECT_LT(more.tasks[3].cuda_us, 0);
  EXPECT_TRUE(more.codelets[more.tasks[3].codelet_index].cpu);
  EXPECT_FALSE(more.codelets[more.tasks[3].codelet_index].cuda);
}

TEST(replay_plan, models_from_the_trace_read_back_as_starpu_files) {
  trace_t t;
  const double times[] = {1000, 3000, 500};
  for (std::uint64_t i = 0; i < 3; ++i) {
    t.events.push_back(event(i, "msm_l", 0, times[i], {{i, 64, "RW"}}, {}));
    t.events.back().footprint = 7;
  }
  t.events[2].worker_kind = "cuda";
  t.events.push_back(event(3, "free", 0, 5, {{3, 64, "RW"}}, {}));
  t.events.back().model.clear();  // no model: no entry
  const auto models = models_from_trace(t);
  ASSERT_EQ(models.size(), 1u);
  const std::vector<history_entry_t>& m = models.at("replay_test_msm_l");
  ASSERT_EQ(m.size(), 2u);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("starzk-replay-model-" + std::to_string(getpid()));
  write_history_file(file, m);
  const std::vector<history_entry_t> back = read_history_file(file);
  std::filesystem::remove(file);
  ASSERT_EQ(back.size(), 2u);
  for (const history_entry_t& e : back) {
    EXPECT_EQ(e.footprint, 7u);
    EXPECT_EQ(e.size, 64u);
    EXPECT_EQ(e.device, 0);
    if (e.arch == "cpu") {
      EXPECT_NEAR(e.mean_us, 2000, 1e-3);
      EXPECT_NEAR(e.dev_us, 1000, 1e-3);
      EXPECT_EQ(e.nsample, 2u);
    } else {
      EXPECT_EQ(e.arch, "cuda");
      EXPECT_NEAR(e.mean_us, 500, 1e-3);
      EXPECT_EQ(e.nsample, 1u);
    }
  }
  EXPECT_THROW(write_history_file(file, {history_entry_t{.arch = "opencl"}}), std::invalid_argument);
}

// The data the recorded run had on its GPU before its first task: the
// key, which both chains only read, read first (chain 0's msm_h) on the
// GPU without a fetch; a replay puts it there first. Not so when that read
// had to fetch it, or ran on a CPU, nor for the rows and outputs (written),
// the total (written by the sum), a key only one chain reads, or a trace
// that did not record fetches.
TEST(replay_plan, what_several_chains_only_read_on_the_gpu_without_a_fetch_was_there_before) {
  trace_t t = two_chains();
  for (trace_event_t& e : t.events) {
    e.worker_kind = "cuda";
    e.could_run = {"cpu", "cuda"};
    e.popped_us = e.start_us - 1;
  }
  const auto flags = [](const trace_t& tr) {
    const replay_plan_t plan = plan_replay(tr);
    const replay_task_t& msm0 = plan.tasks[2];  // R key, R rows_0, W out_0, SCRATCH
    return std::vector<bool>{plan.data[msm0.buffers[0].data].on_device, plan.data[msm0.buffers[1].data].on_device,
                             plan.data[msm0.buffers[2].data].on_device,
                             plan.data[plan.tasks[8].buffers.back().data].on_device};
  };
  EXPECT_EQ(flags(t), (std::vector<bool>{true, false, false, false}));
  trace_t fetched = t;
  fetched.events[2].missing = {0};  // chain 0's msm_h fetched the key
  EXPECT_EQ(flags(fetched)[0], false);
  trace_t on_cpu = t;
  on_cpu.events[2].worker_kind = "cpu";
  EXPECT_EQ(flags(on_cpu)[0], false);
  trace_t later = t;
  later.events[6].start_us = 1;  // chain 1's msm_h now reads the key first, with a fetch
  later.events[6].missing = {0};
  EXPECT_EQ(flags(later)[0], false);
  trace_t one_chain = t;
  for (trace_event_t& e : one_chain.events) e.chain = 0;
  EXPECT_EQ(flags(one_chain)[0], false);
  trace_t old = t;
  for (trace_event_t& e : old.events) e.popped_us = -1;
  EXPECT_EQ(flags(old)[0], false);
}

TEST(replay_plan, refuses_a_trace_it_cannot_replay_and_says_why) {
  trace_t t = two_chains();
  t.submitted.push_back(42);
  EXPECT_NE(what_of([&] { plan_replay(t); }).find("task 42 was submitted but never finished"), std::string::npos);

  t = two_chains();
  t.events[3].buffers.clear();
  EXPECT_NE(what_of([&] { plan_replay(t); }).find("task 3 (free): it has bytes but no buffers, while other tasks"),
            std::string::npos);

  t = two_chains();
  t.events[1].buffers[0].bytes = 8192;
  EXPECT_NE(what_of([&] { plan_replay(t); }).find("task 1 (ntt_h): data 1 has 8192 bytes here and 4096"),
            std::string::npos);

  t = two_chains();
  t.events[0].could_run.clear();
  t.events[0].worker_kind = "other";
  EXPECT_NE(what_of([&] { plan_replay(t); }).find("task 0 (spmv): it ran on no CPU or CUDA worker"), std::string::npos);
}

// The replay's own trace, by recorded id (replays submit in plan order,
// so the recorder's ids are the plan's indices).
std::map<std::uint64_t, trace_event_t> by_id(const trace_t& t) {
  std::map<std::uint64_t, trace_event_t> m;
  for (const trace_event_t& e : t.events) m[e.id] = e;
  return m;
}

class replay_on_cpus : public ::testing::TestWithParam<const char*> {};

TEST_P(replay_on_cpus, shows_the_same_graph_with_the_recorded_times) {
  const trace_t t = two_chains();
  const replay_plan_t plan = plan_replay(t);
  trace_t got;
  {
    starpu_session s(starzk::test::cpu_session(GetParam()));
    trace_recorder r;
    run_replay(plan, {}, r);
    got = r.snapshot();
  }
  ASSERT_EQ(got.events.size(), t.events.size());
  EXPECT_EQ(got.submitted, t.submitted);
  const auto replayed = by_id(got);
  for (const trace_event_t& want : t.events) {
    SCOPED_TRACE(want.name + " " + std::to_string(want.id));
    const trace_event_t& e = replayed.at(want.id);
    EXPECT_EQ(e.name, want.name);
    EXPECT_EQ(e.after, want.after);
    EXPECT_EQ(e.has_chain, want.has_chain);
    EXPECT_EQ(e.chain, want.chain);
    EXPECT_EQ(e.last, want.last);
    EXPECT_EQ(e.job, want.job);
    EXPECT_EQ(e.rc, want.rc);
    EXPECT_EQ(e.priority, want.priority);
    EXPECT_EQ(e.model, want.model);
    EXPECT_EQ(e.footprint, want.footprint);
    ASSERT_EQ(e.buffers.size(), want.buffers.size());
    for (std::size_t b = 0; b < e.buffers.size(); ++b) {
      EXPECT_EQ(e.buffers[b].bytes, want.buffers[b].bytes);
      EXPECT_EQ(e.buffers[b].mode, want.buffers[b].mode);
    }
    // Each body waited its recorded time (a late start aside, never less).
    EXPECT_GE(e.end_us - e.start_us, want.end_us - want.start_us - 1);
  }
}

INSTANTIATE_TEST_SUITE_P(policies, replay_on_cpus, ::testing::Values("starzk", "eager", "dmdas"));

TEST(replay, registers_buffers_over_4_gib_at_their_size_without_backing_them) {
  trace_t t;
  const std::uint64_t big = 5'000'000'001ull;  // odd: elements of 3 bytes
  t.events.push_back(event(0, "spmv", 0, 100, {{0, big, "W"}}, {}));
  t.events.push_back(event(1, "ntt_h", 100, 100, {{0, big, "R"}}, {0}));
  t.submitted = {0, 1};
  trace_t got;
  {
    starpu_session s(starzk::test::cpu_session("eager"));
    trace_recorder r;
    run_replay(plan_replay(t), {}, r);
    got = r.snapshot();
  }
  ASSERT_EQ(got.events.size(), 2u);
  for (const trace_event_t& e : got.events) EXPECT_EQ(e.buffers.at(0).bytes, big);
}

TEST(replay, recorded_submission_waits_for_each_tasks_recorded_time) {
  trace_t t;
  t.events.push_back(event(0, "spmv", 0, 100, {{0, 64, "W"}}, {}));
  t.events.push_back(event(1, "spmv", 100, 100, {{1, 64, "W"}}, {}));
  t.events[0].submit_us = 1000;
  t.events[1].submit_us = 1000 + 50'000;  // 50 ms later
  t.submitted = {0, 1};
  const replay_plan_t plan = plan_replay(t);
  for (submission_t how : {submission_t::asap, submission_t::recorded}) {
    trace_t got;
    {
      starpu_session s(starzk::test::cpu_session("eager"));
      trace_recorder r;
      run_replay(plan, replay_options_t{.submission = how, .priority = {}}, r);
      got = r.snapshot();
    }
    const auto e = by_id(got);
    const double gap_ms = (e.at(1).submit_us - e.at(0).submit_us) / 1000;
    if (how == submission_t::recorded)
      EXPECT_GE(gap_ms, 49.0);
    else
      EXPECT_LT(gap_ms, 40.0);
  }
}

TEST(replay, a_task_no_worker_here_can_run_is_a_clear_error) {
  trace_t t = two_chains();
  for (trace_event_t& e : t.events)
    if (e.name == "ntt_h") {
      e.could_run = {"cuda"};
      e.worker_kind = "cuda";
    }
  const replay_plan_t plan = plan_replay(t);
  starpu_session s(starzk::test::cpu_session("eager"));
  trace_recorder r;
  const std::string msg = what_of([&] { run_replay(plan, {}, r); });
  EXPECT_NE(msg.find("task 1 (ntt_h)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no worker of this machine can run it"), std::string::npos) << msg;
}

}  // namespace
