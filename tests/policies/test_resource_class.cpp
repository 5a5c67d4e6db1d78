// test_resource_class.cpp: the resource-class vocabulary without StarPU
// running: codelet classes (including many threads declaring at once), task
// tags at their edges and their lifetime, and the pure rule helpers (switch parsing, env
// overrides, L3 placement, chain keys).

#include <gtest/gtest.h>

#include <starpu.h>

#include <cerrno>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "policies/resource_class.h"
#include "policies/rules.hpp"

namespace {

using namespace starzk::policies;

TEST(resource_class, names_round_trip_and_reject_unknowns) {
  for (int i = 0; i < STARZK_RC_COUNT; ++i) {
    auto rc = static_cast<starzk_resource_class>(i);
    starzk_resource_class back;
    ASSERT_NE(starzk_resource_class_name(rc), nullptr);
    ASSERT_EQ(starzk_resource_class_from_name(starzk_resource_class_name(rc), &back), 0);
    EXPECT_EQ(back, rc);
  }
  EXPECT_EQ(starzk_resource_class_name(static_cast<starzk_resource_class>(STARZK_RC_COUNT)), nullptr);
  EXPECT_EQ(starzk_resource_class_name(static_cast<starzk_resource_class>(-1)), nullptr);
  EXPECT_EQ(starzk_resource_class_from_name("gpu", nullptr), -1);
  EXPECT_EQ(starzk_resource_class_from_name(nullptr, nullptr), -1);
}

TEST(resource_class, codelet_classes_default_replace_and_reject) {
  starpu_codelet a, b;
  starpu_codelet_init(&a);
  starpu_codelet_init(&b);
  EXPECT_EQ(starzk_codelet_get_class(&a), STARZK_RC_LIGHT);
  EXPECT_EQ(starzk_codelet_set_class(&a, STARZK_RC_MEMORY_HEAVY), 0);
  EXPECT_EQ(starzk_codelet_get_class(&a), STARZK_RC_MEMORY_HEAVY);
  EXPECT_EQ(starzk_codelet_get_class(&b), STARZK_RC_LIGHT);
  EXPECT_EQ(starzk_codelet_set_class(&a, STARZK_RC_DEALLOC), 0);
  EXPECT_EQ(starzk_codelet_get_class(&a), STARZK_RC_DEALLOC);
  EXPECT_EQ(starzk_codelet_set_class(nullptr, STARZK_RC_DEALLOC), -EINVAL);
  EXPECT_EQ(starzk_codelet_set_class(&b, static_cast<starzk_resource_class>(7)), -EINVAL);
  EXPECT_EQ(starzk_codelet_get_class(nullptr), STARZK_RC_LIGHT);
}

TEST(resource_class, many_threads_declare_at_once) {
  constexpr int n_threads = 4, per_thread = 200;
  std::vector<starpu_codelet> cls(n_threads * per_thread);
  std::vector<std::thread> threads;
  for (int t = 0; t < n_threads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        int k = t * per_thread + i;
        ASSERT_EQ(starzk_codelet_set_class(&cls[k], static_cast<starzk_resource_class>(k % STARZK_RC_COUNT)), 0);
      }
    });
  for (auto& th : threads) th.join();
  for (int k = 0; k < n_threads * per_thread; ++k)
    EXPECT_EQ(starzk_codelet_get_class(&cls[k]), k % STARZK_RC_COUNT) << k;
}

TEST(task_tag, untagged_is_job_zero_without_chain) {
  starzk_task_tag tag;
  EXPECT_EQ(starzk_tag_decode(0, &tag), 0);
  EXPECT_FALSE(tag.has_chain);
  EXPECT_EQ(tag.job, 0u);
  EXPECT_EQ(tag.class_override, STARZK_TAG_NO_CLASS);
  // A word without the marker bit is not a tag either.
  EXPECT_EQ(starzk_tag_decode(0x7fff12345678ull, &tag), 0);
}

TEST(task_tag, pack_and_unpack_at_the_edges) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    std::uint32_t job =
        trial < 2 ? (trial ? STARZK_TAG_JOB_MAX : 0) : static_cast<std::uint32_t>(rng() & STARZK_TAG_JOB_MAX);
    std::int64_t chain = trial == 3 ? 0xffffffffll : (trial == 4 ? -1 : static_cast<std::int64_t>(rng() & 0xffffffffu));
    int last = static_cast<int>(rng() & 1);
    int cls = static_cast<int>(rng() % 5) - 1;
    starzk_task_tag tag;
    ASSERT_EQ(starzk_tag_decode(starzk_tag_make(job, chain, last, cls), &tag), 1);
    EXPECT_EQ(tag.job, job);
    EXPECT_EQ(tag.has_chain, chain >= 0);
    if (chain >= 0) {
      EXPECT_EQ(tag.chain, static_cast<std::uint32_t>(chain));
      EXPECT_EQ(tag.is_last, last);
    } else
      EXPECT_EQ(tag.is_last, 0);
    EXPECT_EQ(tag.class_override, cls);
  }
  starzk_task_tag tag;
  starzk_tag_decode(starzk_tag_make(STARZK_TAG_JOB_MAX + 5u, -1, 0, STARZK_TAG_NO_CLASS), &tag);
  EXPECT_EQ(tag.job, STARZK_TAG_JOB_MAX);  // clamped, not wrapped
}

TEST(task_tag, setters_compose_and_override_the_codelet_class) {
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  starzk_codelet_set_class(&cl, STARZK_RC_MEMORY_HEAVY);
  starpu_task task;
  starpu_task_init(&task);
  task.cl = &cl;
  EXPECT_EQ(starzk_task_get_class(&task), STARZK_RC_MEMORY_HEAVY);
  starzk_task_set_job(&task, 42);
  starzk_task_set_chain(&task, 9, 1);
  starzk_task_set_chain(&task, 10, 0);  // re-tagging replaces chain and last
  starzk_task_tag tag;
  ASSERT_EQ(starzk_task_get_tag(&task, &tag), 1);
  EXPECT_EQ(tag.job, 42u);
  EXPECT_TRUE(tag.has_chain);
  EXPECT_EQ(tag.chain, 10u);
  EXPECT_FALSE(tag.is_last);
  starzk_task_set_class(&task, STARZK_RC_DEALLOC);
  EXPECT_EQ(starzk_task_get_class(&task), STARZK_RC_DEALLOC);
  starzk_task_get_tag(&task, &tag);
  EXPECT_EQ(tag.job, 42u);
  EXPECT_EQ(tag.chain, 10u);
  EXPECT_EQ(starzk_task_get_class(nullptr), STARZK_RC_LIGHT);
  // The tag is not in task->sched_data: StarPU's policies may use that.
  EXPECT_EQ(task.sched_data, nullptr);
  starzk_task_set_tag(&task, starzk_tag_make(7, 3, 1, STARZK_TAG_NO_CLASS));
  starzk_task_get_tag(&task, &tag);
  EXPECT_EQ(tag.job, 7u);
  EXPECT_TRUE(tag.is_last);
  EXPECT_EQ(starzk_task_get_class(&task), STARZK_RC_MEMORY_HEAVY);  // the codelet's again
  starzk_task_clear_tag(&task);
  EXPECT_EQ(starzk_task_get_tag(&task, &tag), 0);
  starpu_task_clean(&task);
}

// A tag lasts until its task has ended: readers that see the task finished
// still get it, and a task at the same address that has not run (a new one
// created there) reads as untagged. A regenerated task keeps its tag.
TEST(task_tag, retires_once_the_task_has_ended) {
  starpu_task task;
  starpu_task_init(&task);
  starzk_task_set_chain(&task, 4, 1);
  starzk_task_tag tag;
  task.status = STARPU_TASK_READY;
  EXPECT_EQ(starzk_task_get_tag(&task, &tag), 1);
  task.status = STARPU_TASK_FINISHED;  // post_exec_hook, then the callback
  EXPECT_EQ(starzk_task_get_tag(&task, &tag), 1);
  EXPECT_EQ(starzk_task_get_tag(&task, &tag), 1);
  EXPECT_EQ(tag.chain, 4u);
  task.status = static_cast<starpu_task_status>(STARPU_TASK_INIT);  // a new task at this address
  EXPECT_EQ(starzk_task_get_tag(&task, &tag), 0);
  task.status = STARPU_TASK_FINISHED;
  EXPECT_EQ(starzk_task_get_tag(&task, &tag), 0);  // dropped for good

  starzk_task_set_job(&task, 5);  // tagging a finished task again revives it
  task.status = STARPU_TASK_READY;
  EXPECT_EQ(starzk_task_get_tag(&task, &tag), 1);
  EXPECT_EQ(tag.job, 5u);

  task.regenerate = 1;
  task.status = STARPU_TASK_FINISHED;
  starzk_task_get_tag(&task, &tag);
  task.status = STARPU_TASK_READY;  // StarPU submitted it again
  EXPECT_EQ(starzk_task_get_tag(&task, &tag), 1);
  task.regenerate = 0;
  starzk_task_clear_tag(&task);
  starpu_task_clean(&task);
}

TEST(rules, parse_switch_accepts_the_usual_spellings_only) {
  bool v = false;
  for (const char* t : {"1", "on", "TRUE", "Yes"}) EXPECT_TRUE(parse_switch(t, &v) && v) << t;
  for (const char* f : {"0", "OFF", "false", "no"}) EXPECT_TRUE(parse_switch(f, &v) && !v) << f;
  for (const char* bad : {"", "2", "enable", "1 "}) EXPECT_FALSE(parse_switch(bad, &v)) << bad;
  EXPECT_FALSE(parse_switch(nullptr, &v));
}

TEST(rules, env_overrides_defaults_and_reports_bad_values) {
  setenv("STARZK_GPU_LOCK", "off", 1);
  setenv("STARZK_MEM_HEAVY_MAX", "5", 1);
  setenv("STARZK_CHAIN_ON_CPU", "1", 1);
  EXPECT_TRUE(rule_set_t{}.gpu_first);
  EXPECT_TRUE(rule_set_t{}.chain_locality);
  setenv("STARZK_GPU_FIRST", "no", 1);
  setenv("STARZK_CHAIN_LOCALITY", "off", 1);
  std::string err;
  rule_set_t r = apply_env(rule_set_t{}, &err);
  EXPECT_TRUE(err.empty()) << err;
  EXPECT_FALSE(r.gpu_first);
  EXPECT_FALSE(r.chain_locality);
  EXPECT_FALSE(r.gpu_lock);
  EXPECT_EQ(r.mem_heavy_max, 5);
  EXPECT_EQ(r.chain_on_cpu, 1);
  EXPECT_TRUE(r.serial_free);
  EXPECT_EQ(r.gpu_run_ahead, 2);
  setenv("STARZK_GPU_RUN_AHEAD", "0", 1);
  EXPECT_EQ(apply_env(rule_set_t{}, &err).gpu_run_ahead, 0);
  setenv("STARZK_GPU_RUN_AHEAD", "two", 1);
  r = apply_env(rule_set_t{}, &err);
  EXPECT_EQ(r.gpu_run_ahead, 2);  // default kept
  EXPECT_NE(err.find("STARZK_GPU_RUN_AHEAD='two'"), std::string::npos) << err;
  err.clear();
  setenv("STARZK_MEM_HEAVY_MAX", "-3", 1);
  r = apply_env(rule_set_t{}, &err);
  EXPECT_EQ(r.mem_heavy_max, 0);  // default kept
  EXPECT_NE(err.find("STARZK_MEM_HEAVY_MAX='-3'"), std::string::npos) << err;
  for (const char* v : {"STARZK_GPU_LOCK", "STARZK_MEM_HEAVY_MAX", "STARZK_CHAIN_ON_CPU", "STARZK_GPU_FIRST",
                        "STARZK_CHAIN_LOCALITY", "STARZK_GPU_RUN_AHEAD"})
    unsetenv(v);
}

TEST(rules, l3_spread_prefers_idle_workers_of_less_loaded_domains) {
  std::vector<int> load = {2, 0, 1};
  EXPECT_FALSE(l3_spread_allows(0, load, {1}));    // domain 1 is idle and emptier
  EXPECT_FALSE(l3_spread_allows(0, load, {2}));    // 1 < 2 as well
  EXPECT_TRUE(l3_spread_allows(1, load, {0, 2}));  // already the emptiest
  EXPECT_TRUE(l3_spread_allows(2, load, {0}));     // the idle one is busier
  EXPECT_TRUE(l3_spread_allows(0, load, {}));      // nobody else idle
  EXPECT_TRUE(l3_spread_allows(0, load, {0}));     // same domain
  EXPECT_TRUE(l3_spread_allows(-1, {}, {-1, 3}));  // no topology: no constraint
}

// The run-ahead ledger: a GPU domain admits non-chain work of at most
// `limit` chains whose chain has not started; a chain leaves the list when
// its first GPU_CHAIN task starts or its last task ends, and a late
// non-chain task of an ended chain stages nothing.
TEST(rules, run_ahead_bounds_the_chains_waiting_on_a_gpu) {
  ledger_t& L = ledger_t::instance();
  std::lock_guard<starzk::policies::sched_mutex_t> lk(L.mu);
  L.reset();
  const unsigned gpu0 = 1, gpu1 = 2;
  int tasks[16];
  int next = 0;
  auto run = [&](std::uint64_t chain, int rc, bool last, unsigned domain) {
    admitted_t a;
    a.rc = rc;
    a.chain = chain;
    a.last = last;
    a.in_chain = rc == STARZK_RC_GPU_CHAIN;
    a.run_ahead = rc != STARZK_RC_GPU_CHAIN;
    const starpu_task* t = reinterpret_cast<const starpu_task*>(&tasks[next++]);
    L.start(t, a, domain);
    return t;
  };
  EXPECT_TRUE(L.may_run_ahead(10, gpu0, 2));
  L.finish(run(10, STARZK_RC_MEMORY_HEAVY, false, gpu0));              // spmv of chain 10
  L.finish(run(11, STARZK_RC_MEMORY_HEAVY, false, gpu0));              // spmv of chain 11
  EXPECT_FALSE(L.may_run_ahead(12, gpu0, 2));                          // two chains wait on gpu0
  EXPECT_TRUE(L.may_run_ahead(12, gpu1, 2));                           // another device has room
  EXPECT_TRUE(L.may_run_ahead(11, gpu0, 2));                           // a waiting chain's other work
  EXPECT_TRUE(L.may_run_ahead(12, gpu0, 0));                           // no bound
  const starpu_task* ntt = run(10, STARZK_RC_GPU_CHAIN, false, gpu0);  // chain 10 starts
  EXPECT_TRUE(L.may_run_ahead(12, gpu0, 2));
  L.finish(run(12, STARZK_RC_MEMORY_HEAVY, false, gpu0));
  EXPECT_FALSE(L.may_run_ahead(13, gpu0, 2));
  EXPECT_TRUE(L.may_run_ahead(10, gpu0, 1));  // a started chain is never held back
  L.finish(ntt);
  L.finish(run(10, STARZK_RC_GPU_CHAIN, true, gpu0));                 // chain 10 ends
  L.finish(run(10, STARZK_RC_MEMORY_HEAVY, false, gpu0));             // its late b_g2_msm
  EXPECT_FALSE(L.may_run_ahead(13, gpu0, 2));                         // still 11 and 12 waiting, 10 not re-staged
  const starpu_task* t11 = run(11, STARZK_RC_GPU_CHAIN, true, gpu1);  // 11 runs (elsewhere)
  EXPECT_TRUE(L.may_run_ahead(13, gpu0, 2));
  L.finish(t11);
  L.reset();
}

// A chain whose GPU tasks took a GPU's lock and whose last task ran on a
// CPU worker (not counted by the lock: an MSM no GPU could hold) frees the
// GPU once that last task and its GPU tasks have ended; before the fix the
// domain stayed owned and every other chain waited on it.
TEST(rules, a_chain_ending_on_a_cpu_worker_frees_its_gpu) {
  ledger_t& L = ledger_t::instance();
  std::lock_guard<starzk::policies::sched_mutex_t> lk(L.mu);
  L.reset();
  const unsigned gpu0 = 1;
  int tasks[4];
  auto start = [&](int i, bool last, bool on_gpu) {
    admitted_t a;
    a.rc = STARZK_RC_GPU_CHAIN;
    a.chain = 20;
    a.last = last;
    a.in_chain = on_gpu;
    const starpu_task* t = reinterpret_cast<const starpu_task*>(&tasks[i]);
    L.start(t, a, on_gpu ? gpu0 : STARPU_MAIN_RAM);
    return t;
  };
  const starpu_task* ntt = start(0, false, true);
  EXPECT_TRUE(L.owner_of(gpu0, nullptr));
  const starpu_task* msm = start(1, false, false);  // an MSM on a CPU worker
  L.finish(ntt);
  L.finish(msm);
  EXPECT_TRUE(L.owner_of(gpu0, nullptr));  // the chain is not over
  const starpu_task* gpu_msm = start(2, false, true);
  const starpu_task* last = start(3, true, false);  // its last task, on a CPU worker
  L.finish(last);
  EXPECT_TRUE(L.owner_of(gpu0, nullptr));  // a GPU task of the chain still runs
  L.finish(gpu_msm);
  EXPECT_FALSE(L.owner_of(gpu0, nullptr));
  L.reset();
}

TEST(rules, chain_keys_keep_tagged_and_untagged_apart) {
  EXPECT_EQ(chain_key(true, 7), 7u);
  EXPECT_EQ(chain_key(true, 7), chain_key(true, 7));  // one partition, one chain
  EXPECT_NE(chain_key(false, 7), chain_key(true, 7));
  // Each untagged GPU_CHAIN task is a chain of its own.
  const std::uint64_t a = chain_key(false, 0), b = chain_key(false, 0);
  EXPECT_NE(a, b);
  EXPECT_EQ(a >> 63, 1u);
  EXPECT_EQ(b >> 63, 1u);
}

}  // namespace
