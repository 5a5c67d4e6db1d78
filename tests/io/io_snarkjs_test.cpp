// snarkjs accepts what we write: a .zkey re-written by write_zkey (with an
// empty MPC transcript) is used by `snarkjs zkey export verificationkey`
// and `snarkjs groth16 prove`, and the proof verifies with
// `snarkjs groth16 verify`; our proof.json / public.json / vk writers are
// read back by snarkjs verify too. Skipped when node or the oracle packages
// (tests/oracles/node_modules) are missing.
#include <gtest/gtest.h>

#include <cstdlib>

#include "io/proof_json.hpp"
#include "io/vkey_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

std::string snarkjs() { return "node " + (fs::path(STARZK_ORACLES) / "node_modules/snarkjs/build/cli.cjs").string(); }

bool have_snarkjs() {
  return fs::exists(fs::path(STARZK_ORACLES) / "node_modules/snarkjs/build/cli.cjs") &&
         std::system("node --version > /dev/null 2>&1") == 0;
}

int run(const std::string& cmd) { return std::system((cmd + " > /dev/null 2>&1").c_str()); }

TEST(snarkjs_oracle, accepts_our_zkey_and_json) {
  if (!have_snarkjs()) GTEST_SKIP() << "node or snarkjs not installed (cd tests/oracles && npm install)";
  scratch_t tmp;
  const proving_key_t k = read_zkey(fixture("multiplier", "circuit.zkey"));
  write_zkey(tmp / "ours.zkey", k);
  const std::string s = snarkjs();
  const std::string d = tmp.dir().string() + "/";

  ASSERT_EQ(run(s + " zkey export verificationkey " + d + "ours.zkey " + d + "vk.json"), 0);
  EXPECT_EQ(read_vkey_json(tmp / "vk.json"), k.vk);
  ASSERT_EQ(run(s + " groth16 prove " + d + "ours.zkey " + fixture("multiplier", "witness.wtns").string() + " " + d +
                "proof.json " + d + "public.json"),
            0);
  EXPECT_EQ(run(s + " groth16 verify " + d + "vk.json " + d + "public.json " + d + "proof.json"), 0);

  // Our JSON writers, read by snarkjs: re-write all three files and verify.
  write_vkey_json(tmp / "vk2.json", read_vkey_json(tmp / "vk.json"));
  write_proof_json(tmp / "proof2.json", read_proof_json(tmp / "proof.json"));
  write_public_json(tmp / "public2.json", read_public_json(tmp / "public.json"));
  EXPECT_EQ(run(s + " groth16 verify " + d + "vk2.json " + d + "public2.json " + d + "proof2.json"), 0);

  // Must-fail: a wrong public input does not verify.
  auto pub = read_public_json(tmp / "public.json");
  pub[0] += fr_t::one();
  write_public_json(tmp / "public3.json", pub);
  EXPECT_NE(run(s + " groth16 verify " + d + "vk2.json " + d + "public3.json " + d + "proof2.json"), 0);
}

}  // namespace
}  // namespace starzk::test
