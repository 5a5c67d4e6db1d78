// Our setup + prover + verifier round trip, in both H conventions, on
// circom circuits compiled by the outside toolchain (tests/fixtures): proofs
// verify; a tampered proof, a wrong public input, an unsatisfied witness
// all fail; fixed r, s give identical proofs; the 192-byte form round trips.
#include <gtest/gtest.h>

#include <filesystem>

#include "ec/scalar_mul.hpp"
#include "groth16/proof_bytes.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"

namespace starzk {
namespace {

const std::filesystem::path fixtures = std::filesystem::path(STARZK_TEST_DATA) / "fixtures";

struct circuit_case {
  const char* name;
  root_convention_t conv;
};

class RoundTrip : public ::testing::TestWithParam<circuit_case> {};

TEST_P(RoundTrip, ProveVerifyAndRejectTampering) {
  const auto [name, conv] = GetParam();
  const r1cs_t cs = read_r1cs(fixtures / name / "circuit.r1cs");
  std::vector<fr_t> w = read_wtns(fixtures / name / "witness.wtns", cs.n_vars);
  const proving_key_t pk = setup(cs, conv);

  const proof_t proof = prove(pk, &cs, w);
  const std::vector<fr_t> x = public_inputs(pk, w);
  EXPECT_TRUE(verify(pk.vk, x, proof));

  // Another proof of the same statement differs (fresh r, s) and verifies.
  const proof_t proof2 = prove(pk, &cs, w);
  EXPECT_FALSE(proof2 == proof);
  EXPECT_TRUE(verify(pk.vk, x, proof2));

  // Tampering: each point moved, a public input changed, wrong count.
  proof_t bad = proof;
  bad.a = g1_jacobian_t::from_affine(bad.a).add_mixed(g1_affine_t::generator()).to_affine();
  EXPECT_FALSE(verify(pk.vk, x, bad));
  bad = proof;
  bad.c = -bad.c;
  EXPECT_FALSE(verify(pk.vk, x, bad));
  bad = proof;
  bad.b = g2_jacobian_t::from_affine(bad.b).dbl().to_affine();
  EXPECT_FALSE(verify(pk.vk, x, bad));
  if (!x.empty()) {
    std::vector<fr_t> x2 = x;
    x2[0] += fr_t::one();
    EXPECT_FALSE(verify(pk.vk, x2, proof));
  }
  std::vector<fr_t> longer = x;
  longer.push_back(fr_t::one());
  EXPECT_FALSE(verify(pk.vk, longer, proof));

  // The 192-byte form decodes to the same proof.
  const auto bytes = encode_proof(proof);
  EXPECT_EQ(decode_proof(bytes), proof);

  // Fixed r, s: the prover is deterministic.
  const blinding_t rs{fr_t::from_u64(12345), fr_t::from_u64(67890)};
  EXPECT_EQ(prove_with_blinding(pk, &cs, w, rs), prove_with_blinding(pk, &cs, w, rs, 1));

  // An unsatisfied witness is refused, naming the row.
  w.back() += fr_t::one();
  try {
    prove(pk, &cs, w);
    ADD_FAILURE() << "an unsatisfied witness was accepted";
  } catch (const prove_error& e) {
    EXPECT_NE(std::string(e.what()).find("does not satisfy constraint"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RoundTrip,
                         ::testing::Values(circuit_case{"multiplier", root_convention_t::bellman},
                                           circuit_case{"multiplier", root_convention_t::snarkjs},
                                           circuit_case{"bits", root_convention_t::bellman},
                                           circuit_case{"bits", root_convention_t::snarkjs},
                                           circuit_case{"mimc", root_convention_t::bellman}),
                         [](const auto& info) {
                           return std::string(info.param.name) +
                                  (info.param.conv == root_convention_t::bellman ? "_bellman" : "_snarkjs");
                         });

TEST(Prover, RejectsMismatchedInputs) {
  const r1cs_t cs = read_r1cs(fixtures / "multiplier" / "circuit.r1cs");
  const std::vector<fr_t> w = read_wtns(fixtures / "multiplier" / "witness.wtns", cs.n_vars);
  const proving_key_t pk = setup(cs, root_convention_t::bellman);
  std::vector<fr_t> short_w(w.begin(), w.end() - 1);
  EXPECT_THROW(prove(pk, &cs, short_w), prove_error);
  std::vector<fr_t> w0 = w;
  w0[0] = fr_t::from_u64(2);
  EXPECT_THROW(prove(pk, &cs, w0), prove_error);
  EXPECT_THROW(prove(pk, nullptr, w), prove_error);  // a bellman key needs the circuit
  const r1cs_t other = read_r1cs(fixtures / "bits" / "circuit.r1cs");
  EXPECT_THROW(prove(pk, &other, w), prove_error);
}

}  // namespace
}  // namespace starzk
