// snarkjs as the outside oracle. On circuits compiled by circom with keys
// from `snarkjs groth16 setup` (tests/fixtures, made by make-fixtures.sh):
//  - our proofs pass `snarkjs groth16 verify`, and ours;
//  - snarkjs's own proofs pass our verifier;
//  - a tampered proof or public input fails both;
//  - a .zkey written by our development setup is accepted by
//    `snarkjs groth16 prove`, and that proof passes our verifier.
// Skipped (not passed) when node or the npm oracles are missing.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "io/proof_json.hpp"
#include "io/r1cs.hpp"
#include "io/vkey_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"

namespace starzk {
namespace {

namespace fs = std::filesystem;
const fs::path fixtures = fs::path(STARZK_TEST_DATA) / "fixtures";
const fs::path snarkjs_cli = fs::path(STARZK_ORACLES) / "node_modules" / "snarkjs" / "build" / "cli.cjs";

bool have_snarkjs() { return fs::exists(snarkjs_cli) && std::system("node --version > /dev/null 2>&1") == 0; }

// Runs `node snarkjs ARGS`, returns its exit status.
int snarkjs(const std::string& args) {
  const std::string cmd = "node " + snarkjs_cli.string() + " " + args + " > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

fs::path scratch_dir() {
  fs::path d = fs::temp_directory_path() / ("starzk-oracle-" + std::to_string(std::random_device{}()));
  fs::create_directories(d);
  return d;
}

int snarkjs_verify(const fs::path& vk, const fs::path& pub, const fs::path& proof) {
  return snarkjs("groth16 verify " + vk.string() + " " + pub.string() + " " + proof.string());
}

class SnarkjsOracle : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (!have_snarkjs()) GTEST_SKIP() << "node or snarkjs missing (run scripts/setup.sh)";
    dir_ = scratch_dir();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_P(SnarkjsOracle, OurProofsPassSnarkjsAndTheirsPassOurs) {
  const fs::path fx = fixtures / GetParam();
  const proving_key_t pk = read_zkey(fx / "circuit.zkey");
  const r1cs_t cs = read_r1cs(fx / "circuit.r1cs");
  const std::vector<fr_t> w = read_wtns(fx / "witness.wtns", pk.n_vars);
  const verifying_key_t vk = read_vkey_json(fx / "verification_key.json");
  EXPECT_EQ(vk, pk.vk);

  // Ours, with and without the circuit.
  const proof_t proof = prove(pk, &cs, w);
  EXPECT_TRUE(verify(vk, public_inputs(pk, w), proof));
  EXPECT_TRUE(verify(vk, public_inputs(pk, w), prove(pk, nullptr, w)));
  write_proof_json(dir_ / "proof.json", proof);
  write_public_json(dir_ / "public.json", public_inputs(pk, w));
  EXPECT_EQ(snarkjs_verify(fx / "verification_key.json", dir_ / "public.json", dir_ / "proof.json"), 0);
  EXPECT_EQ(read_public_json(dir_ / "public.json"), read_public_json(fx / "public.json"));

  // Theirs.
  EXPECT_TRUE(verify(vk, read_public_json(fx / "public.json"), read_proof_json(fx / "proof.json")));

  // Tampered proof: both reject.
  proof_t bad = proof;
  bad.a = -bad.a;
  write_proof_json(dir_ / "bad.json", bad);
  EXPECT_FALSE(verify(vk, public_inputs(pk, w), bad));
  EXPECT_EQ(snarkjs_verify(fx / "verification_key.json", dir_ / "public.json", dir_ / "bad.json"), 1);

  // Tampered public input: both reject.
  std::vector<fr_t> x = public_inputs(pk, w);
  ASSERT_FALSE(x.empty());
  x[0] += fr_t::one();
  write_public_json(dir_ / "bad_public.json", x);
  EXPECT_FALSE(verify(vk, x, proof));
  EXPECT_EQ(snarkjs_verify(fx / "verification_key.json", dir_ / "bad_public.json", dir_ / "proof.json"), 1);
}

TEST_P(SnarkjsOracle, SnarkjsProvesWithOurDevelopmentKey) {
  const fs::path fx = fixtures / GetParam();
  const r1cs_t cs = read_r1cs(fx / "circuit.r1cs");
  const proving_key_t pk = setup(cs, root_convention_t::snarkjs);
  write_zkey(dir_ / "ours.zkey", pk);
  write_vkey_json(dir_ / "vk.json", pk.vk);
  ASSERT_EQ(snarkjs("groth16 prove " + (dir_ / "ours.zkey").string() + " " + (fx / "witness.wtns").string() + " " +
                    (dir_ / "proof.json").string() + " " + (dir_ / "public.json").string()),
            0);
  EXPECT_TRUE(verify(pk.vk, read_public_json(dir_ / "public.json"), read_proof_json(dir_ / "proof.json")));
  EXPECT_EQ(snarkjs_verify(dir_ / "vk.json", dir_ / "public.json", dir_ / "proof.json"), 0);
  // And the key reads back identically.
  EXPECT_EQ(read_zkey(dir_ / "ours.zkey"), pk);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SnarkjsOracle, ::testing::Values("multiplier", "bits", "mimc"));

}  // namespace
}  // namespace starzk
