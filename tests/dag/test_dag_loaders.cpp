// Partitions prepared on loader threads (batch_options_t::loaders): the
// witnesses are read and the DAGs submitted in the background while other
// partitions are proved. The proofs must be byte-identical to the reference
// prover's for fixed r, s whatever order the loaders finish in; a witness
// that cannot be read, or does not fit the key, must come back as a failed
// result naming its partition without disturbing the others; the memory
// budget must be whole again at the end; and the policy's invariants must
// hold on the trace.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "dag/batch.hpp"
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
    dag::batch_t batch(dag::batch_options_t{
        .mem_budget = 3 * key->partition_bytes(), .trace = &recorder, .loaders = 3});
    const uint32_t job = batch.open_job(key, "loaders");
    for (int p = 0; p < k_parts; ++p) {
      std::function<std::vector<fr_t>()> load;
      if (p == 4) {
        load = [] () -> std::vector<fr_t> { throw std::runtime_error("w4.wtns: not a wtns file"); };
      } else if (p == 7) {
        std::vector<fr_t> short_w(c.witnesses[0].begin(), c.witnesses[0].end() - 1);
        load = [short_w] { return short_w; };
      } else {
        // Loads of uneven length, so the loaders finish out of order.
        load = [&, p] {
          const int now = ++loading;
          for (int m = most_loading.load(); now > m && !most_loading.compare_exchange_weak(m, now);) {
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(p % 3 == 0 ? 60 : 5));
          --loading;
          return c.witnesses[p % nw];
        };
      }
      // Returns before the witness is read: the loaders do it.
      batch.submit(job, uint32_t(p), std::move(load), "loaders/" + std::to_string(p), test::test_blinding(500 + p));
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
  }
  EXPECT_EQ(seen_ok.size(), size_t(k_parts - 2));
  EXPECT_EQ(seen_failed, (std::set<int>{4, 7}));
  EXPECT_GE(most_loading.load(), 2) << "the loaders never read two witnesses at once";
  const runtime::trace_t trace = recorder.snapshot();
  EXPECT_EQ(trace.events.size(), size_t((k_parts - 2) * 10));  // 10 tasks per proved partition
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
      batch.submit(job, uint32_t(p), [&, p] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ++loaded;
        return c.witnesses[p % c.witnesses.size()];
      }, "drop/" + std::to_string(p));
    batch.close_job(job);
  }
  EXPECT_EQ(loaded.load(), 6);
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
}

}  // namespace
}  // namespace starzk
