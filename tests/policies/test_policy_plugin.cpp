// test_policy_plugin.cpp: policies plugged in at run time
// (policies/starzk_plugin.h). The example plug-in of policies/examples is
// loaded by path; bad files are refused with the file named; its engine
// policy and its plain StarPU policy each run a random proof-shaped DAG on
// CPU workers with their invariants checked on the trace; the environment
// route (STARZK_POLICY_PLUGIN) is tried in a fresh process.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "policies/starzk_plugin.h"
#include "policies/starzk_policies.h"
#include "random_dag.hpp"
#include "runtime/invariants.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace {

using namespace starzk;

const char* const k_plugin = STARZK_EXAMPLE_PLUGIN;

std::string load(const std::string& path, int* rc) {
  char err[1024] = {0};
  *rc = starzk_policy_plugin_load(path.c_str(), err, sizeof err);
  return err;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += "\n  " + x;
  return s;
}

// The plug-in named in STARZK_POLICY_PLUGIN is found by name, and a bad
// path there is reported naming the variable and the file. Each case runs
// in a fresh process (threadsafe death tests re-execute the binary), where
// nothing was loaded before.
TEST(policy_plugin, environment_route) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("STARZK_POLICY_PLUGIN", (std::string("/nonexistent/a.so:") + k_plugin).c_str(), 1);
        std::_Exit(starzk_policy_by_name("example-one-heavy") == nullptr ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "STARZK_POLICY_PLUGIN: /nonexistent/a.so: cannot load policy plug-in");
  EXPECT_EXIT(
      {
        setenv("STARZK_POLICY_PLUGIN", k_plugin, 1);
        const bool found = starzk_policy_by_name("example-one-heavy") && starzk_policy_by_name("mini-serial-free");
        std::_Exit(found && starzk_policy_plugins_load_env(nullptr, 0) == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(policy_plugin, bad_files_are_refused_by_name) {
  int rc = 0;
  std::string err = load("/nonexistent/plugin.so", &rc);
  EXPECT_EQ(rc, -1);
  EXPECT_NE(err.find("/nonexistent/plugin.so: cannot load policy plug-in"), std::string::npos) << err;
  err = load(STARZK_POLICIES_LIBRARY, &rc);  // a shared object, but no STARZK_PLUGIN in it
  EXPECT_EQ(rc, -1);
  EXPECT_NE(err.find("not a starzk policy plug-in"), std::string::npos) << err;
  err = load("", &rc);
  EXPECT_EQ(rc, -1);
  EXPECT_EQ(starzk_policy_by_name("mini-serial-free"), nullptr);
}

TEST(policy_plugin, loads_once_and_its_policies_are_found_by_name) {
  int rc = -1;
  std::string err = load(k_plugin, &rc);
  ASSERT_EQ(rc, 0) << err;
  EXPECT_EQ(load(k_plugin, &rc), "");  // a second load is a no-op
  EXPECT_EQ(rc, 0);
  starpu_sched_policy* heavy = starzk_policy_by_name("example-one-heavy");
  starpu_sched_policy* mini = starzk_policy_by_name("mini-serial-free");
  ASSERT_NE(heavy, nullptr);
  ASSERT_NE(mini, nullptr);
  std::set<std::string> names;
  for (const char* const* n = starzk_policy_names(); *n; ++n) names.insert(*n);
  for (const char* want : {"starzk", "starzk-prio", "example-one-heavy", "mini-serial-free"})
    EXPECT_EQ(names.count(want), 1u) << want;
  auto session_names = runtime::starpu_session::policy_names();
  EXPECT_NE(std::find(session_names.begin(), session_names.end(), "mini-serial-free"), session_names.end());

  // Names are taken once: ours, StarPU's, a plug-in's.
  starzk_policy_config rules;
  starzk_policy_rules_default(&rules);
  EXPECT_EQ(starzk_engine_policy_define("starzk", "x", &rules), nullptr);
  EXPECT_EQ(starzk_engine_policy_define("eager", "x", &rules), nullptr);
  EXPECT_EQ(starzk_engine_policy_define("mini-serial-free", "x", &rules), nullptr);
  EXPECT_EQ(starzk_engine_policy_define("", "x", &rules), nullptr);
  EXPECT_EQ(starzk_engine_policy_define("x", "x", nullptr), nullptr);
}

runtime::trace_t run_random_dag(const std::string& policy, starzk_policy_config* cfg, int* cfg_rc) {
  unsetenv("STARZK_MEM_HEAVY_MAX");  // the plug-in's rules decide the cap
  setenv("STARZK_CPU_LOCK", "1", 1);
  runtime::session_options_t o = test::cpu_session(policy, 3);
  o.policy_plugin = k_plugin;
  runtime::starpu_session session(o);
  *cfg_rc = starzk_policy_get_config(0, cfg);
  runtime::trace_recorder recorder;
  test::dag_shape_t shape;
  shape.min_us = 200;
  shape.max_us = 1500;
  auto dag = test::make_random_dag(0x916u, shape);
  test::run_dag(dag, recorder);
  unsetenv("STARZK_CPU_LOCK");
  runtime::trace_t t = recorder.snapshot();
  EXPECT_EQ(t.events.size(), dag.size());
  return t;
}

// The engine policy the plug-in defined: starzk's rules with a cap of one
// MEMORY_HEAVY task, which the trace must show.
TEST(policy_plugin, engine_policy_runs_a_dag_under_its_own_rules) {
  starzk_policy_config cfg{};
  int rc = -1;
  runtime::trace_t t = run_random_dag("example-one-heavy", &cfg, &rc);
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(cfg.mem_heavy_max, 1);
  EXPECT_EQ(cfg.gpu_run_ahead, 1);
  EXPECT_EQ(cfg.gpu_lock, 1);
  EXPECT_EQ(cfg.cpu_lock, 1);  // the environment still overrides
  // The recorder kept the rules, so `starzk trace check` knows the cap.
  EXPECT_NE(t.meta["policy_rules"].find("mem_heavy_max=1"), std::string::npos) << t.meta["policy_rules"];
  EXPECT_EQ(runtime::promised_invariants(t).mem_heavy_max, 1);
  runtime::invariant_options_t want;
  want.mem_heavy_max = 1;
  auto violations = runtime::check_invariants(t, want);
  EXPECT_TRUE(violations.empty()) << join(violations);
}

// The plain StarPU policy: no engine (no config), one DEALLOC at a time.
TEST(policy_plugin, plain_policy_runs_a_dag) {
  starzk_policy_config cfg{};
  int rc = 0;
  runtime::trace_t t = run_random_dag("mini-serial-free", &cfg, &rc);
  EXPECT_EQ(rc, -1);
  EXPECT_EQ(t.meta.count("policy_rules"), 0u);  // no engine, no recorded rules
  EXPECT_TRUE(runtime::check_serial_free(t).empty()) << join(runtime::check_serial_free(t));
  EXPECT_TRUE(runtime::check_all_finished(t).empty());
}

}  // namespace
