// test_policies_dag.cpp: random proof-shaped DAGs under every starzk policy
// and StarPU's eager, lws, dmda, dmdas and heteroprio, on 2-4 CPU workers.
// The invariants each policy promises are checked on the recorded trace;
// every task of every job must finish under all of them. Two targeted
// graphs show the checker can fail: eager breaks the memory-heavy cap and
// starzk-nolock interleaves chains, where starzk does neither.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "policies/starzk_policies.h"
#include "random_dag.hpp"
#include "runtime/invariants.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace {

using namespace starzk;

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += "\n  " + x;
  return s;
}

struct policy_case_t {
  const char* name;
  int ncpu;
  bool cap;     // promises the MEMORY_HEAVY cap
  bool serial;  // promises serialised DEALLOC
  bool chains;  // promises contiguous chains
};

class dag_under_policy : public ::testing::TestWithParam<policy_case_t> {};

TEST_P(dag_under_policy, invariants_hold_and_every_job_finishes) {
  const policy_case_t& c = GetParam();
  setenv("STARZK_MEM_HEAVY_MAX", "2", 1);
  setenv("STARZK_CPU_LOCK", "1", 1);  // CPU-only: lock the CPU domain so the chain rule is exercised
  runtime::starpu_session session(test::cpu_session(c.name, c.ncpu));
  ASSERT_EQ(session.cpu_workers(), static_cast<unsigned>(c.ncpu));
  starzk_policy_config cfg{};
  bool ours = starzk_policy_by_name(c.name) != nullptr;
  ASSERT_EQ(starzk_policy_get_config(0, &cfg), ours ? 0 : -1);
  if (ours) {
    EXPECT_EQ(cfg.mem_heavy_max, 2);
  }

  test::dag_shape_t shape;
  shape.priorities = std::string(c.name) != "heteroprio";  // its default buckets take priority 0 only
  for (std::uint64_t seed : {0x5eed0001ull + c.ncpu, 0xfeedbeefull ^ c.ncpu}) {
    auto dag = test::make_random_dag(seed, shape);
    ASSERT_GE(dag.size(), 50u);
    runtime::trace_recorder recorder;
    recorder.set_meta("policy", c.name);
    test::run_dag(dag, recorder);
    runtime::trace_t trace = recorder.snapshot();
    ASSERT_EQ(trace.events.size(), dag.size());

    // The file round trip is what a researcher would look at in Perfetto.
    std::filesystem::create_directories(std::string(STARZK_BINARY_DIR) + "/traces");
    std::string path = std::string(STARZK_BINARY_DIR) + "/traces/" + c.name + "-" + std::to_string(c.ncpu) + "cpu.json";
    runtime::save_trace(trace, path);
    runtime::trace_t back = runtime::load_trace(path);
    ASSERT_EQ(back.events.size(), trace.events.size());

    runtime::invariant_options_t want;
    want.mem_heavy_max = c.cap ? 2 : -1;
    want.serial_free = c.serial;
    want.chains_contiguous = c.chains;
    want.all_finished = true;
    auto violations = runtime::check_invariants(back, want);
    EXPECT_TRUE(violations.empty()) << c.name << " seed " << seed << ":" << join(violations);
    // Every job finished: each job's tasks all appear in the trace.
    std::map<std::uint32_t, int> per_job_spec, per_job_done;
    for (auto& t : dag) ++per_job_spec[t.job];
    for (auto& e : back.events) ++per_job_done[e.job];
    EXPECT_EQ(per_job_spec, per_job_done);
  }
}

INSTANTIATE_TEST_SUITE_P(
    policies, dag_under_policy,
    ::testing::Values(
        policy_case_t{"starzk", 2, true, true, true}, policy_case_t{"starzk", 3, true, true, true},
        policy_case_t{"starzk", 4, true, true, true}, policy_case_t{"starzk-nolock", 3, true, true, false},
        policy_case_t{"starzk-nomem", 3, false, true, true}, policy_case_t{"starzk-prio", 2, false, false, false},
        policy_case_t{"starzk-modular-heft", 3, true, true, true}, policy_case_t{"eager", 3, false, false, false},
        policy_case_t{"lws", 3, false, false, false}, policy_case_t{"dmda", 2, false, false, false},
        policy_case_t{"dmdas", 3, false, false, false}, policy_case_t{"heteroprio", 4, false, false, false}),
    [](const ::testing::TestParamInfo<policy_case_t>& info) {
      std::string n = info.param.name;
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n + "_" + std::to_string(info.param.ncpu) + "cpu";
    });

// 24 independent 3 ms memory-heavy tasks on 3 workers, cap 1.
runtime::trace_t run_wide(const char* policy) {
  setenv("STARZK_MEM_HEAVY_MAX", "1", 1);
  runtime::starpu_session session(test::cpu_session(policy, 3));
  runtime::trace_recorder recorder;
  test::run_dag(test::make_wide_memory_dag(24, 3000), recorder);
  return recorder.snapshot();
}

TEST(memory_cap, eager_breaks_it_so_the_checker_can_fail) {
  runtime::trace_t t = run_wide("eager");
  EXPECT_FALSE(runtime::check_mem_heavy_cap(t, 1).empty());
  EXPECT_GE(runtime::max_concurrent(t, [](const runtime::trace_event_t& e) { return e.rc == STARZK_RC_MEMORY_HEAVY; }),
            2);
}

TEST(memory_cap, starzk_keeps_it) {
  runtime::trace_t t = run_wide("starzk");
  EXPECT_TRUE(runtime::check_mem_heavy_cap(t, 1).empty()) << join(runtime::check_mem_heavy_cap(t, 1));
  EXPECT_EQ(runtime::max_concurrent(t, [](const runtime::trace_event_t& e) { return e.rc == STARZK_RC_MEMORY_HEAVY; }),
            1);
  EXPECT_TRUE(runtime::check_all_finished(t).empty());
}

// 4 chains of 5 independent GPU_CHAIN tasks plus a last task depending on
// them: without the lock the workers start chain 1 while chain 0 waits for
// its last task.
runtime::trace_t run_parallel_chains(const char* policy, bool cpu_lock = true) {
  setenv("STARZK_CPU_LOCK", cpu_lock ? "1" : "0", 1);
  const std::vector<test::task_spec_t> dag = test::make_parallel_chains_dag();
  runtime::starpu_session session(test::cpu_session(policy, 3));
  runtime::trace_recorder recorder;
  test::run_dag(dag, recorder);
  unsetenv("STARZK_CPU_LOCK");
  return recorder.snapshot();
}

TEST(gpu_lock, nolock_interleaves_chains_so_the_checker_can_fail) {
  runtime::trace_t t = run_parallel_chains("starzk-nolock");
  EXPECT_FALSE(runtime::check_chains_contiguous(t).empty());
}

// By default the lock guards devices only: on CPU workers chains overlap,
// so a CPU-only machine keeps every core busy.
TEST(gpu_lock, cpu_workers_are_not_locked_by_default) {
  runtime::trace_t t = run_parallel_chains("starzk", false);
  EXPECT_FALSE(runtime::check_chains_contiguous(t).empty());
  EXPECT_TRUE(runtime::check_all_finished(t).empty());
}

TEST(gpu_lock, starzk_runs_each_chain_as_one_block) {
  runtime::trace_t t = run_parallel_chains("starzk");
  EXPECT_TRUE(runtime::check_chains_contiguous(t).empty()) << join(runtime::check_chains_contiguous(t));
  EXPECT_TRUE(runtime::check_all_finished(t).empty());
}

// One worker, busy with a blocker while tasks of jobs 5..1 arrive in
// reverse order: afterwards it must run them oldest job first, and by
// priority inside a job.
TEST(priorities, oldest_job_first_then_priority) {
  runtime::starpu_session session(test::cpu_session("starzk", 1));
  std::vector<test::task_spec_t> dag;
  test::task_spec_t blocker;
  blocker.rc = STARZK_RC_LIGHT;
  blocker.duration_us = 100000;
  dag.push_back(blocker);
  for (int job = 5; job >= 1; --job)
    for (int prio = 0; prio < 3; ++prio) {
      test::task_spec_t t;
      t.rc = (job + prio) % 2 ? STARZK_RC_MEMORY_HEAVY : STARZK_RC_LIGHT;
      t.job = static_cast<std::uint32_t>(job);
      t.priority = prio;
      t.duration_us = 200;
      dag.push_back(t);
    }
  runtime::trace_recorder recorder;
  test::run_dag(dag, recorder);
  runtime::trace_t t = recorder.snapshot();
  std::sort(t.events.begin(), t.events.end(),
            [](const runtime::trace_event_t& a, const runtime::trace_event_t& b) { return a.start_us < b.start_us; });
  ASSERT_EQ(t.events.size(), dag.size());
  EXPECT_EQ(t.events[0].id, 0u);  // the blocker
  for (std::size_t i = 2; i < t.events.size(); ++i) {
    const auto &a = t.events[i - 1], &b = t.events[i];
    EXPECT_TRUE(a.job < b.job || (a.job == b.job && a.priority >= b.priority))
        << "task " << b.id << " (job " << b.job << ", prio " << b.priority << ") ran after task " << a.id << " (job "
        << a.job << ", prio " << a.priority << ")";
  }
}

// On a machine with CUDA workers: GPU_CHAIN tasks (CPU + CUDA
// implementations) must all land on CUDA workers (GPU first, auto mode),
// one chain at a time per device, with every other rule holding.
TEST(gpu, chains_run_on_the_gpu_one_at_a_time) {
  unsetenv("STARPU_SCHED");
  setenv("STARZK_MEM_HEAVY_MAX", "2", 1);
  runtime::session_options_t o;
  o.policy = "starzk";
  o.ncpu = 4;
  o.profiling = true;
  runtime::starpu_session session(o);
  if (session.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker";
  test::dag_shape_t shape;
  shape.jobs = 3;
  shape.partitions_per_job = 3;
  auto dag = test::make_random_dag(0xc0dau, shape);
  runtime::trace_recorder recorder;
  test::run_dag(dag, recorder, true);
  runtime::trace_t t = recorder.snapshot();
  runtime::invariant_options_t want;
  want.mem_heavy_max = 2;
  auto violations = runtime::check_invariants(t, want);
  EXPECT_TRUE(violations.empty()) << join(violations);
  int on_gpu = 0;
  for (auto& e : t.events)
    if (e.rc == STARZK_RC_GPU_CHAIN) {
      EXPECT_EQ(e.worker_kind, "cuda") << e.id;
      EXPECT_NE(e.domain, 0u);
      ++on_gpu;
    }
  EXPECT_GT(on_gpu, 0);
  std::filesystem::create_directories(std::string(STARZK_BINARY_DIR) + "/traces");
  runtime::save_trace(t, std::string(STARZK_BINARY_DIR) + "/traces/gpu-starzk.json");
}

}  // namespace
