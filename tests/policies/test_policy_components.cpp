// test_policy_components.cpp: starzk's rules as StarPU scheduling
// components (policies/starzk_components.h). The composed policy
// starzk-modular-heft (StarPU's modular heft under the three gates) and a
// plug-in's own tree (StarPU's modular eager under the GPU lock and the
// memory interlock, policies/examples/gated_eager_plugin.c) run random
// proof-shaped DAGs on CPU workers; every task must finish, and the
// invariants the recorded trace promises (what `starzk trace check` runs)
// must hold; on a GPU machine, chains run on the GPUs, one per device.
// Controls show that the gates are what holds the invariants: the same
// eager tree without the lock gate interleaves chains, with its memory
// gate switched off (STARZK_MEM_INTERLOCK=0) breaks the cap, and without a
// free gate overlaps DEALLOC tasks. A chain without is_last is reported
// and released by the lock gate, not hung. (A tree built by hand, the
// placement StarPU's components honour and the C API are in
// test_policy_components_tree.cpp.)

#include <gtest/gtest.h>

#include <starpu.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "policies/starzk_components.h"
#include "policies/starzk_policies.h"
#include "components_test_util.hpp"
#include "random_dag.hpp"
#include "runtime/invariants.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace {

using namespace starzk;
using test::hang_guard_t;
using test::join;
using test::run;
using test::session_for;

struct composed_case_t {
  const char* name;
  int ncpu;
  bool serial;  // the tree has the serialised-free gate
};

class composed_policy : public ::testing::TestWithParam<composed_case_t> {};

TEST_P(composed_policy, runs_random_dags_with_the_promised_invariants) {
  const composed_case_t& c = GetParam();
  setenv("STARZK_MEM_HEAVY_MAX", "2", 1);
  setenv("STARZK_CHAIN_STALL_MS", "200", 1);  // a well-formed DAG must not look stalled
  test::dag_shape_t shape;
  shape.min_us = 200;
  shape.max_us = 2000;
  for (std::uint64_t seed : {0xc0de0001ull + c.ncpu, 0xba5eull ^ c.ncpu}) {
    const auto dag = test::make_random_dag(seed, shape);
    runtime::trace_t trace = run(c.name, dag, c.ncpu);
    ASSERT_EQ(trace.events.size(), dag.size());
    EXPECT_EQ(starzk_policies_error(nullptr, 0), 0);
    // Round trip through the file a researcher hands to `starzk trace check`.
    std::filesystem::create_directories(std::string(STARZK_BINARY_DIR) + "/traces");
    const std::string path =
        std::string(STARZK_BINARY_DIR) + "/traces/" + c.name + "-" + std::to_string(c.ncpu) + "cpu.json";
    runtime::save_trace(trace, path);
    const runtime::trace_t back = runtime::load_trace(path);
    // What the recorded gates promise, as `starzk trace check` reads it.
    const runtime::invariant_options_t promised = runtime::promised_invariants(back);
    EXPECT_EQ(promised.mem_heavy_max, 2);
    EXPECT_EQ(promised.serial_free, c.serial);
    EXPECT_TRUE(promised.chains_contiguous);
    EXPECT_TRUE(promised.chains_in_main_ram);
    const auto violations = runtime::check_invariants(back, promised);
    EXPECT_TRUE(violations.empty()) << c.name << " seed " << seed << ":" << join(violations);
    std::map<std::uint32_t, int> per_job_spec, per_job_done;
    for (auto& t : dag) ++per_job_spec[t.job];
    for (auto& e : back.events) ++per_job_done[e.job];
    EXPECT_EQ(per_job_spec, per_job_done);
  }
  unsetenv("STARZK_MEM_HEAVY_MAX");
  unsetenv("STARZK_CHAIN_STALL_MS");
}

INSTANTIATE_TEST_SUITE_P(components, composed_policy,
                         ::testing::Values(composed_case_t{"starzk-modular-heft", 2, true},
                                           composed_case_t{"starzk-modular-heft", 3, true},
                                           composed_case_t{"starzk-modular-heft", 4, true},
                                           composed_case_t{"example-gated-eager", 3, false}),
                         [](const ::testing::TestParamInfo<composed_case_t>& info) {
                           std::string n = info.param.name;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n + "_" + std::to_string(info.param.ncpu) + "cpu";
                         });

TEST(components_control, without_the_lock_gate_chains_interleave) {
  const runtime::trace_t open = run("example-gated-eager-nolock", test::make_parallel_chains_dag(), 3);
  EXPECT_FALSE(runtime::check_chains_contiguous(open).empty());
  EXPECT_TRUE(runtime::check_all_finished(open).empty());
  for (const char* gated : {"example-gated-eager", "starzk-modular-heft"}) {
    const runtime::trace_t t = run(gated, test::make_parallel_chains_dag(), 3);
    EXPECT_TRUE(runtime::check_chains_contiguous(t).empty()) << gated << join(runtime::check_chains_contiguous(t));
    EXPECT_TRUE(runtime::check_all_finished(t).empty()) << gated;
  }
}

std::vector<test::task_spec_t> wide(int rc, int count, int duration_us) {
  std::vector<test::task_spec_t> dag(count);
  for (auto& t : dag) {
    t.rc = rc;
    t.duration_us = duration_us;
  }
  return dag;
}

int concurrent(const runtime::trace_t& t, int rc) {
  return runtime::max_concurrent(t, [rc](const runtime::trace_event_t& e) { return e.rc == rc; });
}

TEST(components_control, the_memory_gate_keeps_the_cap_and_breaks_it_when_off) {
  setenv("STARZK_MEM_HEAVY_MAX", "1", 1);
  const runtime::trace_t kept = run("starzk-modular-heft", wide(STARZK_RC_MEMORY_HEAVY, 24, 3000), 3);
  EXPECT_EQ(concurrent(kept, STARZK_RC_MEMORY_HEAVY), 1);
  EXPECT_TRUE(runtime::check_mem_heavy_cap(kept, 1).empty());
  const runtime::trace_t kept_eager = run("example-gated-eager", wide(STARZK_RC_MEMORY_HEAVY, 24, 3000), 3);
  EXPECT_EQ(concurrent(kept_eager, STARZK_RC_MEMORY_HEAVY), 1);
  // The control: the same eager tree, its memory gate switched off (eager
  // hands a task to any idle worker, whatever the models say).
  setenv("STARZK_MEM_INTERLOCK", "0", 1);
  const runtime::trace_t open = run("example-gated-eager", wide(STARZK_RC_MEMORY_HEAVY, 24, 3000), 3);
  unsetenv("STARZK_MEM_INTERLOCK");
  unsetenv("STARZK_MEM_HEAVY_MAX");
  EXPECT_GE(concurrent(open, STARZK_RC_MEMORY_HEAVY), 2);
  EXPECT_FALSE(runtime::check_mem_heavy_cap(open, 1).empty());
  EXPECT_TRUE(runtime::check_all_finished(open).empty());
}

TEST(components_control, the_free_gate_serialises_dealloc_and_a_tree_without_it_does_not) {
  const runtime::trace_t kept = run("starzk-modular-heft", wide(STARZK_RC_DEALLOC, 18, 3000), 3);
  EXPECT_EQ(concurrent(kept, STARZK_RC_DEALLOC), 1);
  EXPECT_TRUE(runtime::check_serial_free(kept).empty()) << join(runtime::check_serial_free(kept));
  // The control: a tree without the free gate (the plug-in's eager one).
  const runtime::trace_t open = run("example-gated-eager", wide(STARZK_RC_DEALLOC, 18, 3000), 3);
  EXPECT_GE(concurrent(open, STARZK_RC_DEALLOC), 2);
  EXPECT_FALSE(runtime::check_serial_free(open).empty());
}

// Chain 1 takes the CPU lock domain first (chain 2 waits 60 ms on a light
// task), runs its two tasks and never marks one is_last; chain 2 then waits
// in the lock gate for good. With STARZK_CHAIN_STALL_MS the gate names
// chain 1, releases the domain, and the run ends.
TEST(components_stall, chain_without_is_last_is_reported_not_hung) {
  setenv("STARZK_CHAIN_STALL_MS", "200", 1);
  std::vector<test::task_spec_t> dag(5);
  dag[0] = {STARZK_RC_GPU_CHAIN, 0, 1, false, 5000, 0, {}, {}};
  dag[1] = {STARZK_RC_GPU_CHAIN, 0, 1, false, 5000, 0, {0}, {}};  // no is_last in chain 1
  dag[2] = {STARZK_RC_LIGHT, 0, -1, false, 60000, 0, {}, {}};     // holds chain 2 back
  dag[3] = {STARZK_RC_GPU_CHAIN, 0, 2, false, 5000, 0, {2}, {}};
  dag[4] = {STARZK_RC_GPU_CHAIN, 0, 2, true, 5000, 0, {3}, {}};
  runtime::trace_t t;
  {
    hang_guard_t guard;
    t = run("starzk-modular-heft", dag, 2);
  }
  unsetenv("STARZK_CHAIN_STALL_MS");
  EXPECT_EQ(t.events.size(), dag.size());
  char err[512] = {0};
  EXPECT_EQ(starzk_policies_error(err, sizeof err), -1);
  const std::string message = err;
  EXPECT_NE(message.find("chain 1 holds lock domain"), std::string::npos) << message;
  EXPECT_NE(message.find("chain 2 waits"), std::string::npos) << message;
}

// Chain 1 holds the domain while its last task waits for a 300 ms light
// task, which no gate books, and chain 2 waits in the lock gate: not a
// stall, since something runs. The watch must see the light task (the
// hooks' count); the ledger alone shows nothing running and, after 40 ms,
// would release chain 1's domain to chain 2.
TEST(components_stall, a_chain_waiting_on_running_unbooked_work_is_not_stalled) {
  setenv("STARZK_CHAIN_STALL_MS", "40", 1);
  std::vector<test::task_spec_t> dag(5);
  dag[0] = {STARZK_RC_GPU_CHAIN, 0, 1, false, 5000, 0, {}, {}};
  dag[1] = {STARZK_RC_LIGHT, 0, -1, false, 300000, 0, {}, {}};
  dag[2] = {STARZK_RC_GPU_CHAIN, 0, 1, true, 5000, 0, {0, 1}, {}};
  dag[3] = {STARZK_RC_GPU_CHAIN, 0, 2, false, 5000, 0, {}, {}};
  dag[4] = {STARZK_RC_GPU_CHAIN, 0, 2, true, 5000, 0, {3}, {}};
  runtime::trace_t t;
  {
    hang_guard_t guard;
    t = run("starzk-modular-heft", dag, 2);
  }
  unsetenv("STARZK_CHAIN_STALL_MS");
  EXPECT_EQ(t.events.size(), dag.size());
  char err[512] = {0};
  EXPECT_EQ(starzk_policies_error(err, sizeof err), 0) << err;
  EXPECT_TRUE(runtime::check_chains_contiguous(t).empty()) << join(runtime::check_chains_contiguous(t));
}

}  // namespace
