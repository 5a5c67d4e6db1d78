// Known answers for the pairing value itself, which the property tests
// cannot pin down (any power of a pairing is bilinear too): e(G1, G2) for the
// standard generators, fixed below, and e([a]G1, [b]G2) for random a, b
// compared with @noble/curves through tests/oracles/noble_pairing.mjs (an
// independent implementation; skipped when node or the module is missing).
//
// Coefficient order, ours and the oracle's (same tower u^2 = -1, v^3 = u+1,
// w^2 = v, checked in noble's tower.js): c0.c0.c0, c0.c0.c1, c0.c1.c0, ...,
// c1.c2.c1, i.e. f = C0 + C1 w, C_i = c0 + c1 v + c2 v^2, c_j = c0 + c1 u.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "pairing_test_util.hpp"

namespace starzk {
namespace {

std::array<std::string, 12> coefficients_hex(const fp12_t& f) {
  std::array<std::string, 12> out;
  size_t k = 0;
  for (const fp6_t* c6 : {&f.c0, &f.c1})
    for (const fp2_t* c2 : {&c6->c0, &c6->c1, &c6->c2})
      for (const fp_t* c : {&c2->c0, &c2->c1}) out[k++] = c->to_hex().substr(2);  // drop "0x"
  return out;
}

// e(G1, G2), the value zkcrypto bls12_381, blst and noble agree on
// (printed by `node tests/oracles/noble_pairing.mjs 1 1`).
const std::array<std::string, 12> e_g1_g2 = {
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
    "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
    "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631"};

TEST(PairingKnownAnswer, GeneratorsMatchTheReferenceValue) {
  EXPECT_EQ(coefficients_hex(pairing(g1_affine_t::generator(), g2_affine_t::generator())), e_g1_g2);
}

TEST(PairingKnownAnswer, RandomScalarsMatchNoble) {
  const std::filesystem::path oracle = std::filesystem::path(STARZK_ORACLES) / "noble_pairing.mjs";
  const std::filesystem::path module =
      std::filesystem::path(STARZK_ORACLES) / "node_modules" / "@noble" / "curves" / "package.json";
  if (!std::filesystem::exists(module)) GTEST_SKIP() << "@noble/curves not installed (scripts/setup.sh)";
  if (std::system("node --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "node not on PATH";

  std::vector<std::pair<fr_t, fr_t>> cases = {{fr_t::from_u64(2), fr_t::from_u64(3)},
                                              {-fr_t::one(), fr_t::from_u64(5)}};
  for (int i = 0; i < 3; ++i) cases.emplace_back(test::random_scalar(), test::random_scalar());

  // Built with += only: `"literal" + std::string` trips a GCC 12 -Wrestrict false positive.
  std::string cmd = "node \"";
  cmd += oracle.string();
  cmd += '"';
  for (const auto& [a, b] : cases) {
    cmd += ' ';
    cmd += a.to_decimal();
    cmd += ' ';
    cmd += b.to_decimal();
  }
  cmd += " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr) << cmd;
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  ASSERT_EQ(pclose(pipe), 0) << "oracle failed:\n" << output;

  std::istringstream lines(output);
  for (const auto& [a, b] : cases) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line)) << "oracle printed too few lines:\n" << output;
    std::istringstream fields(line);
    std::string sa, sb;
    std::array<std::string, 12> theirs;
    fields >> sa >> sb;
    for (std::string& c : theirs) fields >> c;
    ASSERT_EQ(sa, a.to_decimal());
    ASSERT_EQ(sb, b.to_decimal());
    const fp12_t ours = pairing(test::g1_times(a), test::g2_times(b));
    EXPECT_EQ(coefficients_hex(ours), theirs) << "a = " << sa << ", b = " << sb;
  }
}

}  // namespace
}  // namespace starzk
