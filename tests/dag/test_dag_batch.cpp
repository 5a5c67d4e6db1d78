// Many partitions at once: 8 jobs × 4 partitions on CPU workers (jobs
// alternate between a bellman and a snarkjs development key, each
// registered once and shared by its jobs), under StarPU's eager, lws, dmda,
// dmdas and heteroprio, our starzk policy and starzk-modular-heft (StarPU's
// modular heft under starzk's gates, policies/starzk_components.h). Every proof must be
// byte-identical to the reference prover's for its (fixed) r, s and verify;
// the trace must hold every task; under starzk the policy's invariants
// (memory-heavy cap, serialised free, contiguous GPU chains) must hold on it.
#include <gtest/gtest.h>

#include <map>

#include "dag/batch.hpp"
#include "dag_test_util.hpp"
#include "groth16/proof_bytes.hpp"
#include "groth16/verifier.hpp"
#include "runtime/invariants.hpp"
#include "runtime/trace.hpp"

namespace starzk {
namespace {

constexpr int k_jobs = 8, k_parts = 4;

const test::prove_case_t& job_case(int job) { return test::prove_case(job % 2 ? "gen-snarkjs" : "gen-bellman"); }
// r, s per (key, partition): jobs on the same key repeat the same 4 proofs,
// which also checks that a proof does not depend on what else is in flight.
uint64_t seed_of(int job, int part) { return 1000 + 10 * (job % 2) + part; }

// Reference proofs, computed once (8 distinct ones).
const std::map<std::pair<int, int>, proof_t>& reference() {
  static const auto ref = [] {
    std::map<std::pair<int, int>, proof_t> m;
    for (int j = 0; j < 2; ++j)
      for (int p = 0; p < k_parts; ++p) {
        const test::prove_case_t& c = job_case(j);
        m[{j, p}] = prove_with_blinding(*c.pk, c.cs.get(), c.witnesses[p], test::test_blinding(seed_of(j, p)), 2);
      }
    return m;
  }();
  return ref;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += "\n  " + x;
  return s;
}

class dag_batch : public ::testing::TestWithParam<std::string> {};

TEST_P(dag_batch, eight_jobs_of_four_partitions_all_verify) {
  const std::string policy = GetParam();
  const auto& ref = reference();
  setenv("STARZK_MEM_HEAVY_MAX", "2", 1);
  setenv("STARZK_CPU_LOCK", "1", 1);  // CPU-only: lock the CPU domain so the chain rule is exercised
  runtime::starpu_session session(test::cpu_session(policy, 2));
  unsetenv("STARZK_MEM_HEAVY_MAX");
  runtime::trace_recorder recorder;
  recorder.set_meta("policy", policy);
  int done = 0;
  {
    auto bellman = test::bundle(test::prove_case("gen-bellman"));
    auto snarkjs = test::bundle(test::prove_case("gen-snarkjs"));
    dag::batch_t batch(dag::batch_options_t{.trace = &recorder});
    EXPECT_EQ(batch.priorities(), policy != "heteroprio");
    std::map<uint32_t, int> job_of;
    for (int j = 0; j < k_jobs; ++j) {
      const uint32_t seq = batch.open_job(j % 2 ? snarkjs : bellman, "job" + std::to_string(j));
      job_of[seq] = j;
      for (int p = 0; p < k_parts; ++p)
        batch.submit(seq, p, job_case(j).witnesses[p], "job" + std::to_string(j) + "/" + std::to_string(p),
                     test::test_blinding(seed_of(j, p)));
      batch.close_job(seq);
    }
    EXPECT_GT(batch.in_flight(), 0u);
    while (auto r = batch.wait_next()) {
      ASSERT_TRUE(r->ok) << r->error;
      const int j = job_of.at(r->job);
      const test::prove_case_t& c = job_case(j);
      EXPECT_EQ(encode_proof(r->proof), encode_proof(ref.at({j % 2, int(r->index)}))) << r->label;
      EXPECT_TRUE(verify(c.pk->vk, r->publics, r->proof)) << r->label;
      ++done;
    }
    EXPECT_EQ(batch.budget().in_use(), 0u);
  }
  EXPECT_EQ(done, k_jobs * k_parts);
  const runtime::trace_t trace = recorder.snapshot();
  EXPECT_EQ(trace.events.size(), size_t(k_jobs * k_parts * 12));  // 12 tasks per partition (two free_rows)
  runtime::invariant_options_t inv;
  const bool ours = policy.rfind("starzk", 0) == 0;
  inv.mem_heavy_max = ours ? 2 : -1;
  inv.serial_free = ours;
  inv.chains_contiguous = ours;
  const auto violations = runtime::check_invariants(trace, inv);
  EXPECT_TRUE(violations.empty()) << policy << ":" << join(violations);
  // Every task names its job and partition; each chain ends on msm_b1.
  std::map<uint32_t, int> tasks_per_chain;
  for (const runtime::trace_event_t& e : trace.events) {
    EXPECT_TRUE(e.has_chain) << e.name;
    EXPECT_GE(e.job, 1u);
    ++tasks_per_chain[e.chain];
    EXPECT_EQ(e.last, e.name == "msm_b1") << e.name;
  }
  EXPECT_EQ(tasks_per_chain.size(), size_t(k_jobs * k_parts));
}

INSTANTIATE_TEST_SUITE_P(policies, dag_batch,
                         ::testing::Values("eager", "lws", "dmda", "dmdas", "heteroprio", "starzk",
                                           "starzk-modular-heft"));

// A batch without prep_msm tasks (the default where the MSMs run on GPUs):
// the CPU MSM bodies compute the split themselves, concurrently for msm_a,
// msm_b1 and b_g2_msm of one partition, and the proofs stay byte-identical.
TEST(dag_batch_prep, without_a_prep_task_the_cpu_bodies_split_on_demand) {
  const auto& ref = reference();
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  {
    dag::batch_t dflt;
    EXPECT_TRUE(dflt.prep_task()) << "no CUDA worker: the task stays";
    setenv("STARZK_PREP_TASK", "0", 1);
    EXPECT_FALSE(dag::batch_t().prep_task());
    setenv("STARZK_PREP_TASK", "yes", 1);  // a switch word: on
    EXPECT_TRUE(dag::batch_t().prep_task());
    setenv("STARZK_PREP_TASK", "maybe", 1);
    EXPECT_THROW(dag::batch_t(), std::runtime_error);
    unsetenv("STARZK_PREP_TASK");
  }
  runtime::trace_recorder recorder;
  int done = 0;
  {
    auto bellman = test::bundle(test::prove_case("gen-bellman"));
    auto snarkjs = test::bundle(test::prove_case("gen-snarkjs"));
    dag::batch_t batch(dag::batch_options_t{.trace = &recorder, .prep_task = 0});
    ASSERT_FALSE(batch.prep_task());
    std::map<uint32_t, int> job_of;
    for (int j = 0; j < 2; ++j) {
      const uint32_t seq = batch.open_job(j % 2 ? snarkjs : bellman);
      job_of[seq] = j;
      for (int p = 0; p < k_parts; ++p)
        batch.submit(seq, p, job_case(j).witnesses[p], "p" + std::to_string(j) + "/" + std::to_string(p),
                     test::test_blinding(seed_of(j, p)));
      batch.close_job(seq);
    }
    while (auto r = batch.wait_next()) {
      ASSERT_TRUE(r->ok) << r->error;
      const int j = job_of.at(r->job);
      EXPECT_EQ(encode_proof(r->proof), encode_proof(ref.at({j, int(r->index)}))) << r->label;
      ++done;
    }
    EXPECT_EQ(batch.budget().in_use(), 0u);
  }
  EXPECT_EQ(done, 2 * k_parts);
  const runtime::trace_t trace = recorder.snapshot();
  EXPECT_EQ(trace.events.size(), size_t(2 * k_parts * 11));  // 11 tasks per partition (two free_rows)
  for (const runtime::trace_event_t& e : trace.events) EXPECT_NE(e.name, "prep_msm");
}

}  // namespace
}  // namespace starzk
