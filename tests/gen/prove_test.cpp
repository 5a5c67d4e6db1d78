// A 2^10 generated circuit through the real Groth16 path: development setup
// (bellman coset convention, as Filecoin), prove, verify; a proof for one
// partition does not verify with another partition's public inputs.
#include <gtest/gtest.h>

#include "gen/filecoin_shape.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "groth16/witness_map.hpp"

namespace starzk {
namespace {

TEST(GenProve, ProofOfAGeneratedWitnessVerifies) {
  const gen_params_t params{10, 328, 17};
  const r1cs_t cs = generate_circuit(params);
  const proving_key_t pk = setup(cs, root_convention_t::bellman);
  const std::vector<fr_t> w0 = generate_witness(params, cs, 0);
  const std::vector<fr_t> w1 = generate_witness(params, cs, 1);
  // groth16's own check agrees with the gen tests' local one.
  EXPECT_FALSE(first_unsatisfied_row(cs, w0).has_value());
  EXPECT_EQ(domain_size_for(cs), 1024u);
  std::vector<fr_t> bad = w0;
  bad.back() += fr_t::one();
  EXPECT_TRUE(first_unsatisfied_row(cs, bad).has_value());
  const proof_t proof = prove(pk, &cs, w0);
  const std::vector<fr_t> x0 = public_inputs(pk, w0), x1 = public_inputs(pk, w1);
  ASSERT_EQ(x0.size(), cs.n_public);
  EXPECT_TRUE(verify(pk.vk, x0, proof));
  ASSERT_NE(x0, x1);
  EXPECT_FALSE(verify(pk.vk, x1, proof));
  EXPECT_TRUE(verify(pk.vk, x1, prove(pk, &cs, w1)));
}

}  // namespace
}  // namespace starzk
