// test_policy_components_tree.cpp: more of starzk's rules as StarPU
// scheduling components (policies/starzk_components.h; the composed
// policies, controls and stalls are in test_policy_components.cpp): a tree
// a researcher builds by hand, whose child refuses tasks, gets every task
// run under the gates; StarPU's placement tests honour a task's `where`,
// which the lock gate narrows; the C API reports a gated context's rules
// and refuses bad calls of starzk_component_gates_above_root.
#include <gtest/gtest.h>

#include <starpu.h>
#include <starpu_sched_component.h>
#include <starpu_scheduler.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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
using test::session_for;

// A tree built by hand, as a researcher would: the three gates above a
// FIFO that holds one task at a time (it refuses the next, push_task != 0,
// until StarPU's eager below hands its task to a worker). Every refusal
// sends a task back into a gate, which gives back only what it booked
// itself (a chain task the lock gate booked passes the gates below it
// booked), and tries again when the FIFO has room.
std::atomic<bool> g_hand_built_ok{false};

void init_hand_built(unsigned ctx) {
  starpu_sched_tree* t = starpu_sched_tree_create(ctx);
  starpu_sched_component_fifo_data one{};
  one.ntasks_threshold = 1;
  starpu_sched_component* fifo = starpu_sched_component_fifo_create(t, &one);
  starpu_sched_component* eager = starpu_sched_component_eager_create(t, nullptr);
  starpu_sched_component_connect(fifo, eager);
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
    starpu_sched_component_connect(eager, starpu_sched_component_worker_new(ctx, static_cast<int>(w)));
  t->root = fifo;
  starpu_sched_ctx_set_policy_data(ctx, t);
  starpu_sched_component* gates[] = {starzk_component_gpu_lock_create(t, nullptr),
                                     starzk_component_mem_interlock_create(t, nullptr),
                                     starzk_component_serial_free_create(t, nullptr), nullptr};
  g_hand_built_ok = starzk_component_gates_above_root(t, gates) == 0;
}

starpu_sched_policy hand_built_policy() {
  starpu_sched_policy p{};
  p.init_sched = init_hand_built;
  p.deinit_sched = starpu_sched_tree_deinitialize;
  p.add_workers = starpu_sched_tree_add_workers;
  p.remove_workers = starpu_sched_tree_remove_workers;
  p.push_task = starpu_sched_tree_push_task;
  p.pop_task = starpu_sched_tree_pop_task;
  p.pre_exec_hook = starzk_component_pre_exec_hook;
  p.post_exec_hook = starzk_component_post_exec_hook;
  p.policy_name = "test-hand-built";
  p.policy_description = "three gates over a one-task FIFO over eager";
  p.worker_type = STARPU_WORKER_LIST;
  return p;
}

TEST(components_tree, a_child_that_refuses_tasks_gets_them_again) {
  setenv("STARZK_CPU_LOCK", "1", 1);
  setenv("STARZK_MEM_HEAVY_MAX", "2", 1);
  static starpu_sched_policy policy = hand_built_policy();
  runtime::starpu_session session(session_for("eager", 3));
  int workers[3];
  ASSERT_EQ(starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, workers, 3), 3);
  unsigned ctx = starpu_sched_ctx_create(workers, 3, "hand-built", STARPU_SCHED_CTX_POLICY_STRUCT, &policy, 0);
  unsetenv("STARZK_CPU_LOCK");
  unsetenv("STARZK_MEM_HEAVY_MAX");
  ASSERT_TRUE(g_hand_built_ok);
  starzk_policy_config cfg{};
  ASSERT_EQ(starzk_policy_get_config(ctx, &cfg), 0);
  EXPECT_EQ(cfg.cpu_lock, 1);
  EXPECT_EQ(cfg.mem_heavy_max, 2);
  starpu_sched_ctx_set_context(&ctx);
  test::dag_shape_t shape;
  shape.min_us = 200;
  shape.max_us = 1500;
  const auto dag = test::make_random_dag(0x4efu, shape);
  runtime::trace_t t;
  {
    hang_guard_t guard;
    runtime::trace_recorder recorder;
    test::run_dag(dag, recorder);
    t = recorder.snapshot();
  }
  unsigned zero = 0;
  starpu_sched_ctx_set_context(&zero);
  starpu_sched_ctx_delete(ctx);
  ASSERT_EQ(t.events.size(), dag.size());
  runtime::invariant_options_t want;
  want.mem_heavy_max = 2;
  const auto violations = runtime::check_invariants(t, want);
  EXPECT_TRUE(violations.empty()) << join(violations);
}

// What decides where a chain task may run, for a failure message: each
// worker's type, memory node and whether StarPU lets it execute run_dag's
// GPU_CHAIN codelet, and the workers each component on the tree's first
// path holds in the context (the gates' able_workers read the child's).
std::string placement_report() {
  std::string out;
  starpu_task probe_task;
  starpu_task_init(&probe_task);  // never submitted
  starpu_task* probe = &probe_task;
  probe->cl = starzk::test::chain_codelet(0, true);
  char line[256];
  std::snprintf(line, sizeof line, "codelet where=0x%x\n", unsigned(probe->cl->where));
  out += line;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    unsigned nimpl = 0;
    const int can = starpu_worker_can_execute_task_first_impl(w, probe, &nimpl);
    std::snprintf(line, sizeof line, "worker %u %s node %u can_execute %d\n", w,
                  starpu_worker_get_type(int(w)) == STARPU_CUDA_WORKER ? "cuda" : "cpu",
                  starpu_worker_get_memory_node(w), can);
    out += line;
  }
  probe->cl = nullptr;
  starpu_task_clean(probe);
  starpu_sched_tree* tree = starpu_sched_tree_get(0);
  int depth = 0;
  for (starpu_sched_component* c = tree ? tree->root : nullptr; c && depth < 6; ++depth) {
    std::snprintf(line, sizeof line, "%*s%s: workers_in_ctx", depth * 2, "", c->name ? c->name : "(unnamed)");
    out += line;
    for (int w = starpu_bitmap_first(c->workers_in_ctx); w != -1; w = starpu_bitmap_next(c->workers_in_ctx, w)) {
      std::snprintf(line, sizeof line, " %d", w);
      out += line;
    }
    out += '\n';
    c = c->nchildren > 0 ? c->children[0] : nullptr;
  }
  return out;
}

// A gated context reports the rules of its gates (so the trace recorder
// keeps them), never an engine's; StarPU's own modular-heft reports none.
TEST(components_api, a_gated_context_reports_its_gates_rules) {
  setenv("STARZK_MEM_HEAVY_MAX", "3", 1);
  {
    runtime::starpu_session session(session_for("starzk-modular-heft", 3));
    starzk_policy_config cfg{};
    cfg.gpu_prefetch = cfg.gpu_run_ahead = 7;
    ASSERT_EQ(starzk_policy_get_config(0, &cfg), 0);
    EXPECT_EQ(cfg.gpu_lock, 1);
    EXPECT_EQ(cfg.cpu_lock, 0);
    EXPECT_EQ(cfg.mem_interlock, 1);
    EXPECT_EQ(cfg.mem_heavy_max, 3);
    EXPECT_EQ(cfg.serial_free, 1);
    EXPECT_EQ(cfg.gpu_prefetch, 0);  // engine-only rules are off
    EXPECT_EQ(cfg.gpu_run_ahead, 0);
    EXPECT_EQ(starzk_policy_limit_gpu_run_ahead(0, 1), -1);  // no engine to limit
    starpu_sched_tree* tree = starpu_sched_tree_get(0);
    ASSERT_NE(tree, nullptr);
    ASSERT_TRUE(starzk_component_is_gate(tree->root));
    EXPECT_STREQ(tree->root->name, "starzk_gpu_lock");
    ASSERT_EQ(tree->root->nchildren, 1u);
    EXPECT_STREQ(tree->root->children[0]->name, "starzk_mem_interlock");
    // Refusals leave the tree alone.
    starpu_sched_component* not_gates[] = {tree->root->children[0]->children[0]->children[0], nullptr};
    EXPECT_FALSE(starzk_component_is_gate(not_gates[0]));
    EXPECT_EQ(starzk_component_gates_above_root(tree, not_gates), -1);
    starpu_sched_component* none[] = {nullptr};
    EXPECT_EQ(starzk_component_gates_above_root(tree, none), -1);
    EXPECT_EQ(starzk_component_gates_above_root(nullptr, not_gates), -1);
    EXPECT_EQ(starzk_component_is_gate(nullptr), 0);
    EXPECT_TRUE(starzk_component_is_gate(tree->root));
    // The GPU test's failure report reads this tree and these workers.
    const std::string report = placement_report();
    EXPECT_NE(report.find("worker 0 cpu node 0 can_execute 1"), std::string::npos) << report;
    EXPECT_NE(report.find("starzk_gpu_lock: workers_in_ctx 0"), std::string::npos) << report;
    EXPECT_NE(report.find("  starzk_mem_interlock: workers_in_ctx 0"), std::string::npos) << report;
  }
  unsetenv("STARZK_MEM_HEAVY_MAX");
  runtime::starpu_session plain(session_for("modular-heft", 2));
  starzk_policy_config cfg{};
  EXPECT_EQ(starzk_policy_get_config(0, &cfg), -1);
}

// What the GPU lock gate's placement relies on in StarPU 1.3
// (policies/component_gpu_lock.cpp): StarPU's components ask "can this
// worker run the task" as starpu_worker_can_execute_task(...) ||
// starpu_combined_worker_can_execute_task(...). Both refuse a worker whose
// kind the task's `where` leaves out, so narrowing `where` holds; the
// worker list (workerids) is honoured by the first only, so narrowing it
// alone does not. Should a StarPU honour the list in both, the second
// expectation fails and the gate's comment is due for a change.
TEST(components_starpu, where_narrows_both_placement_tests) {
  runtime::starpu_session session(test::cpu_session("modular-heft", 2));
  int workers[2];
  ASSERT_EQ(starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, workers, 2), 2);
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.cpu_funcs[0] = +[](void*[], void*) {};
  cl.nbuffers = 0;
  starpu_task probe;  // never submitted
  starpu_task_init(&probe);
  probe.cl = &cl;
  const auto w0 = unsigned(workers[0]);
  probe.where = static_cast<std::int32_t>(STARPU_CPU);
  EXPECT_NE(starpu_worker_can_execute_task(w0, &probe, 0), 0);
  EXPECT_NE(starpu_combined_worker_can_execute_task(w0, &probe, 0), 0);
  probe.where = static_cast<std::int32_t>(STARPU_CUDA);
  EXPECT_EQ(starpu_worker_can_execute_task(w0, &probe, 0), 0);
  EXPECT_EQ(starpu_combined_worker_can_execute_task(w0, &probe, 0), 0);
  probe.where = static_cast<std::int32_t>(STARPU_CPU);
  std::uint32_t only_second = std::uint32_t{1} << workers[1];
  probe.workerids = &only_second;
  probe.workerids_len = 1;
  EXPECT_EQ(starpu_worker_can_execute_task(w0, &probe, 0), 0);
  EXPECT_NE(starpu_combined_worker_can_execute_task(w0, &probe, 0), 0)
      << "this StarPU honours workerids in both tests: the gate could narrow by the list alone";
  starpu_task_clean(&probe);
}

// On a machine with CUDA workers: the lock gate gives each chain one GPU
// and narrows its tasks to that GPU's workers, so every GPU_CHAIN task (CPU
// and CUDA implementations) runs on a CUDA worker, one chain at a time per
// device, while mct places the rest. Narrowing by starpu_task::workerids
// alone let part of the chain tasks reach CPU workers, since one of
// StarPU's two "can this worker run it" tests ignores that list; the gate
// narrows `where` as well (component_gpu_lock.cpp). The failure lists the
// tasks that ran off the GPU.
TEST(components_gpu, chains_run_on_the_gpu_one_at_a_time) {
  setenv("STARZK_MEM_HEAVY_MAX", "2", 1);
  runtime::session_options_t o = session_for("starzk-modular-heft", 4);
  o.ncuda = -1;
  runtime::starpu_session session(o);
  unsetenv("STARZK_MEM_HEAVY_MAX");
  if (session.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker";
  test::dag_shape_t shape;
  shape.jobs = 3;
  shape.partitions_per_job = 3;
  const auto dag = test::make_random_dag(0xc0dbu, shape);
  runtime::trace_recorder recorder;
  test::run_dag(dag, recorder, true);
  const runtime::trace_t t = recorder.snapshot();
  ASSERT_EQ(t.events.size(), dag.size());
  const runtime::invariant_options_t promised = runtime::promised_invariants(t);
  EXPECT_TRUE(promised.chains_contiguous);
  EXPECT_EQ(promised.mem_heavy_max, 2);
  const auto violations = runtime::check_invariants(t, promised);
  EXPECT_TRUE(violations.empty()) << join(violations);
  std::filesystem::create_directories(std::string(STARZK_BINARY_DIR) + "/traces");
  runtime::save_trace(t, std::string(STARZK_BINARY_DIR) + "/traces/gpu-starzk-modular-heft.json");
  int on_gpu = 0, elsewhere = 0;
  std::string off;  // the chain tasks off the GPU, in start order
  for (auto& e : t.events)
    if (e.rc == STARZK_RC_GPU_CHAIN) {
      if (e.worker_kind == "cuda" && e.domain != 0) {
        ++on_gpu;
        continue;
      }
      ++elsewhere;
      char line[160];
      std::snprintf(line, sizeof line, "task %llu chain %u%s worker %d (%s) domain %u start %.0f us\n",
                    static_cast<unsigned long long>(e.id), e.chain, e.last ? " last" : "", e.worker,
                    e.worker_kind.c_str(), e.domain, e.start_us);
      off += line;
    }
  EXPECT_GT(on_gpu, 0);
  EXPECT_EQ(elsewhere, 0) << "chain tasks not on a CUDA worker's domain (" << on_gpu << " on it):\n"
                          << off << "what StarPU says:\n"
                          << placement_report();
}

}  // namespace
