// The host-memory budget: parsing, blocking reservations, and a batch whose
// partitions would together exceed the cap. That batch must throttle (wait
// for partitions to finish before submitting more), never hold more than
// the cap (the budget's peak counter, and the bytes each partition holds
// rebuilt from the trace), and still prove everything.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include "codelets/codelets.hpp"
#include "dag/batch.hpp"
#include "dag/memory_budget.hpp"
#include "dag_test_util.hpp"
#include "groth16/verifier.hpp"
#include "msm/prep_msm.hpp"
#include "runtime/invariants.hpp"
#include "runtime/trace.hpp"

namespace starzk {
namespace {

TEST(memory_budget, parses_sizes_and_refuses_nonsense) {
  EXPECT_EQ(dag::parse_memory_budget("123456"), 123456u);
  EXPECT_EQ(dag::parse_memory_budget("512M"), 512ull << 20);
  EXPECT_EQ(dag::parse_memory_budget("1.5G"), 3ull << 29);
  EXPECT_EQ(dag::parse_memory_budget("2GiB"), 2ull << 30);
  EXPECT_EQ(dag::parse_memory_budget("64k"), 64ull << 10);
  EXPECT_EQ(dag::parse_memory_budget("none"), 0u);
  EXPECT_GT(dag::parse_memory_budget("auto"), 0u);
  EXPECT_LT(dag::parse_memory_budget("auto"), dag::mem_available_bytes());
  for (const char* bad : {"", "G", "-1G", "12X", "1e30", "lots"})
    EXPECT_THROW(dag::parse_memory_budget(bad), std::runtime_error) << bad;
}

TEST(memory_budget, a_new_cap_wakes_waiters_and_revokes_nothing) {
  dag::memory_budget_t b(100);
  b.reserve(80);
  std::atomic<bool> got{false};
  std::thread t([&] {
    b.reserve(40);  // 120 > 100: waits
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(got.load());
  b.set_cap(200);  // room now: the waiter gets in
  t.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(b.cap(), 200u);
  b.set_cap(50);  // below what is held: nothing is taken back, nothing more fits
  EXPECT_EQ(b.in_use(), 120u);
  EXPECT_FALSE(b.try_reserve(1));
  b.release(120);
  EXPECT_TRUE(b.try_reserve(50));
  EXPECT_FALSE(b.try_reserve(1));
}

// A blocked reservation is listed while it waits, and the grant that adds
// its bytes to in_use() takes it off the list in the same step: asked at
// any moment, "could every waiter be granted once N come back" never counts
// a granted waiter twice. on_wait runs once, before the reservation blocks.
TEST(memory_budget, a_waiting_reservation_is_listed_until_it_is_granted) {
  dag::memory_budget_t b(100);
  auto back = [](uint64_t n) { return [n] { return n; }; };
  EXPECT_TRUE(b.waiting_fit_once_returned(back(0)));  // nobody waits
  b.reserve(80);
  std::atomic<int> told{0};
  std::atomic<bool> got{false};
  std::thread t([&] {
    b.reserve(40, 0, [&] { ++told; });  // 120 > 100: waits
    got = true;
  });
  while (told.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(got.load());
  EXPECT_FALSE(b.waiting_fit_once_returned(back(19)));  // 61 + 40 > 100
  EXPECT_TRUE(b.waiting_fit_once_returned(back(20)));   // 60 + 40
  b.release(30);                                        // 50 + 40: granted
  t.join();
  EXPECT_EQ(told.load(), 1);
  EXPECT_EQ(b.in_use(), 90u);
  EXPECT_TRUE(b.waiting_fit_once_returned(back(0)));  // no one waits: the grant is not counted again
  b.reserve(10, 0, [&] { ++told; });                  // fits: never told
  EXPECT_EQ(told.load(), 1);
  b.release(100);
}

TEST(memory_budget, reserve_blocks_until_release) {
  dag::memory_budget_t b(100);
  b.reserve(60);
  EXPECT_FALSE(b.try_reserve(50));
  EXPECT_TRUE(b.try_reserve(40));
  std::atomic<bool> got{false};
  std::thread t([&] {
    b.reserve(30);
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(got.load());
  b.release(60);
  t.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(b.in_use(), 70u);
  EXPECT_EQ(b.peak(), 100u);
  EXPECT_EQ(b.waits(), 1u);
  // Larger than the cap: admitted alone.
  dag::memory_budget_t small(10);
  small.reserve(50);
  EXPECT_EQ(small.in_use(), 50u);
  EXPECT_FALSE(small.try_reserve(1));
}

// A caller that holds part of its reservation asks for the rest: it gets
// it when it fits, or when nothing but its own part is reserved.
TEST(memory_budget, the_rest_of_a_reservation_is_admitted_alone) {
  dag::memory_budget_t b(100);
  b.reserve(30);  // another partition
  b.reserve(40);  // this one's witness share
  std::atomic<bool> got{false};
  std::thread t([&] {
    b.reserve(90, 40);  // its rows: over the cap beside its own 40
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(got.load());
  b.release(30);  // only its own share is left
  t.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(b.in_use(), 130u);
  b.release(130);
  b.reserve(20);
  b.reserve(60, 10);  // fits: admitted whatever it holds
  EXPECT_EQ(b.in_use(), 80u);
}

// What a partition reserves: the key's partition bytes with a prep_msm
// task; without one (the MSM bodies split w themselves) its result is
// left out. The log line of `prove --manifest` prints this figure.
TEST(memory_budget, reservation_leaves_out_the_prep_result_without_a_prep_task) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  runtime::starpu_session session(test::cpu_session("dmdas", 2));
  auto key = test::bundle(c);
  dag::batch_options_t with, without;
  with.prep_task = 1;
  without.prep_task = 0;
  EXPECT_EQ(dag::batch_t(with).reservation(*key), key->partition_bytes());
  const uint64_t prep = codelets::prep_msm_max_bytes(c.pk->n_vars, c.pk->n_public);
  ASSERT_GT(prep, 0u);
  EXPECT_EQ(dag::batch_t(without).reservation(*key), key->partition_bytes() - prep);
}

TEST(memory_budget, batch_over_the_cap_throttles_and_completes) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  runtime::starpu_session session(test::cpu_session("dmdas", 3));
  runtime::trace_recorder recorder;
  auto key = test::bundle(c);
  const uint64_t per = key->partition_bytes();
  const uint64_t cap = per * 5 / 2;  // room for 2 partitions, not 3
  constexpr int k_parts = 8;
  int ok = 0;
  uint64_t peak = 0, waits = 0;
  std::map<uint32_t, uint32_t> chain_index;  // chain id -> partition index
  {
    dag::batch_t batch(dag::batch_options_t{.mem_budget = cap, .trace = &recorder});
    const uint32_t job = batch.open_job(key, "big");
    for (int p = 0; p < k_parts; ++p) {
      batch.submit(job, p, c.witnesses[p % 4], "big/" + std::to_string(p));
      EXPECT_LE(batch.budget().in_use(), cap);
      EXPECT_LE(batch.in_flight(), 8u);
    }
    batch.close_job(job);
    while (auto r = batch.wait_next()) {
      ASSERT_TRUE(r->ok) << r->error;
      EXPECT_TRUE(verify(c.pk->vk, r->publics, r->proof));
      chain_index[r->chain] = r->index;
      ++ok;
    }
    peak = batch.budget().peak();
    waits = batch.budget().waits();
    EXPECT_EQ(batch.budget().in_use(), 0u);
  }
  EXPECT_EQ(ok, k_parts);
  EXPECT_LE(peak, cap);
  EXPECT_GE(peak, per);
  EXPECT_GT(waits, 0u) << "the batch never had to wait: the test does not exercise the cap";
  // From the trace: each partition holds its full reservation from its
  // first task's start to its prep_msm's end, then its reservation less the
  // prep bytes its tails left unused, until its free ends. The sum over
  // partitions must stay under the cap at every instant.
  // The rows a, b, c (in host memory without GPUs) go earlier, at the end
  // of their free_rows tasks, whose buffers are the rows they release.
  struct life_t {
    double first = 1e300, prep_end = 0, last = 0;
    std::vector<std::pair<double, uint64_t>> rows_freed;
  };
  std::map<uint32_t, life_t> life;
  for (const runtime::trace_event_t& e : recorder.snapshot().events) {
    life_t& l = life[e.chain];
    l.first = std::min(l.first, e.start_us);
    l.last = std::max(l.last, e.end_us);
    if (e.name == "prep_msm") l.prep_end = e.end_us;
    if (e.name == "free_rows")  // the bytes of its buffers are the rows' handles; the budget counts pool buffers
      l.rows_freed.push_back(
          {e.end_us, e.bytes / (sizeof(fr_t) * c.pk->domain_size) * (key->host_row_bytes() / key->host_rows())});
  }
  ASSERT_EQ(life.size(), size_t(k_parts));
  const proving_key_t& pk = *c.pk;
  const uint64_t prep_max = codelets::prep_msm_max_bytes(pk.n_vars, pk.n_public);
  std::vector<std::pair<double, int64_t>> steps;  // (time, +/- bytes)
  for (auto& [chain, l] : life) {
    const std::vector<fr_t>& w = c.witnesses[chain_index.at(chain) % 4];
    const uint64_t used = codelets::prep_msm_bytes(prep_msm(w, pk.n_public + 1, 1)) +
                          codelets::prep_msm_bytes(prep_msm(std::span<const fr_t>(w).subspan(pk.n_public + 1), 0, 1));
    ASSERT_GT(l.prep_end, 0.0);
    ASSERT_EQ(l.rows_freed.size(), 2u);
    uint64_t rows = 0;
    steps.push_back({l.first, int64_t(per)});
    steps.push_back({l.prep_end, -int64_t(prep_max - used)});
    for (auto [t, bytes] : l.rows_freed) {
      steps.push_back({t, -int64_t(bytes)});
      rows += bytes;
    }
    EXPECT_EQ(rows, key->host_row_bytes());
    steps.push_back({l.last, -int64_t(per - (prep_max - used) - rows)});
  }
  std::sort(steps.begin(), steps.end());  // at equal times, releases (negative) first
  int64_t held = 0, most = 0;
  for (auto& [t, d] : steps) {
    held += d;
    most = std::max(most, held);
  }
  EXPECT_EQ(held, 0);
  EXPECT_LE(uint64_t(most), cap);
  EXPECT_GT(uint64_t(most), per);  // more than one partition was in flight
}

// Under a cap of one partition and one witness share (2·per − rows), the
// next partition reserves its witness share and loads it while the one
// before holds its rows, and its rows once those are freed; the cap holds.
// Under a cap below one partition they run one at a time, loaders or not.
TEST(memory_budget, a_witness_is_loaded_while_the_partition_before_holds_its_rows) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  auto key = test::bundle(c);
  const uint64_t rows = key->host_row_bytes();
  ASSERT_GT(rows, 0u);  // no GPU: the rows live in host memory
  for (unsigned loaders : {0u, 2u}) {
    const uint64_t per = dag::batch_t().reservation(*key);
    ASSERT_GT(per, rows);
    for (const uint64_t cap : {2 * per - rows, per / 2}) {
      SCOPED_TRACE("loaders " + std::to_string(loaders) + ", cap " + std::to_string(cap));
      uint64_t staged = 0, peak = 0;
      int ok = 0;
      {
        dag::batch_t batch(dag::batch_options_t{.mem_budget = cap, .loaders = loaders});
        ASSERT_EQ(batch.reservation(*key), per);
        const uint32_t job = batch.open_job(key, "staged");
        for (int p = 0; p < 6; ++p) batch.submit(job, p, c.witnesses[p % 4], "staged/" + std::to_string(p));
        batch.close_job(job);
        while (auto r = batch.wait_next()) {
          ASSERT_TRUE(r->ok) << r->error;
          EXPECT_TRUE(verify(c.pk->vk, r->publics, r->proof));
          ++ok;
        }
        staged = batch.staged();
        peak = batch.budget().peak();
        // A pool buffer is made only when none is idle, so the buffers made
        // were all held at once: no more than the budget counts (each at
        // pool_values), or one partition's four when it runs alone.
        const uint64_t buffer = sizeof(fr_t) * key->pool_values();
        EXPECT_LE(batch.witness_pool().created(), std::max<uint64_t>(4, cap / buffer));
        EXPECT_EQ(batch.budget().in_use(), 0u);
      }
      EXPECT_EQ(ok, 6);
      if (cap < per) {
        EXPECT_EQ(peak, per);  // alone, each over the cap
        continue;
      }
      EXPECT_LE(peak, cap);
      EXPECT_GE(staged, 1u) << "no partition loaded its witness before its rows fit";
    }
  }
}

}  // namespace
}  // namespace starzk
