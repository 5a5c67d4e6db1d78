// A 16 GB card's batch through the DAG (label gpu; skipped without a CUDA
// device): a 2^22 Filecoin-shaped circuit, its development key and three
// partitions under STARPU_LIMIT_CUDA_MEM=16000 MiB, every placement the
// policy's and the memory plan's (docs/gpu.md, "Memory plan"), and every
// proof must verify. The smaller limits of the 2^18 batch, where each
// form of the plan is forced and checked from the trace, are in
// dag_gpu_memory_limited_test.cpp.
#include <cstdio>
#include <memory>
#include <string>

#include "codelets/codelets.hpp"
#include "dag_gpu_memory_util.hpp"
#include "dag_test_util.hpp"
#include "gen/filecoin_shape.hpp"
#include "groth16/setup.hpp"

namespace starzk::test {
namespace {

TEST(dag_gpu_memory_limited, batch_at_2_22_under_16000_mib_verifies) {
  if (!setup_gpu_available()) GTEST_SKIP() << "no CUDA device";
  const gen_params_t params{.log2_constraints = 22, .n_public = 8, .seed = 0x16};
  test::prove_case_t c;
  c.name = "gen-2^22";
  c.cs = std::make_shared<const r1cs_t>(generate_circuit(params));
  c.pk = std::make_shared<const proving_key_t>(setup(*c.cs, root_convention_t::bellman, setup_options_t{}));
  for (uint64_t p = 0; p < 3; ++p) c.witnesses.push_back(generate_witness(params, *c.cs, p));
  const test::scoped_env_t env("STARPU_LIMIT_CUDA_MEM", "16000");
  runtime::starpu_session session(test::gpu_session_options("starzk"));
  if (session.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  codelets::set_placement(any_place);
  auto key = test::bundle(c);
  std::printf("[ plan     ] %s\n", key->describe_memory_plan().c_str());
  const run_t got = prove_all(key, c.witnesses, test::test_blinding(22));
  ASSERT_EQ(got.proofs.size(), c.witnesses.size());
  for (uint32_t i = 0; i < c.witnesses.size(); ++i)
    EXPECT_TRUE(verify(c.pk->vk, public_inputs(*c.pk, c.witnesses[i]), got.proofs.at(i))) << "partition " << i;
}

}  // namespace
}  // namespace starzk::test
