// Partitions prepared on loader threads (batch_options_t::loaders): the
// witnesses are read and the DAGs submitted in the background while other
// partitions are proved. The proofs must be byte-identical to the reference
// prover's for fixed r, s whatever order the loaders finish in; a witness
// that cannot be read, or does not fit the key, must come back as a failed
// result naming its partition without disturbing the others; the memory
// budget must be whole again at the end; the witness buffers must be
// reused (dag/witness_pool.hpp); and the policy's invariants must hold on
// the trace.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <stdexcept>
#include <thread>

#include "dag/batch.hpp"
#include "dag/witness_pool.hpp"
#include "dag_test_util.hpp"
#include "groth16/proof_bytes.hpp"
#include "groth16/verifier.hpp"
#include "runtime/invariants.hpp"
#include "runtime/trace.hpp"

namespace starzk {
namespace {

constexpr int k_parts = 12;

TEST(dag_loaders, background_loading_gives_the_reference_proofs) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  const size_t nw = c.witnesses.size();
  std::map<int, proof_t> ref;
  for (int p = 0; p < k_parts; ++p)
    ref[p] = prove_with_blinding(*c.pk, c.cs.get(), c.witnesses[p % nw], test::test_blinding(500 + p), 2);

  setenv("STARZK_MEM_HEAVY_MAX", "2", 1);
  setenv("STARZK_CPU_LOCK", "1", 1);  // CPU-only: lock the CPU domain so the chain rule is exercised
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  unsetenv("STARZK_MEM_HEAVY_MAX");
  unsetenv("STARZK_CPU_LOCK");
  runtime::trace_recorder recorder;
  std::atomic<int> loading{0}, most_loading{0};
  std::set<int> seen_ok, seen_failed;
  {
    auto key = test::bundle(c);
    // A budget of three partitions: submit() must block on it, not fail.
    dag::batch_t batch(
        dag::batch_options_t{.mem_budget = 3 * key->partition_bytes(), .trace = &recorder, .loaders = 3});
    const uint32_t job = batch.open_job(key, "loaders");
    for (int p = 0; p < k_parts; ++p) {
      if (p == 7) {  // does not fit the key: the vector form checks it on the loader
        std::vector<fr_t> short_w(c.witnesses[0].begin(), c.witnesses[0].end() - 1);
        batch.submit(job, uint32_t(p), short_w, "loaders/7", test::test_blinding(500 + p));
        continue;
      }
      dag::witness_fill_t fill;
      if (p == 4) {
        fill = [](std::span<fr_t>) { throw std::runtime_error("w4.wtns: not a wtns file"); };
      } else {
        // Loads of uneven length, so the loaders finish out of order.
        fill = [&, p](std::span<fr_t> out) {
          const int now = ++loading;
          for (int m = most_loading.load(); now > m && !most_loading.compare_exchange_weak(m, now);) {
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(p % 3 == 0 ? 60 : 5));
          --loading;
          const std::vector<fr_t>& w = c.witnesses[p % nw];
          std::copy(w.begin(), w.end(), out.begin());
        };
      }
      // Returns before the witness is read: the loaders do it.
      batch.submit(job, uint32_t(p), std::move(fill), "loaders/" + std::to_string(p), test::test_blinding(500 + p));
    }
    batch.close_job(job);
    while (auto r = batch.wait_next()) {
      const int p = int(r->index);
      EXPECT_EQ(r->label, "loaders/" + std::to_string(p));
      if (p == 4 || p == 7) {
        EXPECT_FALSE(r->ok) << r->label;
        EXPECT_NE(r->error.find("loaders/" + std::to_string(p)), std::string::npos) << r->error;
        if (p == 4) {
          EXPECT_NE(r->error.find("w4.wtns: not a wtns file"), std::string::npos) << r->error;
        } else {
          EXPECT_NE(r->error.find("witness has"), std::string::npos) << r->error;
        }
        seen_failed.insert(p);
        continue;
      }
      ASSERT_TRUE(r->ok) << r->error;
      EXPECT_EQ(encode_proof(r->proof), encode_proof(ref.at(p))) << r->label;
      EXPECT_TRUE(verify(c.pk->vk, r->publics, r->proof)) << r->label;
      seen_ok.insert(p);
    }
    EXPECT_EQ(batch.in_flight(), 0u);
    EXPECT_EQ(batch.budget().in_use(), 0u);
    EXPECT_LE(batch.budget().peak(), 3 * key->partition_bytes());
    // Pool buffers were reused: four (the witness and the rows a, b, c, in
    // host memory without GPUs) per partition holding a reservation (about
    // 3, a little more once prep_msm hands back its unused share), not four
    // per partition (48).
    EXPECT_LE(batch.witness_pool().created(), 24u);
    EXPECT_GE(batch.witness_pool().idle(), 1u);
  }
  EXPECT_EQ(seen_ok.size(), size_t(k_parts - 2));
  EXPECT_EQ(seen_failed, (std::set<int>{4, 7}));
  EXPECT_GE(most_loading.load(), 2) << "the loaders never read two witnesses at once";
  const runtime::trace_t trace = recorder.snapshot();
  EXPECT_EQ(trace.events.size(), size_t((k_parts - 2) * 12));  // 12 tasks per proved partition (two free_rows)
  runtime::invariant_options_t inv;
  inv.mem_heavy_max = 2;
  inv.serial_free = true;
  inv.chains_contiguous = true;
  const auto violations = runtime::check_invariants(trace, inv);
  EXPECT_TRUE(violations.empty()) << violations.size() << " violations, first: " << violations.front();
}

// The batch goes away with loads still queued: its destructor lets them
// finish (or fail) and drains them; nothing leaks into the next session.
TEST(dag_loaders, destructor_waits_for_queued_loads) {
  const test::prove_case_t& c = test::prove_case("gen-snarkjs");
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  auto key = test::bundle(c);
  std::atomic<int> loaded{0};
  {
    dag::batch_t batch(dag::batch_options_t{.verify = false, .loaders = 2});
    const uint32_t job = batch.open_job(key, "drop");
    for (int p = 0; p < 6; ++p)
      batch.submit(
          job, uint32_t(p),
          [&, p](std::span<fr_t> out) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            ++loaded;
            const std::vector<fr_t>& w = c.witnesses[p % c.witnesses.size()];
            std::copy(w.begin(), w.end(), out.begin());
          },
          "drop/" + std::to_string(p));
    batch.close_job(job);
  }
  EXPECT_EQ(loaded.load(), 6);
}

// The witness pool: a returned buffer is handed out again (same storage)
// for any size it can hold, the smallest that fits first; beyond max_idle
// returned buffers are freed; a vector it never made is taken back too.
TEST(witness_pool, reuses_buffers_and_caps_the_idle_ones) {
  dag::witness_pool_t pool(/*pin=*/false, /*max_idle=*/2);
  std::vector<fr_t> a = pool.take(100), b = pool.take(50), c = pool.take(10);
  EXPECT_EQ(pool.created(), 3u);
  EXPECT_EQ(a.size(), 100u);
  const fr_t* a_data = a.data();
  const fr_t* b_data = b.data();
  pool.give_back(std::move(a));
  pool.give_back(std::move(b));
  pool.give_back(std::move(c));  // a third idle buffer: over the cap, freed
  EXPECT_EQ(pool.idle(), 2u);
  std::vector<fr_t> d = pool.take(40);  // the 50-value buffer fits best
  EXPECT_EQ(d.data(), b_data);
  EXPECT_EQ(d.size(), 40u);
  std::vector<fr_t> e = pool.take(100);
  EXPECT_EQ(e.data(), a_data);
  EXPECT_EQ(pool.created(), 3u);
  std::vector<fr_t> f = pool.take(200);  // nothing idle holds 200
  EXPECT_EQ(pool.created(), 4u);
  pool.give_back(std::vector<fr_t>(7));
  EXPECT_EQ(pool.idle(), 1u);
  pool.give_back(std::move(d));
  pool.give_back(std::move(e));  // over the cap
  pool.give_back(std::move(f));  // over the cap
  EXPECT_EQ(pool.idle(), 2u);
}

// A buffer taken with room for more than its values: a later take that
// needs that room reuses it, and one of fewer values does not take a
// buffer whose capacity a larger request named.
TEST(witness_pool, a_capacity_makes_buffers_serve_either_size) {
  dag::witness_pool_t pool(/*pin=*/false, /*max_idle=*/4);
  std::vector<fr_t> w = pool.take(90, 100), row = pool.take(100, 100);
  EXPECT_EQ(w.size(), 90u);
  EXPECT_GE(w.capacity(), 100u);
  const fr_t* w_data = w.data();
  pool.give_back(std::move(w));
  std::vector<fr_t> row2 = pool.take(100, 100);  // the witness's buffer has the room
  EXPECT_EQ(row2.data(), w_data);
  EXPECT_EQ(row2.size(), 100u);
  EXPECT_EQ(pool.created(), 2u);
  std::vector<fr_t> small = pool.take(10);  // nothing idle: a new one, of 10
  EXPECT_EQ(pool.created(), 3u);
  pool.give_back(std::move(small));
  std::vector<fr_t> more = pool.take(10, 100);  // the idle 10-value buffer lacks the room
  EXPECT_EQ(pool.created(), 4u);
  EXPECT_GE(more.capacity(), 100u);
}

// A batch's trace says how many threads its CPU bodies fork: the memory-
// heavy ones behind one interlock slot (2 CPU workers, a cap of 1), the
// others threads_per_task.
TEST(dag_loaders, the_trace_records_the_cpu_bodies_threads) {
  setenv("STARZK_MEM_HEAVY_MAX", "1", 1);
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  unsetenv("STARZK_MEM_HEAVY_MAX");
  runtime::trace_recorder recorder;
  { dag::batch_t batch(dag::batch_options_t{.trace = &recorder}); }
  const std::map<std::string, std::string> meta = recorder.snapshot().meta;
  ASSERT_TRUE(meta.count("threads_per_task") && meta.count("mem_task_threads"));
  EXPECT_EQ(meta.at("threads_per_task"), "1");
  EXPECT_EQ(meta.at("mem_task_threads"), "2");
}

// Memory-heavy bodies fork the cores behind one interlock slot: the CPU
// workers over the starzk policy's cap; an explicit count wins; other
// policies keep threads_per_task.
TEST(dag_loaders, memory_heavy_threads_follow_the_interlock) {
  auto resolved = [](const char* policy, const char* cap, dag::batch_options_t o) {
    setenv("STARZK_MEM_HEAVY_MAX", cap, 1);
    runtime::starpu_session session(test::cpu_session(policy, 2));
    unsetenv("STARZK_MEM_HEAVY_MAX");
    return dag::batch_t(o).mem_task_threads();
  };
  EXPECT_EQ(resolved("starzk", "1", {}), 2u);
  EXPECT_EQ(resolved("starzk", "2", {}), 1u);
  EXPECT_EQ(resolved("starzk", "1", {.threads_per_task = 3}), 3u);
  EXPECT_EQ(resolved("starzk", "2", {.mem_task_threads = 5}), 5u);
  EXPECT_EQ(resolved("eager", "1", {.threads_per_task = 2}), 2u);
  setenv("STARZK_MEM_TASK_THREADS", "7", 1);
  EXPECT_EQ(resolved("starzk", "1", {}), 7u);
  EXPECT_EQ(resolved("starzk", "1", {.mem_task_threads = 5}), 5u);  // the option wins
  setenv("STARZK_MEM_TASK_THREADS", "seven", 1);
  EXPECT_THROW(resolved("starzk", "1", {}), std::runtime_error);
  unsetenv("STARZK_MEM_TASK_THREADS");
}

}  // namespace
}  // namespace starzk
