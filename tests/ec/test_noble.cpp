// Cross-check against @noble/curves, an independent BLS12-381 (JavaScript).
//
// tests/oracles/noble_ec.mjs prints the compressed zcash encodings of [k]G1
// and [k]G2 for the scalars on its command line; we compute the same with
// mul() and encode_*_compressed() and compare byte for byte. This checks the
// scalar multiplication, the generators, the sort flag rule (Fp and Fp2) and
// the G2 coordinate order at once. Skipped, with the reason, when node or the
// npm module (installed by scripts/setup.sh) is missing.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "ec/encoding.hpp"
#include "ec_test_util.hpp"

namespace starzk {
namespace {

std::string run(const std::string& cmd) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  if (pclose(f) != 0) out.clear();
  return out;
}

TEST(ec_noble, scalar_multiples_of_the_generators) {
  const std::string oracles = STARZK_ORACLES;
  if (std::system("command -v node > /dev/null 2>&1") != 0) GTEST_SKIP() << "node is not on PATH";
  if (!std::filesystem::exists(oracles + "/node_modules/@noble/curves/package.json"))
    GTEST_SKIP() << "@noble/curves is not installed in " << oracles << "/node_modules (run scripts/setup.sh)";

  std::vector<fr_t> scalars = {fr_t::zero(), fr_t::one(), -fr_t::one(), fr_t::from_u64(0xffffffffffffffffull)};
  for (int i = 0; i < 6; ++i) scalars.push_back(test::random_scalar());
  std::string cmd = "node '" + oracles + "/noble_ec.mjs'";
  for (const fr_t& s : scalars) {
    cmd += ' ';
    cmd += s.to_decimal();
  }
  const std::string out = run(cmd + " 2>&1");
  ASSERT_FALSE(out.empty()) << "oracle failed: " << cmd;

  std::istringstream lines(out);
  for (const fr_t& s : scalars) {
    std::string k, g1_hex, g2_hex;
    ASSERT_TRUE(lines >> k >> g1_hex >> g2_hex) << "short oracle output:\n" << out;
    ASSERT_EQ(k, s.to_decimal());
    uint8_t c1[48], c2[96];
    encode_g1_compressed(mul(g1_affine_t::generator(), s).to_affine(), c1);
    encode_g2_compressed(mul(g2_affine_t::generator(), s).to_affine(), c2);
    EXPECT_EQ(test::to_hex(c1, 48), g1_hex) << "k = " << k;
    EXPECT_EQ(test::to_hex(c2, 96), g2_hex) << "k = " << k;
    // And noble's bytes decode to our point.
    g2_affine_t back;
    ASSERT_EQ(decode_g2_compressed(test::from_hex(g2_hex).data(), back), decode_status::ok);
    EXPECT_EQ(back, mul(g2_affine_t::generator(), s).to_affine());
  }
}

}  // namespace
}  // namespace starzk
