// Whole proofs through the StarPU DAG with the codelets' CUDA bodies (label
// gpu; skipped without a CUDA device). For fixed r, s every proof must be
// byte-identical to the CPU reference prover's (prove_with_blinding), so
// the GPU bodies compute the same group elements as the CPU bodies, under
// several placements:
//   gpu       spmv, ntt_h, msm, b_g2_msm all on the GPU;
//   mixed-1   spmv and b_g2_msm on the CPU, the chain on the GPU;
//   mixed-2   spmv on the GPU, ntt_h on the CPU, the MSMs on the GPU;
//   dmdas     every body allowed, StarPU's dmdas places them;
//   auto      every body allowed, our policy places them (the default): the
//             chain must run on the GPU (STARZK_CHAIN_ON_CPU=auto), spmv and
//             b_g2_msm wherever the GPU-first rule sends them.
// The trace shows where each task ran: a placement pinned to the GPU must
// have run there, and the GPU lock holds (one chain at a time per device).
// Both key conventions: snarkjs (fixture and generated) and bellman.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "codelets/activity.hpp"
#include "codelets/codelets.hpp"
#include "dag/batch.hpp"
#include "dag_test_util.hpp"
#include "groth16/proof_bytes.hpp"
#include "groth16/verifier.hpp"
#include "policies/resource_class.h"
#include "runtime/invariants.hpp"
#include "runtime/trace.hpp"

namespace starzk {
namespace {

struct placement_case_t {
  const char* name;
  const char* policy;
  const char* place;
  std::vector<std::string> on_gpu;  // codelets that must have run on a CUDA worker
};

std::vector<placement_case_t> placement_cases() {
  return {
      {"gpu", "starzk", "spmv=cuda,ntt_h=cuda,msm=cuda,b_g2_msm=cuda", {"spmv", "ntt_h", "msm", "b_g2_msm"}},
      {"mixed1", "starzk", "spmv=cpu,ntt_h=cuda,msm=cuda,b_g2_msm=cpu", {"ntt_h", "msm"}},
      {"mixed2", "starzk", "spmv=cuda,ntt_h=cpu,msm=cuda,b_g2_msm=cuda", {"spmv", "msm", "b_g2_msm"}},
      {"dmdas", "dmdas", "spmv=any,ntt_h=any,msm=any,b_g2_msm=any", {}},
      {"auto", "starzk", "spmv=any,ntt_h=any,msm=any,b_g2_msm=any", {"ntt_h", "msm"}},
  };
}

// Submits every witness of c as one job under the labels "NAME/i" and
// collects the proofs; every partition must succeed.
std::map<uint32_t, proof_t> prove_job(dag::batch_t& batch, const std::shared_ptr<const dag::key_bundle_t>& key,
                                      const test::prove_case_t& c, const blinding_t& rs) {
  std::map<uint32_t, proof_t> got;
  const uint32_t job = batch.open_job(key, c.name);
  for (uint32_t i = 0; i < c.witnesses.size(); ++i)
    batch.submit(job, i, c.witnesses[i], c.name + "/" + std::to_string(i), rs);
  batch.close_job(job);
  while (auto r = batch.wait_next()) {
    EXPECT_TRUE(r->ok) << r->error;
    if (r->ok) got[r->index] = r->proof;
  }
  return got;
}

class dag_gpu : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(dag_gpu, proofs_equal_the_cpu_reference) {
  const auto& [case_name, pi] = GetParam();
  const placement_case_t pc = placement_cases()[pi];
  const auto session = test::gpu_session(pc.policy);
  if (!session) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  codelets::set_placement(pc.place);

  const test::prove_case_t& c = test::prove_case(case_name);
  auto key = test::bundle(c);
  runtime::trace_recorder rec;
  std::map<uint32_t, proof_t> got;
  {
    dag::batch_t batch(dag::batch_options_t{.trace = &rec});
    // A prep_msm task only where a split MSM is pinned to the CPUs (mixed1:
    // b_g2_msm); elsewhere a CPU MSM body (dmdas may choose one) splits w itself.
    EXPECT_EQ(batch.prep_task(), std::string(pc.name) == "mixed1") << pc.name;
    const blinding_t rs = test::test_blinding(41);
    got = prove_job(batch, key, c, rs);
    for (uint32_t i = 0; i < c.witnesses.size(); ++i) {
      const proof_t ref = prove_with_blinding(*c.pk, c.cs.get(), c.witnesses[i], rs, 1);
      EXPECT_EQ(encode_proof(got.at(i)), encode_proof(ref)) << c.name << " partition " << i << " placement " << pc.name;
      EXPECT_TRUE(verify(c.pk->vk, public_inputs(*c.pk, c.witnesses[i]), got.at(i)));
    }
  }
  const runtime::trace_t t = rec.snapshot();
  std::map<std::string, int> on_cuda;
  for (const auto& e : t.events)
    if (e.worker_kind == "cuda") ++on_cuda[e.codelet];
  for (const std::string& cl : pc.on_gpu)
    EXPECT_EQ(on_cuda[cl], int(c.witnesses.size()) * (cl == "msm" ? 4 : 1)) << cl << " under " << pc.name;
  // spmv heads its partition's GPU chain exactly when it runs on the GPU
  // that the memory plan keeps a, b, c on (dag/partition_dag.hpp), so the
  // lock checked below covers it too.
  for (const auto& e : t.events) {
    if (e.codelet == "spmv") {
      EXPECT_EQ(e.rc == STARZK_RC_GPU_CHAIN, key->rows_on_device() && e.worker_kind == "cuda")
          << "spmv of chain " << e.chain << " on " << e.worker_kind << " under " << pc.name;
    }
  }
  runtime::invariant_options_t io;
  // The lock is checked where the whole chain is pinned to the GPU (chains
  // on CPU workers are not locked by default).
  io.chains_contiguous =
      std::string(pc.name) == "gpu" || std::string(pc.name) == "mixed1" || std::string(pc.name) == "auto";
  io.serial_free = std::string(pc.policy) == "starzk";  // a rule of our policies, not of dmdas
  for (const std::string& v : runtime::check_invariants(t, io)) ADD_FAILURE() << v;
  codelets::set_placement("spmv=any,ntt_h=any,msm=any,b_g2_msm=any");
}

// STARZK_MSM_PROFILE: every MSM body on the GPU says where its time went,
// one line per MSM naming its partition and query, with the phases'
// milliseconds and what they leave of the wall (at least zero, within the
// clocks' difference), and the proofs unchanged: with H and B_g2 streamed
// from host memory and the other queries resident (one task per query),
// and with every query streamed, where msm_g1 runs the four G1 MSMs in one
// call and says one line for each (`msm_g1 msm_h`, ...).
TEST(dag_gpu_profile, every_msm_says_where_its_time_went) {
  for (const char* stream : {"h,b_g2", "all"}) {
    SCOPED_TRACE(std::string("STARZK_KEY_STREAM=") + stream);
    const bool together = std::string(stream) == "all";
    const test::scoped_env_t profile("STARZK_MSM_PROFILE", "1"), streamed("STARZK_KEY_STREAM", stream),
        beside("STARZK_MSM_TOGETHER", "auto");
    const auto session = test::gpu_session("starzk");
    if (!session) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
    codelets::set_placement("spmv=cuda,ntt_h=cuda,msm=cuda,b_g2_msm=cuda");
    const test::prove_case_t& c = test::prove_case("gen-bellman");
    const auto key = test::bundle(c);  // the key view reads the variables when the bundle is made
    ASSERT_EQ(key->view().g1_msms_together, together);
    std::vector<std::string> notes;
    std::mutex mu;
    codelets::set_note_sink([&](const std::string& text) {
      std::lock_guard<std::mutex> lock(mu);
      notes.push_back(text);
    });
    {
      dag::batch_t batch(dag::batch_options_t{});
      const blinding_t rs = test::test_blinding(41);
      const std::map<uint32_t, proof_t> got = prove_job(batch, key, c, rs);
      ASSERT_EQ(got.size(), c.witnesses.size());
      for (const auto& [i, proof] : got)
        EXPECT_EQ(encode_proof(proof), encode_proof(prove_with_blinding(*c.pk, c.cs.get(), c.witnesses[i], rs, 1)));
    }
    codelets::set_note_sink(nullptr);
    for (uint32_t i = 0; i < c.witnesses.size(); ++i)
      for (const char* query : {"msm_h", "msm_l", "msm_a", "msm_b1", "b_g2_msm"}) {
        const bool g1 = std::string(query) != "b_g2_msm";
        const std::string phase = (together && g1 ? "msm_g1 " : "") + std::string(query);
        const std::string head = c.name + "/" + std::to_string(i) + ": " + phase + ": ";
        int lines = 0;
        for (const std::string& n : notes) {
          if (n.rfind(head, 0) != 0) continue;
          ++lines;
          const size_t at = n.find("launches) ");
          ASSERT_NE(at, std::string::npos) << n;
          EXPECT_GE(std::stod(n.substr(at + 10)), -1.0) << n;  // the phases fit in the wall
          EXPECT_NE(n.find(" ms: live "), std::string::npos) << n;
        }
        EXPECT_EQ(lines, 1) << head;
      }
    codelets::set_placement("spmv=any,ntt_h=any,msm=any,b_g2_msm=any");
  }
}

// A witness that breaks a constraint fails its partition at the GPU's
// witness map (the device check), naming the constraint, and is not run
// again on the CPUs: it is bad input, not a device fault. The other
// partition of the batch is proved.
TEST(dag_gpu_check, a_bad_witness_fails_at_the_gpu_spmv_and_is_not_retried) {
  const auto session = test::gpu_session("starzk");
  if (!session) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  codelets::set_placement("spmv=cuda,ntt_h=cuda,msm=cuda,b_g2_msm=cuda");
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  std::vector<std::vector<fr_t>> ws(c.witnesses.begin(), c.witnesses.begin() + 2);
  ws[0].back() += fr_t::one();
  runtime::trace_recorder rec;
  std::map<uint32_t, dag::partition_result_t> got;
  {
    dag::batch_t batch(dag::batch_options_t{.trace = &rec});
    const uint32_t job = batch.open_job(test::bundle(c), c.name);
    for (uint32_t i = 0; i < ws.size(); ++i) batch.submit(job, i, ws[i], c.name + "/" + std::to_string(i));
    batch.close_job(job);
    while (auto r = batch.wait_next()) got[r->index] = *r;
  }
  codelets::set_placement("spmv=any,ntt_h=any,msm=any,b_g2_msm=any");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got.at(0).ok);
  EXPECT_EQ(got.at(0).retries, 0u);
  EXPECT_NE(got.at(0).error.find("spmv: the witness does not satisfy constraint"), std::string::npos)
      << got.at(0).error;
  EXPECT_TRUE(got.at(1).ok) << got.at(1).error;
  int spmv_on_cuda = 0;
  for (const auto& e : rec.snapshot().events) spmv_on_cuda += e.worker_kind == "cuda" && e.codelet == "spmv";
  EXPECT_EQ(spmv_on_cuda, 2);
}

INSTANTIATE_TEST_SUITE_P(cases, dag_gpu,
                         ::testing::Combine(::testing::Values("multiplier", "gen-snarkjs", "gen-bellman"),
                                            ::testing::Range(0, 5)),
                         [](const auto& info) {
                           std::string n = std::get<0>(info.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n + "_" + placement_cases()[std::get<1>(info.param)].name;
                         });

}  // namespace
}  // namespace starzk
