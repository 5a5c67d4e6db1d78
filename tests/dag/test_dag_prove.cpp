// One proof through the StarPU DAG against the reference prover: with a
// fixed r, s the DAG's proof is byte-identical to prove_with_blinding's, in
// both key conventions (snarkjs fixtures, our development keys on a
// generated Filecoin-shaped circuit), and verifies; with fresh r, s it
// still verifies and differs. Bad inputs fail cleanly: a witness of the
// wrong length is refused at submission, an unsatisfied one fails its
// partition (named in the error) without disturbing the others.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "dag/batch.hpp"
#include "dag/prove_dag.hpp"
#include "dag_test_util.hpp"
#include "../cli/key_test_util.hpp"
#include "groth16/proof_bytes.hpp"
#include "groth16/verifier.hpp"
#include "runtime/trace.hpp"

namespace starzk {
namespace {

class dag_prove : public ::testing::TestWithParam<std::string> {};

TEST_P(dag_prove, byte_identical_to_prove_with_blinding_and_verifies) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  auto key = test::bundle(c);
  const std::vector<fr_t>& w = c.witnesses.back();
  const blinding_t rs = test::test_blinding(100);
  const proof_t ref = prove_with_blinding(*c.pk, c.cs.get(), w, rs, 1);
  const proof_t got = dag::prove_dag(key, w, rs);
  EXPECT_EQ(encode_proof(got), encode_proof(ref)) << c.name;
  EXPECT_TRUE(verify(c.pk->vk, public_inputs(*c.pk, w), got));
  // Fresh r, s from the CSPRNG: another proof of the same statement.
  const proof_t fresh = dag::prove_dag(key, w);
  EXPECT_TRUE(verify(c.pk->vk, public_inputs(*c.pk, w), fresh));
  EXPECT_NE(encode_proof(fresh), encode_proof(got));
}

// STARZK_MSM_TOGETHER=on: the four G1 MSMs as one task, msm_g1, which ends
// the chain; the proof is the reference's to the byte.
TEST_P(dag_prove, g1_msms_together_byte_identical) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  auto key = [&] {  // the key view reads the knob when the bundle is made
    const test::scoped_env_t together("STARZK_MSM_TOGETHER", "on");
    return test::bundle(c);
  }();
  ASSERT_TRUE(key->view().g1_msms_together);
  const std::vector<fr_t>& w = c.witnesses.back();
  const blinding_t rs = test::test_blinding(101);
  runtime::trace_recorder recorder;
  const proof_t got = dag::prove_dag(key, w, rs, dag::batch_options_t{.trace = &recorder});
  EXPECT_EQ(encode_proof(got), encode_proof(prove_with_blinding(*c.pk, c.cs.get(), w, rs, 1))) << c.name;
  std::map<std::string, int> tasks;
  for (const runtime::trace_event_t& e : recorder.snapshot().events) ++tasks[e.name];
  EXPECT_EQ(tasks["msm_g1"], 1);
  EXPECT_EQ(tasks["b_g2_msm"], 1);
  for (const char* one : {"msm_h", "msm_l", "msm_a", "msm_b1"}) EXPECT_EQ(tasks.count(one), 0u) << one;
}

// The MSM diagnostics and A/B knobs are read when the bundle is made.
TEST(dag_key_view, msm_profile_and_piece_wait_follow_the_environment) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  runtime::starpu_session session(test::cpu_session("starzk", 1));
  const auto plain = test::bundle(c);
  EXPECT_FALSE(plain->view().msm_profile);
  EXPECT_FALSE(plain->view().msm_piece_wait);
  const test::scoped_env_t profile("STARZK_MSM_PROFILE", "1"), wait("STARZK_MSM_PIECE_WAIT", "on");
  const auto set = test::bundle(c);
  EXPECT_TRUE(set->view().msm_profile);
  EXPECT_TRUE(set->view().msm_piece_wait);
}

INSTANTIATE_TEST_SUITE_P(cases, dag_prove, ::testing::ValuesIn(test::prove_case_names()), [](const auto& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
});

TEST(dag_failures, bad_witnesses_fail_their_partition_only) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  auto key = test::bundle(c);
  dag::batch_t batch;
  const uint32_t job = batch.open_job(key, "mixed");
  std::vector<fr_t> bad = c.witnesses[1];
  bad.back() += fr_t::one();
  batch.submit(job, 0, c.witnesses[0], "mixed/0");
  batch.submit(job, 1, bad, "mixed/1");
  batch.submit(job, 2, c.witnesses[2], "mixed/2");
  std::vector<fr_t> short_w(c.witnesses[0].begin(), c.witnesses[0].end() - 1);
  try {
    batch.submit(job, 3, short_w, "mixed/3");
    ADD_FAILURE() << "a short witness was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("mixed/3"), std::string::npos) << e.what();
  }
  std::vector<fr_t> not_one = c.witnesses[0];
  not_one[0] = fr_t::zero();
  EXPECT_THROW(batch.submit(job, 4, not_one, "mixed/4"), std::runtime_error);
  batch.close_job(job);
  int ok = 0, failed = 0;
  while (auto r = batch.wait_next()) {
    if (r->index == 1) {
      EXPECT_FALSE(r->ok);
      // A bellman key: the CPU witness map finds the broken constraint
      // first (the partition's later phases never run).
      EXPECT_NE(r->error.find("partition mixed/1: spmv: the witness does not satisfy constraint"), std::string::npos)
          << r->error;
      ++failed;
    } else {
      EXPECT_TRUE(r->ok) << r->error;
      EXPECT_TRUE(verify(c.pk->vk, r->publics, r->proof));
      ++ok;
    }
  }
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(batch.budget().in_use(), 0u);
}

TEST(dag_failures, key_and_circuit_must_match) {
  runtime::starpu_session session(test::cpu_session("eager", 1));
  const test::prove_case_t& gen = test::prove_case("gen-bellman");
  const test::prove_case_t& mul = test::prove_case("multiplier");
  EXPECT_THROW(dag::key_bundle_t(gen.pk, nullptr, "no circuit"), std::runtime_error);
  EXPECT_THROW(dag::key_bundle_t(gen.pk, mul.cs, "wrong circuit"), std::runtime_error);
  auto bad = std::make_shared<proving_key_t>(*mul.pk);
  bad->l.pop_back();
  try {
    dag::key_bundle_t b(bad, mul.cs, "short-l");
    ADD_FAILURE() << "a key with a short L query was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("short-l: L query"), std::string::npos) << e.what();
  }
}

// A key with a point outside its subgroup (what a proof computed beside
// the key's validation meets) gives a proof that fails its check: the
// partition fails with a clear error, nothing crashes, and the batch ends.
TEST(dag_failures, a_key_point_outside_its_subgroup_fails_the_proof) {
  runtime::starpu_session session(test::cpu_session("starzk", 2));
  const test::prove_case_t& c = test::prove_case("multiplier");
  auto bad = std::make_shared<proving_key_t>(*c.pk);
  ASSERT_GT(bad->h.size(), 1u);
  bad->h[1] = test::g1_outside_subgroup();
  auto key = std::make_shared<const dag::key_bundle_t>(bad, c.cs, "bad-h", 1);
  EXPECT_THROW(dag::prove_dag(key, c.witnesses.at(0), test::test_blinding(7), dag::batch_options_t{}), prove_error);
}

}  // namespace
}  // namespace starzk
