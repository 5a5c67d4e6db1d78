// Partitions in pairs (dag/partition_pair.hpp, dag/batch_pairs.cpp): with
// STARZK_MSM_PAIRS=on two partitions of a batch share one task per witness
// MSM (b_g2_msm, msm_l, msm_a, msm_b1).
// The proofs must be byte-identical to the reference prover's for fixed
// r, s; the trace must have one task of each per pair, each on the
// chain of its older partition and after that partition's msm_h; a load
// that fails must let the partition waiting for it go alone; an odd
// partition goes alone; the memory budget must be whole again at the end.
// On the CPUs here (the pairs' CPU bodies); the GPU form in
// dag_gpu_memory.msm_pairs_give_the_same_proofs and the sector benchmark
// (docs/benchmarks.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "dag/batch.hpp"
#include "dag_test_util.hpp"
#include "groth16/proof_bytes.hpp"
#include "groth16/verifier.hpp"
#include "runtime/invariants.hpp"
#include "runtime/trace.hpp"

namespace starzk {
namespace {

struct pairs_run_t {
  std::map<int, dag::partition_result_t> results;
  runtime::trace_t trace;
  uint64_t budget_left = 0, cap = 0, peak = 0, staged = 0;
};

// Proves `parts` partitions of the test case with pairs on, fill(p, out)
// loading partition p's witness on one of two loaders. With `rows_above`,
// the host budget holds one partition and that many pool buffers more
// (each a witness or a row: key_bundle_t::pool_values).
template <class Fill>
pairs_run_t prove_in_pairs(const test::prove_case_t& c, int parts, Fill fill, int blinding_base,
                           std::optional<double> rows_above = std::nullopt) {
  const test::scoped_env_t pairs("STARZK_MSM_PAIRS", "on");
  // The CPU domain locked, so the chain rule holds here as on a GPU.
  std::optional<runtime::starpu_session> session;
  {
    const test::scoped_env_t lock("STARZK_CPU_LOCK", "1");
    session.emplace(test::cpu_session("starzk", 2));
  }
  runtime::trace_recorder recorder;
  pairs_run_t run;
  {
    auto key = test::bundle(c);  // reads STARZK_MSM_PAIRS
    dag::batch_t batch(dag::batch_options_t{.trace = &recorder, .loaders = 2, .prep_task = 0});
    if (rows_above) {
      const uint64_t row = key->host_row_bytes() / key->host_rows();
      batch.set_memory_cap(run.cap = batch.reservation(*key) + uint64_t(*rows_above * double(row)));
    }
    const uint32_t job = batch.open_job(key, "pairs");
    for (int p = 0; p < parts; ++p)
      batch.submit(
          job, uint32_t(p), [&c, fill, p](std::span<fr_t> out) { fill(c, p, out); }, "pairs/" + std::to_string(p),
          test::test_blinding(blinding_base + p));
    batch.close_job(job);
    while (auto r = batch.wait_next()) run.results[int(r->index)] = *r;
    run.budget_left = batch.budget().in_use();
    run.peak = batch.budget().peak();
    run.staged = batch.staged();
  }
  run.trace = recorder.snapshot();
  return run;
}

void copy_witness(const test::prove_case_t& c, int p, std::span<fr_t> out) {
  const std::vector<fr_t>& w = c.witnesses[size_t(p) % c.witnesses.size()];
  std::copy(w.begin(), w.end(), out.begin());
}

std::vector<const runtime::trace_event_t*> tasks_named(const runtime::trace_t& t, const std::string& name) {
  std::vector<const runtime::trace_event_t*> out;
  for (const runtime::trace_event_t& e : t.events)
    if (e.name == name) out.push_back(&e);
  return out;
}

void expect_reference_proofs(const test::prove_case_t& c, const pairs_run_t& run, int blinding_base) {
  for (const auto& [p, r] : run.results) {
    if (!r.ok) continue;
    const proof_t ref = prove_with_blinding(*c.pk, c.cs.get(), c.witnesses[size_t(p) % c.witnesses.size()],
                                            test::test_blinding(blinding_base + p), 2);
    EXPECT_EQ(encode_proof(r.proof), encode_proof(ref)) << r.label;
    EXPECT_TRUE(verify(c.pk->vk, r.publics, r.proof)) << r.label;
  }
}

void sleep_and_copy(const test::prove_case_t& c, int p, std::span<fr_t> out) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  copy_witness(c, p, out);
}

// A run under a capped budget: every proof the reference's, the budget
// whole again at the end and never above its cap, at least `staged`
// partitions admitted in two steps (else the run did not test staging).
void expect_budgeted_run(const test::prove_case_t& c, const pairs_run_t& run, int parts, int blinding_base,
                         uint64_t staged) {
  ASSERT_EQ(run.results.size(), size_t(parts));
  for (const auto& [p, r] : run.results) ASSERT_TRUE(r.ok) << r.error;
  expect_reference_proofs(c, run, blinding_base);
  EXPECT_EQ(run.budget_left, 0u);
  EXPECT_LE(run.peak, run.cap);
  EXPECT_GE(run.staged, staged) << "the budget staged too few partitions: the test does not exercise staging";
}

// The lock's invariants on the trace, the CPU domain locked as a GPU is.
void expect_invariants(const runtime::trace_t& trace) {
  runtime::invariant_options_t inv;
  inv.serial_free = true;
  inv.chains_contiguous = true;
  const auto violations = runtime::check_invariants(trace, inv);
  EXPECT_TRUE(violations.empty()) << violations.size() << " violations, first: " << violations.front();
}

TEST(dag_pairs, six_partitions_make_three_pairs_and_the_reference_proofs) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  const pairs_run_t run = prove_in_pairs(
      c, 6,
      [](const test::prove_case_t& pc, int p, std::span<fr_t> out) {
        std::this_thread::sleep_for(std::chrono::milliseconds(p % 2 == 0 ? 30 : 5));  // out of order
        copy_witness(pc, p, out);
      },
      700);
  ASSERT_EQ(run.results.size(), 6u);
  for (const auto& [p, r] : run.results) ASSERT_TRUE(r.ok) << r.error;
  expect_reference_proofs(c, run, 700);
  EXPECT_EQ(run.budget_left, 0u);
  // One b_g2_msm per pair, on the chain of its older partition, after
  // that partition's msm_h (its result is an input of the pair's task).
  const auto b_g2 = tasks_named(run.trace, "b_g2_msm");
  EXPECT_EQ(b_g2.size(), 3u);
  std::map<uint32_t, double> msm_h_end;
  for (const runtime::trace_event_t* e : tasks_named(run.trace, "msm_h")) msm_h_end[e->chain] = e->end_us;
  for (const runtime::trace_event_t* e : b_g2) {
    ASSERT_TRUE(msm_h_end.count(e->chain)) << "no msm_h on chain " << e->chain;
    EXPECT_GE(e->start_us, msm_h_end[e->chain]) << "chain " << e->chain;
  }
  EXPECT_EQ(tasks_named(run.trace, "msm_h").size(), 6u);
  // With pairs on, msm_l, msm_a and msm_b1 pair too, after the older's msm_h.
  for (const char* q : {"msm_l", "msm_a", "msm_b1"}) {
    const auto tasks = tasks_named(run.trace, q);
    EXPECT_EQ(tasks.size(), 3u) << q;
    for (const runtime::trace_event_t* e : tasks) EXPECT_GE(e->start_us, msm_h_end[e->chain]) << q;
  }
  expect_invariants(run.trace);
}

// A host budget that holds one partition and one and a half pool buffers
// more: each partition after the first reserves its witness first and its
// rows only once the partition before has given its rows back (after its
// msm_h). The first of each pair submits its head (witness map, H phase,
// msm_h) while its partner waits for that memory, and parks its tail; the
// second's rows then fit, and the two pair: three pairs, the budget never
// above its cap.
TEST(dag_pairs, partitions_staged_by_the_budget_pair_behind_a_head_run_first) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  const pairs_run_t run = prove_in_pairs(c, 6, sleep_and_copy, 1000, 1.5);
  expect_budgeted_run(c, run, 6, 1000, 3);
  const auto b_g2 = tasks_named(run.trace, "b_g2_msm");
  ASSERT_EQ(b_g2.size(), 3u);
  // Each pair's first ran its head (through msm_h) before its second was
  // submitted at all: the second's rows waited for the first's. The
  // second is the chain whose witness (its witness map's first buffer)
  // the pair's task reads.
  std::map<uint32_t, const runtime::trace_event_t*> map_of, msm_h_of;
  for (const runtime::trace_event_t* e : tasks_named(run.trace, "spmv")) map_of[e->chain] = e;
  for (const runtime::trace_event_t* e : tasks_named(run.trace, "msm_h")) msm_h_of[e->chain] = e;
  ASSERT_EQ(map_of.size(), 6u);
  ASSERT_EQ(msm_h_of.size(), 6u);
  for (const runtime::trace_event_t* e : b_g2) {
    const runtime::trace_event_t* second = nullptr;
    for (const auto& [chain, m] : map_of)
      for (const runtime::trace_buffer_t& b : e->buffers)
        if (chain != e->chain && !m->buffers.empty() && b.data == m->buffers[0].data) second = m;
    ASSERT_NE(second, nullptr) << "chain " << e->chain << ": its b_g2_msm reads no other partition's witness";
    EXPECT_GE(second->submit_us, msm_h_of.at(e->chain)->end_us)
        << "chain " << e->chain << "'s partner was submitted before its msm_h ended";
  }
  expect_invariants(run.trace);
}

// Half a pool buffer more than one partition: the next partition's rows
// fit only once the one before has ended, so a tail parked for it would
// wait for memory it holds itself. The partner's wait releases it (no
// pair, no hang): every partition alone, the budget never above its cap.
TEST(dag_pairs, a_partner_that_needs_the_first_to_end_releases_its_tail) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  const pairs_run_t run = prove_in_pairs(c, 4, sleep_and_copy, 1100, 0.5);
  expect_budgeted_run(c, run, 4, 1100, 2);
  EXPECT_EQ(tasks_named(run.trace, "b_g2_msm").size(), 4u);
}

// A partition of another job (B0, another key) enters StarPU while A0's
// tail waits parked for A1, its chain behind A0's in the lock's order (the
// CPU domain locked, as a GPU is). A1's rows then wait for memory that
// only B0's end would give back, and B0's chain cannot start while A0's
// holds the lock: the wait must release A0's tail rather than count on
// B0. Without that the batch deadlocks, which fails the test after a
// minute (the process exits: StarPU cannot be stopped under a hung batch).
TEST(dag_pairs, a_partner_waiting_for_a_chain_behind_the_lock_releases_the_tail) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  const test::scoped_env_t pairs("STARZK_MSM_PAIRS", "on");
  std::optional<runtime::starpu_session> session;
  {
    const test::scoped_env_t lock("STARZK_CPU_LOCK", "1");
    session.emplace(test::cpu_session("starzk", 2));
  }
  auto key_a = test::bundle(c), key_b = test::bundle(c);  // two keys: B0 never pairs with A0
  std::map<std::string, dag::partition_result_t> results;
  auto run = std::async(std::launch::async, [&] {
    dag::batch_t batch(dag::batch_options_t{.loaders = 2, .prep_task = 0});
    // A0 and B0 fit whole, A1's witness once A0's b and c are back, its
    // rows only once A0 or B0 has ended.
    const uint64_t row = key_a->host_row_bytes() / key_a->host_rows();
    batch.set_memory_cap(batch.reservation(*key_a) + batch.reservation(*key_b) + row / 2);
    const uint32_t ja = batch.open_job(key_a, "a"), jb = batch.open_job(key_b, "b");
    auto after = [&c](int ms) {
      return [&c, ms](std::span<fr_t> out) {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        copy_witness(c, 0, out);
      };
    };
    // B0 reaches StarPU after A0's chain holds the lock, A1's rows ask
    // for memory after A0's head has ended.
    batch.submit(ja, 0, after(0), "a/0", test::test_blinding(1200));
    batch.submit(jb, 0, after(50), "b/0", test::test_blinding(1201));
    batch.submit(ja, 1, after(150), "a/1", test::test_blinding(1202));
    batch.close_job(ja);
    batch.close_job(jb);
    while (auto r = batch.wait_next()) results[r->label] = *r;
    EXPECT_EQ(batch.budget().in_use(), 0u);
  });
  if (run.wait_for(std::chrono::seconds(60)) == std::future_status::timeout) {
    ADD_FAILURE() << "the batch has not ended in a minute: a parked tail holds the lock its partner's memory waits on";
    std::fflush(nullptr);
    std::quick_exit(1);
  }
  run.get();
  ASSERT_EQ(results.size(), 3u);
  for (const auto& [label, r] : results) {
    ASSERT_TRUE(r.ok) << label << ": " << r.error;
    EXPECT_TRUE(verify(c.pk->vk, r.publics, r.proof)) << label;
  }
}

// Partition 1's load fails while partition 0 waits for it: 0 goes alone.
// An odd partition (three in all, 2 proved) goes alone too.
TEST(dag_pairs, a_failed_load_or_an_odd_partition_goes_alone) {
  const test::prove_case_t& c = test::prove_case("gen-snarkjs");
  const pairs_run_t failed = prove_in_pairs(
      c, 2,
      [](const test::prove_case_t& pc, int p, std::span<fr_t> out) {
        if (p == 1) {
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          throw std::runtime_error("w1.wtns: truncated");
        }
        copy_witness(pc, p, out);
      },
      800);
  ASSERT_EQ(failed.results.size(), 2u);
  EXPECT_TRUE(failed.results.at(0).ok) << failed.results.at(0).error;
  EXPECT_FALSE(failed.results.at(1).ok);
  EXPECT_NE(failed.results.at(1).error.find("w1.wtns: truncated"), std::string::npos) << failed.results.at(1).error;
  expect_reference_proofs(c, failed, 800);
  EXPECT_EQ(tasks_named(failed.trace, "b_g2_msm").size(), 1u);
  EXPECT_EQ(failed.budget_left, 0u);

  const pairs_run_t odd = prove_in_pairs(
      c, 3, [](const test::prove_case_t& pc, int p, std::span<fr_t> out) { copy_witness(pc, p, out); }, 900);
  ASSERT_EQ(odd.results.size(), 3u);
  for (const auto& [p, r] : odd.results) ASSERT_TRUE(r.ok) << r.error;
  expect_reference_proofs(c, odd, 900);
  EXPECT_EQ(tasks_named(odd.trace, "b_g2_msm").size(), 2u);  // one pair, one alone
}

// Without the knob (auto: streamed queries, so GPUs) or with a prep_msm
// task, nothing pairs on the CPUs.
TEST(dag_pairs, none_by_default_without_gpus_nor_with_a_prep_task) {
  const test::prove_case_t& c = test::prove_case("gen-snarkjs");
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  for (const char* knob : {static_cast<const char*>(nullptr), "on"}) {
    const test::scoped_env_t pairs("STARZK_MSM_PAIRS", knob);
    runtime::trace_recorder recorder;
    {
      auto key = test::bundle(c);
      // With the knob on, a prep_msm task (the default without GPUs) keeps pairs off.
      dag::batch_t batch(
          dag::batch_options_t{.verify = false, .trace = &recorder, .loaders = 2, .prep_task = knob ? -1 : 0});
      const uint32_t job = batch.open_job(key, "single");
      for (int p = 0; p < 4; ++p) batch.submit(job, uint32_t(p), c.witnesses[size_t(p) % c.witnesses.size()], "s");
      batch.close_job(job);
      while (auto r = batch.wait_next()) EXPECT_TRUE(r->ok) << r->error;
    }
    EXPECT_EQ(tasks_named(recorder.snapshot(), "b_g2_msm").size(), 4u) << "STARZK_MSM_PAIRS=" << (knob ? knob : "");
  }
}

}  // namespace
}  // namespace starzk
