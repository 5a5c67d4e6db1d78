// test_invariants.cpp: the trace checks on hand-made traces, at their
// edges: touching intervals, a cap met exactly and exceeded by one, chains
// interleaved in one domain but not across domains, missing tasks.

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "policies/resource_class.h"
#include "runtime/invariants.hpp"

namespace {

using namespace starzk::runtime;

trace_event_t ev(std::uint64_t id, int rc, double start, double end, int worker = 0, unsigned domain = 0,
                 int chain = -1, const char* kind = "cpu") {
  trace_event_t e;
  e.id = id;
  e.name = std::to_string(id);
  e.name.insert(0, 1, 't');
  e.rc = rc;
  e.start_us = start;
  e.end_us = end;
  e.worker = worker;
  e.domain = domain;
  e.worker_kind = kind;
  e.has_chain = chain >= 0;
  e.chain = chain >= 0 ? static_cast<std::uint32_t>(chain) : 0;
  return e;
}

trace_t with(std::vector<trace_event_t> events) {
  trace_t t;
  for (auto& e : events) t.submitted.push_back(e.id);
  t.events = std::move(events);
  return t;
}

TEST(invariants, memory_cap_met_exactly_passes_one_more_fails) {
  trace_t t = with({ev(0, STARZK_RC_MEMORY_HEAVY, 0, 10), ev(1, STARZK_RC_MEMORY_HEAVY, 5, 15),
                    ev(2, STARZK_RC_MEMORY_HEAVY, 10, 20)});  // 2 starts exactly when 0 ends
  EXPECT_TRUE(check_mem_heavy_cap(t, 2).empty());
  auto v = check_mem_heavy_cap(t, 1);
  ASSERT_EQ(v.size(), 2u);  // two separate excursions above 1
  EXPECT_NE(v[0].find("2 tasks at once"), std::string::npos) << v[0];
  t.events.push_back(ev(3, STARZK_RC_MEMORY_HEAVY, 12, 13));
  EXPECT_FALSE(check_mem_heavy_cap(t, 2).empty());
  EXPECT_EQ(max_concurrent(t, [](const trace_event_t& e) { return e.rc == STARZK_RC_MEMORY_HEAVY; }), 3);
}

TEST(invariants, memory_cap_ignores_cuda_workers_and_other_classes) {
  trace_t t = with({ev(0, STARZK_RC_MEMORY_HEAVY, 0, 10), ev(1, STARZK_RC_MEMORY_HEAVY, 0, 10, 5, 1, -1, "cuda"),
                    ev(2, STARZK_RC_LIGHT, 0, 10), ev(3, STARZK_RC_GPU_CHAIN, 0, 10)});
  EXPECT_TRUE(check_mem_heavy_cap(t, 1).empty());
}

TEST(invariants, overlapping_frees_are_reported_touching_ones_are_not) {
  trace_t t = with({ev(0, STARZK_RC_DEALLOC, 0, 10), ev(1, STARZK_RC_DEALLOC, 10, 20)});
  EXPECT_TRUE(check_serial_free(t).empty());
  t.events.push_back(ev(2, STARZK_RC_DEALLOC, 19.5, 30, 1));
  auto v = check_serial_free(t);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("'t2'"), std::string::npos) << v[0];
}

TEST(invariants, chains_interleaved_in_one_domain_are_reported) {
  // chain 1 = [0,10) + [20,30) in domain 0; chain 2 runs at [12,18) in between.
  trace_t t = with({ev(0, STARZK_RC_GPU_CHAIN, 0, 10, 0, 0, 1), ev(1, STARZK_RC_GPU_CHAIN, 20, 30, 0, 0, 1),
                    ev(2, STARZK_RC_GPU_CHAIN, 12, 18, 1, 0, 2)});
  auto v = check_chains_contiguous(t);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("chain 2"), std::string::npos) << v[0];
  EXPECT_NE(v[0].find("chain 1"), std::string::npos) << v[0];
}

TEST(invariants, chains_in_different_domains_or_back_to_back_are_fine) {
  trace_t t = with({ev(0, STARZK_RC_GPU_CHAIN, 0, 10, 0, 0, 1), ev(1, STARZK_RC_GPU_CHAIN, 20, 30, 0, 0, 1),
                    ev(2, STARZK_RC_GPU_CHAIN, 12, 18, 3, 1, 2),  // other domain
                    ev(3, STARZK_RC_GPU_CHAIN, 30, 40, 0, 0, 3),  // starts as chain 1 ends
                    ev(4, STARZK_RC_LIGHT, 12, 18, 1, 0, 2)});    // not GPU_CHAIN
  EXPECT_TRUE(check_chains_contiguous(t).empty());
  // Parallel tasks of the same chain are one block.
  t.events.push_back(ev(5, STARZK_RC_GPU_CHAIN, 22, 28, 1, 0, 1));
  EXPECT_TRUE(check_chains_contiguous(t).empty());
  // Untagged GPU_CHAIN tasks are chains of their own.
  t.events.push_back(ev(6, STARZK_RC_GPU_CHAIN, 25, 26, 2, 0, -1));
  EXPECT_EQ(check_chains_contiguous(t).size(), 1u);
}

TEST(invariants, a_nested_chain_inside_a_long_one_is_caught) {
  // Chain 1 spans [0,100); chain 2 [10,20) and chain 3 [50,60) both intrude.
  trace_t t = with({ev(0, STARZK_RC_GPU_CHAIN, 0, 5, 0, 0, 1), ev(1, STARZK_RC_GPU_CHAIN, 95, 100, 0, 0, 1),
                    ev(2, STARZK_RC_GPU_CHAIN, 10, 20, 0, 0, 2), ev(3, STARZK_RC_GPU_CHAIN, 50, 60, 0, 0, 3)});
  EXPECT_EQ(check_chains_contiguous(t).size(), 2u);
}

TEST(invariants, missing_tasks_are_named) {
  trace_t t = with({ev(0, STARZK_RC_LIGHT, 0, 1), ev(1, STARZK_RC_LIGHT, 0, 1)});
  EXPECT_TRUE(check_all_finished(t).empty());
  t.submitted.push_back(7);
  auto v = check_all_finished(t);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("task id 7"), std::string::npos);
}

TEST(invariants, many_violations_are_summarised) {
  std::vector<trace_event_t> evs;
  for (int i = 0; i < 60; ++i)
    evs.push_back(ev(static_cast<std::uint64_t>(i), STARZK_RC_DEALLOC, i * 10.0, i * 10.0 + 15, i % 2));
  auto v = check_serial_free(with(evs));
  ASSERT_EQ(v.size(), 21u);
  EXPECT_NE(v.back().find("more"), std::string::npos);
}

TEST(invariants, sweep_matches_brute_force_on_random_traces) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<trace_event_t> evs;
    int n = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      double s = rng() % 100, d = 1 + rng() % 20;
      evs.push_back(ev(static_cast<std::uint64_t>(i), STARZK_RC_MEMORY_HEAVY, s, s + d));
    }
    int brute = 0;
    for (auto& p : evs)  // peak concurrency is reached at some start time
    {
      int k = 0;
      for (auto& q : evs) k += q.start_us <= p.start_us && p.start_us < q.end_us;
      brute = std::max(brute, k);
    }
    trace_t t = with(evs);
    EXPECT_EQ(max_concurrent(t, [](const trace_event_t&) { return true; }), brute);
    EXPECT_EQ(check_mem_heavy_cap(t, brute).empty(), true);
    EXPECT_EQ(check_mem_heavy_cap(t, brute - 1).empty(), false);
  }
}

TEST(invariants, options_select_the_checks) {
  trace_t t = with({ev(0, STARZK_RC_DEALLOC, 0, 10), ev(1, STARZK_RC_DEALLOC, 5, 15)});
  t.submitted.push_back(99);
  invariant_options_t none;
  none.serial_free = false;
  none.all_finished = false;
  EXPECT_TRUE(check_invariants(t, none).empty());
  invariant_options_t all;
  all.mem_heavy_max = 0;
  EXPECT_EQ(check_invariants(t, all).size(), 2u);
}

// What `starzk trace check` runs: the checks the recorded engine rules
// promise; chains on the CPU workers only with cpu_lock; nothing but
// completeness without recorded rules; a malformed record refused.
TEST(invariants, promised_checks_follow_the_recorded_rules) {
  // Chains 1 and 2 interleave on the CPU domain (0), not on the GPU (1).
  trace_t t =
      with({ev(0, STARZK_RC_GPU_CHAIN, 0, 10, 0, 0, 1), ev(1, STARZK_RC_GPU_CHAIN, 5, 15, 1, 0, 2),
            ev(2, STARZK_RC_GPU_CHAIN, 0, 10, 2, 1, 3, "cuda"), ev(3, STARZK_RC_GPU_CHAIN, 10, 20, 2, 1, 4, "cuda"),
            ev(4, STARZK_RC_MEMORY_HEAVY, 0, 10), ev(5, STARZK_RC_MEMORY_HEAVY, 5, 15)});
  invariant_options_t o = promised_invariants(t);
  EXPECT_EQ(describe_checks(o), "completeness");
  EXPECT_TRUE(check_invariants(t, o).empty());

  t.meta["policy_rules"] = "gpu_lock=1 cpu_lock=0 mem_interlock=1 mem_heavy_max=2 serial_free=1";
  o = promised_invariants(t);
  EXPECT_EQ(o.mem_heavy_max, 2);
  EXPECT_TRUE(o.serial_free && o.chains_contiguous && !o.chains_in_main_ram);
  EXPECT_EQ(describe_checks(o), "completeness, memory-heavy cap 2, serialised DEALLOC, contiguous chains on the GPUs");
  EXPECT_TRUE(check_invariants(t, o).empty());
  EXPECT_TRUE(check_chains_contiguous(t, false).empty());
  EXPECT_FALSE(check_chains_contiguous(t, true).empty());

  t.meta["policy_rules"] = "gpu_lock=1 cpu_lock=1 mem_interlock=1 mem_heavy_max=1 serial_free=0";
  o = promised_invariants(t);
  auto v = check_invariants(t, o);
  ASSERT_EQ(v.size(), 2u);  // the cap of 1, and chains 1 and 2 on the CPU domain
  EXPECT_NE(v[0].find("2 tasks at once"), std::string::npos) << v[0];
  EXPECT_NE(v[1].find("lock domain 0"), std::string::npos) << v[1];

  t.meta["policy_rules"] = "gpu_lock=1 mem_interlock=0 mem_heavy_max=4";
  EXPECT_EQ(promised_invariants(t).mem_heavy_max, -1);  // no interlock, no cap
  for (const char* bad : {"gpu_lock", "gpu_lock=", "=1", "gpu_lock=yes"}) {
    t.meta["policy_rules"] = bad;
    EXPECT_THROW(promised_invariants(t), std::runtime_error) << bad;
  }
}

}  // namespace
