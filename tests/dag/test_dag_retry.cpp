// A partition whose first failure is a device fault runs again on the CPUs
// (dag/batch_collect.cpp). No GPU is needed to test the mechanism: the
// TEST-ONLY hook batch_options_t::inject_fault fails the first body of a
// phase of one partition as a CUDA body's fault would. Checked, with and
// without loader threads: the faulty partition comes back once, proved,
// byte-identical to the reference for its fixed r, s, with retries = 1 and
// the first error; the others are untouched (retries = 0); the retry is a
// chain of its own in the trace; with retry_on_cpu off the
// fault is the partition's result; a failure that is no device fault (a
// witness that breaks a constraint) is not retried; the budget is all
// given back.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "dag/batch.hpp"
#include "dag_test_util.hpp"
#include "groth16/proof_bytes.hpp"
#include "groth16/verifier.hpp"
#include "runtime/trace.hpp"

namespace starzk {
namespace {

struct outcome_t {
  std::map<uint32_t, dag::partition_result_t> results;  // by index
  std::set<uint32_t> chains;                            // from the trace
};

outcome_t run(const test::prove_case_t& c, dag::batch_options_t options, const std::vector<std::vector<fr_t>>& ws) {
  runtime::trace_recorder rec;
  options.trace = &rec;
  outcome_t out;
  auto key = test::bundle(c);
  {
    dag::batch_t batch(options);
    const uint32_t job = batch.open_job(key, "retry");
    for (uint32_t i = 0; i < ws.size(); ++i)
      batch.submit(job, i, ws[i], "retry/" + std::to_string(i), test::test_blinding(300 + i));
    batch.close_job(job);
    while (auto r = batch.wait_next()) {
      EXPECT_FALSE(out.results.count(r->index)) << "partition " << r->index << " came back twice";
      out.results[r->index] = *r;
    }
    EXPECT_EQ(batch.budget().in_use(), 0u);
  }
  for (const runtime::trace_event_t& t : rec.snapshot().events)
    if (t.has_chain) out.chains.insert(t.chain);
  return out;
}

class dag_retry : public ::testing::TestWithParam<unsigned> {};  // loaders

TEST_P(dag_retry, a_device_fault_runs_the_partition_again_on_the_cpus) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  const std::vector<std::vector<fr_t>> ws(c.witnesses.begin(), c.witnesses.begin() + 3);
  dag::batch_options_t o;
  o.loaders = GetParam();
  o.inject_fault = std::pair<std::string, uint32_t>{"msm_h", 1};
  const outcome_t got = run(c, o, ws);
  ASSERT_EQ(got.results.size(), 3u);
  for (const auto& [i, r] : got.results) {
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.retries, i == 1 ? 1u : 0u) << i;
    const proof_t ref = prove_with_blinding(*c.pk, c.cs.get(), ws[i], test::test_blinding(300 + i), 2);
    EXPECT_EQ(encode_proof(r.proof), encode_proof(ref)) << i;
    EXPECT_TRUE(verify(c.pk->vk, public_inputs(*c.pk, ws[i]), r.proof)) << i;
  }
  const dag::partition_result_t& again = got.results.at(1);
  EXPECT_NE(again.first_error.find("partition retry/1: msm_h: injected fault"), std::string::npos) << again.first_error;
  EXPECT_EQ(got.chains.size(), 4u);  // three partitions and the retry, each a chain of its own
}

TEST_P(dag_retry, without_retries_the_fault_is_the_result) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  const std::vector<std::vector<fr_t>> ws(c.witnesses.begin(), c.witnesses.begin() + 2);
  dag::batch_options_t o;
  o.loaders = GetParam();
  o.retry_on_cpu = false;
  o.inject_fault = std::pair<std::string, uint32_t>{"ntt_h", 0};
  const outcome_t got = run(c, o, ws);
  ASSERT_EQ(got.results.size(), 2u);
  EXPECT_FALSE(got.results.at(0).ok);
  EXPECT_NE(got.results.at(0).error.find("ntt_h: injected fault"), std::string::npos) << got.results.at(0).error;
  EXPECT_EQ(got.results.at(0).retries, 0u);
  EXPECT_TRUE(got.results.at(1).ok) << got.results.at(1).error;
}

TEST_P(dag_retry, a_bad_witness_is_not_retried) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  std::vector<std::vector<fr_t>> ws(c.witnesses.begin(), c.witnesses.begin() + 2);
  ws[0].back() += fr_t::one();
  dag::batch_options_t o;
  o.loaders = GetParam();
  const outcome_t got = run(c, o, ws);
  ASSERT_EQ(got.results.size(), 2u);
  EXPECT_FALSE(got.results.at(0).ok);
  EXPECT_EQ(got.results.at(0).retries, 0u);
  EXPECT_NE(got.results.at(0).error.find("does not satisfy constraint"), std::string::npos) << got.results.at(0).error;
  EXPECT_TRUE(got.results.at(1).ok) << got.results.at(1).error;
  EXPECT_EQ(got.chains.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(loaders, dag_retry, ::testing::Values(0u, 2u),
                         [](const ::testing::TestParamInfo<unsigned>& i) {
                           return "loaders" + std::to_string(i.param);
                         });

}  // namespace
}  // namespace starzk
