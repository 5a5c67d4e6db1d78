// test_policy_api.cpp: the policy library's C API (names, look-up, the
// StarPU 1.4 entry points, env validation), a plain StarPU program that
// plugs our struct into starpu_conf.sched_policy, and a scheduling context
// running our policy that gains a worker while it runs.

#include <gtest/gtest.h>

#include <starpu.h>

#include <atomic>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "policies/rules.hpp"
#include "policies/starzk_policies.h"

namespace {

TEST(policy_api, names_list_and_find_every_policy) {
  std::set<std::string> names;
  for (const char* const* n = starzk_policy_names(); *n; ++n) {
    starpu_sched_policy* p = starzk_policy_by_name(*n);
    ASSERT_NE(p, nullptr) << *n;
    EXPECT_STREQ(p->policy_name, *n);
    EXPECT_NE(p->policy_description, nullptr);
    EXPECT_NE(p->push_task, nullptr);
    EXPECT_NE(p->pop_task, nullptr);
    EXPECT_EQ(starpu_get_sched_lib_policy(*n), p);
    names.insert(*n);
  }
  for (const char* want : {"starzk", "starzk-nolock", "starzk-nomem", "starzk-prio"})
    EXPECT_EQ(names.count(want), 1u) << want;
  EXPECT_EQ(starzk_policy_by_name("eager"), nullptr);  // StarPU's, not ours
  EXPECT_EQ(starzk_policy_by_name(""), nullptr);
  EXPECT_EQ(starzk_policy_by_name(nullptr), nullptr);
  EXPECT_EQ(starpu_get_sched_lib_policy("no-such-policy"), nullptr);
}

TEST(policy_api, sched_lib_policies_is_the_same_null_terminated_list) {
  std::set<std::string> from_lib;
  for (starpu_sched_policy** p = starpu_get_sched_lib_policies(); *p; ++p) from_lib.insert((*p)->policy_name);
  std::set<std::string> from_names;
  for (const char* const* n = starzk_policy_names(); *n; ++n) from_names.insert(*n);
  EXPECT_EQ(from_lib, from_names);
}

TEST(policy_api, check_env_names_the_bad_variable) {
  char err[256] = {0};
  unsetenv("STARZK_MEM_HEAVY_MAX");
  setenv("STARZK_GPU_LOCK", "1", 1);
  EXPECT_EQ(starzk_policies_check_env(err, sizeof err), 0);
  setenv("STARZK_MEM_HEAVY_MAX", "zero", 1);
  EXPECT_EQ(starzk_policies_check_env(err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("STARZK_MEM_HEAVY_MAX"), std::string::npos) << err;
  setenv("STARZK_MEM_HEAVY_MAX", "0", 1);
  EXPECT_EQ(starzk_policies_check_env(err, sizeof err), -1);
  unsetenv("STARZK_MEM_HEAVY_MAX");
  setenv("STARZK_GPU_LOCK", "maybe", 1);
  EXPECT_EQ(starzk_policies_check_env(err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("STARZK_GPU_LOCK"), std::string::npos) << err;
  unsetenv("STARZK_GPU_LOCK");
}

std::atomic<int> g_running{0}, g_peak{0}, g_done{0};

void sleepy(void*[], void*) {
  int now = ++g_running;
  for (int seen = g_peak.load(); now > seen && !g_peak.compare_exchange_weak(seen, now);) {
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  --g_running;
  ++g_done;
}

// What docs/policies.md tells a StarPU program to do: put our struct in
// starpu_conf.sched_policy. The DEALLOC rule must hold without any starzk
// code besides the policy library.
TEST(policy_api, plain_starpu_program_with_conf_sched_policy) {
  unsetenv("STARPU_SCHED");
  setenv("STARZK_MEM_HEAVY_MAX", "3", 1);
  setenv("STARZK_GPU_RUN_AHEAD", "0", 1);
  starpu_conf conf;
  ASSERT_EQ(starpu_conf_init(&conf), 0);
  conf.sched_policy = starzk_policy_by_name("starzk");
  conf.ncpus = 3;
  conf.ncuda = 0;
  ASSERT_EQ(starpu_init(&conf), 0);
  EXPECT_STREQ(starpu_sched_ctx_get_sched_policy(0)->policy_name, "starzk");
  starzk_policy_config cfg{};
  ASSERT_EQ(starzk_policy_get_config(0, &cfg), 0);
  EXPECT_EQ(cfg.mem_heavy_max, 3);
  EXPECT_TRUE(cfg.gpu_lock && cfg.mem_interlock && cfg.serial_free);
  // An unbounded run-ahead (STARZK_GPU_RUN_AHEAD=0 here) stays unbounded.
  EXPECT_EQ(cfg.gpu_run_ahead, 0);
  EXPECT_EQ(starzk_policy_limit_gpu_run_ahead(0, 1), 0);
  ASSERT_EQ(starzk_policy_get_config(0, &cfg), 0);
  EXPECT_EQ(cfg.gpu_run_ahead, 0);
  EXPECT_GE(starzk_policies_default_mem_heavy_max(0), 1);

  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.cpu_funcs[0] = sleepy;
  cl.name = "free";
  ASSERT_EQ(starzk_codelet_set_class(&cl, STARZK_RC_DEALLOC), 0);
  g_peak = 0;
  g_done = 0;
  for (int i = 0; i < 12; ++i) ASSERT_EQ(starpu_task_insert(&cl, 0), 0);
  ASSERT_EQ(starpu_task_wait_for_all(), 0);
  starpu_shutdown();
  EXPECT_EQ(g_done.load(), 12);
  EXPECT_EQ(g_peak.load(), 1);  // serialised
  unsetenv("STARZK_GPU_RUN_AHEAD");
  unsetenv("STARZK_MEM_HEAVY_MAX");
}

// The staging rule's size: what a task reads and the node lacks. Written
// outputs (a witness map's a, b, c), SCRATCH and REDUX buffers are left
// out, as StarPU's idle prefetch leaves them; data already on the node too.
TEST(policy_api, staged_input_bytes_count_what_the_task_reads_and_the_node_lacks) {
  starpu_conf conf;
  ASSERT_EQ(starpu_conf_init(&conf), 0);
  conf.ncpus = 1;
  conf.ncuda = 0;
  ASSERT_EQ(starpu_init(&conf), 0);
  std::vector<double> home(100);
  starpu_data_handle_t read_home = nullptr, read_nowhere = nullptr, written = nullptr, scratch = nullptr,
                       reduced = nullptr;
  starpu_vector_data_register(&read_home, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(home.data()), 100,
                              sizeof(double));
  starpu_vector_data_register(&read_nowhere, -1, 0, 300, sizeof(double));
  starpu_vector_data_register(&written, -1, 0, 5000, sizeof(double));
  starpu_vector_data_register(&scratch, -1, 0, 7000, sizeof(double));
  starpu_vector_data_register(&reduced, -1, 0, 9000, sizeof(double));
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.cpu_funcs[0] = sleepy;
  cl.nbuffers = 5;
  cl.modes[0] = STARPU_R;
  cl.modes[1] = STARPU_R;
  cl.modes[2] = STARPU_W;
  cl.modes[3] = STARPU_SCRATCH;
  cl.modes[4] = STARPU_REDUX;
  starpu_task* t = starpu_task_create();
  t->cl = &cl;
  t->handles[0] = read_home;
  t->handles[1] = read_nowhere;
  t->handles[2] = written;
  t->handles[3] = scratch;
  t->handles[4] = reduced;
  EXPECT_EQ(starzk::policies::staged_input_bytes(t, STARPU_MAIN_RAM), 300 * sizeof(double));
  cl.modes[2] = STARPU_RW;  // read too: now it counts
  EXPECT_EQ(starzk::policies::staged_input_bytes(t, STARPU_MAIN_RAM), 5300 * sizeof(double));
  t->destroy = 0;
  starpu_task_destroy(t);
  for (starpu_data_handle_t h : {read_home, read_nowhere, written, scratch, reduced})
    starpu_data_unregister_no_coherency(h);
  starpu_shutdown();
}

// A context created with our policy struct over one worker, then grown to
// two while tasks run: every task finishes and the DEALLOC rule holds.
TEST(policy_api, context_with_added_workers) {
  unsetenv("STARPU_SCHED");
  starpu_conf conf;
  ASSERT_EQ(starpu_conf_init(&conf), 0);
  conf.sched_policy_name = "eager";
  conf.ncpus = 3;
  conf.ncuda = 0;
  ASSERT_EQ(starpu_init(&conf), 0);
  int workers[3];
  ASSERT_EQ(starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, workers, 3), 3);
  unsigned ctx = starpu_sched_ctx_create(workers, 1, "starzk-ctx", STARPU_SCHED_CTX_POLICY_STRUCT,
                                         starzk_policy_by_name("starzk"), 0);
  starzk_policy_config cfg{};
  EXPECT_EQ(starzk_policy_get_config(ctx, &cfg), 0);
  EXPECT_EQ(starzk_policy_get_config(0, &cfg), -1);  // the global context runs eager

  // The run-ahead bound is lowered, never raised; only an engine's context
  // takes it.
  EXPECT_EQ(cfg.gpu_run_ahead, 2);
  EXPECT_EQ(starzk_policy_limit_gpu_run_ahead(ctx, 1), 0);
  EXPECT_EQ(starzk_policy_limit_gpu_run_ahead(ctx, 3), 0);
  EXPECT_EQ(starzk_policy_get_config(ctx, &cfg), 0);
  EXPECT_EQ(cfg.gpu_run_ahead, 1);
  EXPECT_EQ(starzk_policy_limit_gpu_run_ahead(ctx, 0), -1);
  EXPECT_EQ(starzk_policy_limit_gpu_run_ahead(0, 1), -1);  // eager's context
  // Likewise the device memory a staged chain leaves free.
  EXPECT_EQ(starzk_policy_reserve_gpu_memory(ctx, size_t(1) << 30), 0);
  EXPECT_EQ(starzk_policy_reserve_gpu_memory(0, size_t(1) << 30), -1);
  EXPECT_EQ(starzk_policy_reserve_gpu_memory(STARPU_NMAX_SCHED_CTXS, 1), -1);

  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.cpu_funcs[0] = sleepy;
  cl.name = "free";
  ASSERT_EQ(starzk_codelet_set_class(&cl, STARZK_RC_DEALLOC), 0);
  g_peak = 0;
  g_done = 0;
  for (int i = 0; i < 16; ++i) {
    ASSERT_EQ(starpu_task_insert(&cl, STARPU_SCHED_CTX, ctx, 0), 0);
    if (i == 4) starpu_sched_ctx_add_workers(workers + 1, 2, ctx);
  }
  ASSERT_EQ(starpu_task_wait_for_all_in_ctx(ctx), 0);
  starpu_sched_ctx_delete(ctx);
  starpu_shutdown();
  EXPECT_EQ(g_done.load(), 16);
  EXPECT_EQ(g_peak.load(), 1);
}

}  // namespace
