// test_policy_contract.cpp: what docs/policies.md promises a researcher
// about the engine's contract, each case on CPU workers in well under a
// second:
//   - an untagged GPU_CHAIN task is a chain of its own (StarPU's job id is
//     0 for every job without FxT, so it cannot be the chain's key);
//   - starzk_policy_get_config answers only for contexts an engine runs;
//   - tags stay out of task->sched_data, so StarPU's modular policies that
//     read it (modular-heteroprio-heft's userchoice) run a tagged DAG;
//   - a chain without is_last that blocks another chain is reported by
//     name and released instead of hanging the program.

#include <gtest/gtest.h>

#include <starpu.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "policies/starzk_policies.h"
#include "random_dag.hpp"
#include "runtime/invariants.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace {

using namespace starzk;

bool is_chain(const runtime::trace_event_t& e) { return e.rc == STARZK_RC_GPU_CHAIN; }

// Six independent untagged GPU_CHAIN tasks on three workers with the CPU
// domain locked: each is a chain of its own, so they run one at a time.
// Keyed by StarPU's job id (0 for all of them) they were one chain and ran
// together under the lock.
TEST(policy_contract, untagged_chain_tasks_are_chains_of_their_own) {
  setenv("STARZK_CPU_LOCK", "1", 1);
  runtime::starpu_session session(test::cpu_session("starzk", 3));
  std::vector<test::task_spec_t> dag(6);
  for (auto& t : dag) {
    t.rc = STARZK_RC_GPU_CHAIN;
    t.duration_us = 3000;
  }
  runtime::trace_recorder recorder;
  test::run_dag(dag, recorder);
  unsetenv("STARZK_CPU_LOCK");
  runtime::trace_t t = recorder.snapshot();
  ASSERT_EQ(t.events.size(), dag.size());
  EXPECT_EQ(runtime::max_concurrent(t, is_chain), 1);
  EXPECT_TRUE(runtime::check_chains_contiguous(t).empty());
}

TEST(policy_contract, config_only_for_contexts_an_engine_runs) {
  starzk_policy_config cfg{};
  EXPECT_EQ(starzk_policy_get_config(0, &cfg), -1);  // StarPU not running
  runtime::starpu_session session(test::cpu_session("eager", 3));
  EXPECT_EQ(starzk_policy_get_config(0, &cfg), -1);  // eager's private data is not an engine
  for (unsigned bad : {unsigned(STARPU_NMAX_SCHED_CTXS), unsigned(STARPU_NMAX_SCHED_CTXS) + 1, UINT_MAX})
    EXPECT_EQ(starzk_policy_get_config(bad, &cfg), -1) << bad;

  int workers[3];
  ASSERT_EQ(starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, workers, 3), 3);
  unsigned lws = starpu_sched_ctx_create(workers, 1, "lws-ctx", STARPU_SCHED_CTX_POLICY_NAME, "lws", 0);
  unsigned ours = starpu_sched_ctx_create(workers + 1, 2, "starzk-ctx", STARPU_SCHED_CTX_POLICY_STRUCT,
                                          starzk_policy_by_name("starzk-nomem"), 0);
  EXPECT_EQ(starzk_policy_get_config(lws, &cfg), -1);
  ASSERT_EQ(starzk_policy_get_config(ours, &cfg), 0);
  EXPECT_EQ(cfg.mem_interlock, 0);
  EXPECT_EQ(starzk_policy_get_config(ours, nullptr), -1);
  starpu_sched_ctx_delete(ours);
  EXPECT_EQ(starzk_policy_get_config(ours, &cfg), -1);  // deleted: no engine any more
  starpu_sched_ctx_delete(lws);
}

// modular-heteroprio-heft routes each task by task->sched_data (its
// userchoice component asserts the value is a child index). With the tags
// in a side table the random proof DAG runs under it, and the trace still
// reads every task's job and chain.
TEST(policy_contract, modular_heteroprio_heft_runs_a_tagged_dag) {
  runtime::starpu_session session(test::cpu_session("modular-heteroprio-heft", 2));
  test::dag_shape_t shape;
  shape.jobs = 2;
  shape.min_us = 100;
  shape.max_us = 800;
  auto dag = test::make_random_dag(0x7a95u, shape);
  runtime::trace_recorder recorder;
  test::run_dag(dag, recorder);
  runtime::trace_t t = recorder.snapshot();
  ASSERT_EQ(t.events.size(), dag.size());
  EXPECT_TRUE(runtime::check_all_finished(t).empty());
  std::map<std::pair<std::uint32_t, int>, int> spec, seen;
  for (auto& s : dag) ++spec[{s.job, s.chain}];
  for (auto& e : t.events) ++seen[{e.job, e.has_chain ? static_cast<int>(e.chain) : -1}];
  EXPECT_EQ(spec, seen);
}

// Chain 1 takes the CPU lock domain first (chain 2 waits 60 ms on a light
// task), runs its two tasks and never marks one is_last. Chain 2 is then
// ready and kept out for good. With STARZK_CHAIN_STALL_MS the engine names
// chain 1, releases the domain, and the run ends; a guard thread turns a
// hang into a failure.
TEST(policy_contract, chain_without_is_last_is_reported_not_hung) {
  setenv("STARZK_CPU_LOCK", "1", 1);
  setenv("STARZK_CHAIN_STALL_MS", "200", 1);
  std::atomic<bool> finished{false};
  std::thread guard([&finished] {
    for (int i = 0; i < 300 && !finished; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!finished) {
      std::fprintf(stderr, "chain_without_is_last: the run hung for 30 s\n");
      std::_Exit(1);
    }
  });
  {
    runtime::starpu_session session(test::cpu_session("starzk", 2));
    starzk_policy_config cfg{};
    ASSERT_EQ(starzk_policy_get_config(0, &cfg), 0);
    EXPECT_EQ(cfg.chain_stall_ms, 200);
    std::vector<test::task_spec_t> dag(5);
    dag[0] = {STARZK_RC_GPU_CHAIN, 0, 1, false, 5000, 0, {}, {}};
    dag[1] = {STARZK_RC_GPU_CHAIN, 0, 1, false, 5000, 0, {0}, {}};  // no is_last in chain 1
    dag[2] = {STARZK_RC_LIGHT, 0, -1, false, 60000, 0, {}, {}};     // holds chain 2 back
    dag[3] = {STARZK_RC_GPU_CHAIN, 0, 2, false, 5000, 0, {2}, {}};
    dag[4] = {STARZK_RC_GPU_CHAIN, 0, 2, true, 5000, 0, {3}, {}};
    runtime::trace_recorder recorder;
    test::run_dag(dag, recorder);
    EXPECT_EQ(recorder.snapshot().events.size(), dag.size());
    char err[512] = {0};
    EXPECT_EQ(starzk_policies_error(err, sizeof err), -1);
    const std::string message = err;
    EXPECT_NE(message.find("chain 1 holds lock domain"), std::string::npos) << message;
    EXPECT_NE(message.find("is_last"), std::string::npos) << message;
    EXPECT_NE(message.find("chain 2 waits"), std::string::npos) << message;
  }
  finished = true;
  guard.join();
  unsetenv("STARZK_CPU_LOCK");
  unsetenv("STARZK_CHAIN_STALL_MS");
}

// A well-formed DAG leaves no error behind.
TEST(policy_contract, no_error_when_every_chain_ends) {
  setenv("STARZK_CPU_LOCK", "1", 1);
  setenv("STARZK_CHAIN_STALL_MS", "200", 1);
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  runtime::trace_recorder recorder;
  test::dag_shape_t shape;
  shape.jobs = 1;
  test::run_dag(test::make_random_dag(0x600du, shape), recorder);
  EXPECT_EQ(starzk_policies_error(nullptr, 0), 0);
  unsetenv("STARZK_CPU_LOCK");
  unsetenv("STARZK_CHAIN_STALL_MS");
}

}  // namespace
