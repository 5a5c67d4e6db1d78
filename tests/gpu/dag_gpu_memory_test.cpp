// Whole proofs through the DAG when device memory is short (label gpu;
// skipped without a CUDA device), docs/gpu.md "Memory plan":
//   streamed    the memory plan forced to stream queries
//               (STARZK_KEY_STREAM=all, and h,b_g2 with the rest
//               resident): no StarPU handle for them, the CUDA bodies copy
//               the bases from page-locked host memory (with all four G1
//               queries streamed, in one task, msm_g1; with h,b_g2 each
//               piece waited for, STARZK_MSM_PIECE_WAIT), and the proofs are
//               byte-identical to the CPU reference prover's for fixed r, s;
//   cpu         a scratch cap below the smallest MSM pieces
//               (STARZK_GPU_SCRATCH_MAX=1): can_execute keeps every MSM task
//               off the CUDA worker, CPU workers run them (starzk and
//               dmdas), the proofs verify and equal the reference;
//   fallback    the same cap with the MSMs pinned to the GPU: the CUDA
//               bodies find no memory and compute on the host, same proofs;
//   pairs       B_g2 (and L, A, B_g1) streamed and STARZK_MSM_PAIRS=auto,
//               partitions loaded on two loaders: b_g2_msm (and msm_l,
//               msm_a, msm_b1) tasks of two partitions each (one staging
//               of the bases for both, msm_pieces_sets), same proofs;
// (the tests under a device limit: dag_gpu_memory_limited_test.cpp)
#include <gtest/gtest.h>

#include <string>

#include "codelets/codelets.hpp"
#include "dag_gpu_memory_util.hpp"
#include "dag_test_util.hpp"

namespace starzk::test {
namespace {

class dag_gpu_memory : public ::testing::TestWithParam<std::string> {};

TEST_P(dag_gpu_memory, streamed_queries_give_the_same_proofs) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  for (const char* stream : {"all", "h,b_g2"}) {
    const bool all = std::string(stream) == "all";
    const test::scoped_env_t env("STARZK_KEY_STREAM", stream), together("STARZK_MSM_TOGETHER", "auto"),
        wait("STARZK_MSM_PIECE_WAIT", all ? "off" : "on");
    runtime::starpu_session session(test::gpu_session_options("starzk"));
    if (session.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
    codelets::set_placement("spmv=any,ntt_h=any,msm=cuda,b_g2_msm=cuda");
    auto key = test::bundle(c);
    EXPECT_EQ(key->view().msm_piece_wait, !all);
    for (int q = 0; q < codelets::msm_query_count; ++q) {
      const bool want = all || q == int(codelets::msm_query_t::h);
      EXPECT_EQ(key->view().g1_device[q].streamed, want) << stream << " query " << q;
      EXPECT_EQ(key->query(codelets::msm_query_t(q)) == nullptr, want) << stream << " query " << q;
    }
    EXPECT_TRUE(key->view().b_g2_device.streamed);
    EXPECT_EQ(key->b_g2(), nullptr);
    EXPECT_FALSE(key->describe_memory_plan().empty());
    const blinding_t rs = test::test_blinding(43);
    const run_t got = prove_all(key, c.witnesses, rs);
    expect_reference(c, got, rs, std::string("STARZK_KEY_STREAM=") + stream);
    const int parts = int(c.witnesses.size());
    // With every query streamed the plan runs the four G1 MSMs as one task.
    EXPECT_EQ(key->view().g1_msms_together, all) << stream;
    EXPECT_EQ(got.count("msm", "cuda"), (all ? 1 : 4) * parts) << stream;
    EXPECT_EQ(got.count("b_g2_msm", "cuda"), parts) << stream;
    // Every array the plan keeps on the GPU arrived there and is held.
    const size_t resident = key->resident_on_devices().size();
    EXPECT_GE(resident, all ? 1u : 4u) << stream;  // the domain, and l, a, b_g1 unless all stream
    EXPECT_EQ(key->held_on_devices(), resident) << stream;
    codelets::set_placement(any_place);
  }
}

TEST_P(dag_gpu_memory, msm_pairs_give_the_same_proofs) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  for (const char* stream : {"b_g2", "l,a,b_g1,b_g2"}) {
    const bool g1 = std::string(stream) != "b_g2";
    const test::scoped_env_t env("STARZK_KEY_STREAM", stream), pairs("STARZK_MSM_PAIRS", "auto");
    runtime::starpu_session session(test::gpu_session_options("starzk"));
    if (session.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
    codelets::set_placement("spmv=any,ntt_h=any,msm=cuda,b_g2_msm=cuda");
    auto key = test::bundle(c);
    EXPECT_TRUE(key->view().b_g2_device.streamed);
    EXPECT_TRUE(key->view().b_g2_pairs) << stream;  // auto: B_g2 streams
    EXPECT_EQ(key->view().g1_pairs, g1) << stream;  // auto: L, A, B_g1 stream
    // Twice the witnesses, so that pairs form however the loads finish.
    std::vector<std::vector<fr_t>> witnesses = c.witnesses;
    witnesses.insert(witnesses.end(), c.witnesses.begin(), c.witnesses.end());
    const blinding_t rs = test::test_blinding(45);
    const run_t got = prove_all(key, witnesses, rs, 2);
    test::prove_case_t twice = c;
    twice.witnesses = witnesses;
    expect_reference(twice, got, rs, std::string("STARZK_MSM_PAIRS=auto, STARZK_KEY_STREAM=") + stream);
    const int parts = int(witnesses.size()), b_g2 = got.count("b_g2_msm", "cuda");
    EXPECT_GE(b_g2, (parts + 1) / 2) << stream;
    EXPECT_LT(b_g2, parts) << stream << ": no pair formed";
    // msm_h for every partition; L, A, B_g1 once per pair or partition alone.
    EXPECT_EQ(got.count("msm", "cuda"), parts + 3 * (g1 ? b_g2 : parts)) << stream;
    codelets::set_placement(any_place);
  }
}

// Ten partitions under a host budget of two and a half: a ready partition
// finds its partner waiting for memory that the partitions ahead of it
// hold, not its own head (a, b, c live on the device). Its tail waits
// parked for the partner all the same, since those partitions end without
// it: five pairs, not only the first.
TEST_P(dag_gpu_memory, pairs_form_throughout_a_batch_the_budget_holds_back) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  const test::scoped_env_t env("STARZK_KEY_STREAM", "b_g2"), pairs("STARZK_MSM_PAIRS", "auto");
  runtime::starpu_session session(test::gpu_session_options("starzk"));
  if (session.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  codelets::set_placement("spmv=any,ntt_h=any,msm=cuda,b_g2_msm=cuda");
  auto key = test::bundle(c);
  ASSERT_TRUE(key->rows_on_device()) << key->describe_memory_plan();
  ASSERT_TRUE(key->view().b_g2_pairs);
  test::prove_case_t ten = c;
  ten.witnesses.clear();
  for (size_t i = 0; i < 10; ++i) ten.witnesses.push_back(c.witnesses[i % c.witnesses.size()]);
  const blinding_t rs = test::test_blinding(46);
  const run_t got = prove_all(key, ten.witnesses, rs, 2, 2.5);
  expect_reference(ten, got, rs, "ten partitions, a budget of two and a half");
  EXPECT_EQ(got.count("b_g2_msm", "cuda"), 5) << "pairs formed among the first partitions only";
  EXPECT_LE(got.peak, got.cap);
  EXPECT_EQ(got.left, 0u);
  codelets::set_placement(any_place);
}

TEST_P(dag_gpu_memory, msms_that_cannot_fit_run_on_cpu_workers) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  const test::scoped_env_t env("STARZK_GPU_SCRATCH_MAX", "1");  // below any piece
  for (const char* policy : {"starzk", "dmdas"}) {
    runtime::starpu_session session(test::gpu_session_options(policy));
    if (session.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
    codelets::set_placement(any_place);
    auto key = test::bundle(c);
    EXPECT_EQ(key->view().scratch_max, 1u);
    const blinding_t rs = test::test_blinding(44);
    const run_t got = prove_all(key, c.witnesses, rs);
    expect_reference(c, got, rs, std::string("scratch cap 1 under ") + policy);
    const int parts = int(c.witnesses.size());
    EXPECT_EQ(got.count("msm", "cpu"), 4 * parts) << policy;
    EXPECT_EQ(got.count("b_g2_msm", "cpu"), parts) << policy;
    EXPECT_EQ(got.count("msm", "cuda"), 0) << policy;
  }
}

TEST_P(dag_gpu_memory, msms_pinned_to_the_gpu_without_memory_compute_on_the_host) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  const test::scoped_env_t env("STARZK_GPU_SCRATCH_MAX", "1");
  runtime::starpu_session session(test::gpu_session_options("starzk"));
  if (session.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  codelets::set_placement("spmv=any,ntt_h=any,msm=cuda,b_g2_msm=cuda");
  auto key = test::bundle(c);
  const blinding_t rs = test::test_blinding(45);
  const run_t got = prove_all(key, c.witnesses, rs);
  expect_reference(c, got, rs, "pinned to the GPU, scratch cap 1");
  EXPECT_EQ(got.count("msm", "cuda"), 4 * int(c.witnesses.size()));
  codelets::set_placement(any_place);
}

INSTANTIATE_TEST_SUITE_P(cases, dag_gpu_memory, ::testing::Values("multiplier", "gen-snarkjs", "gen-bellman"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace starzk::test
