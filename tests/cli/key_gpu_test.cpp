// `starzk prove --zkey` on a GPU machine (label gpu; skipped where
// `--gpu on` finds no CUDA device): a key seen for the first time is
// validated on the device before the proof. A good key: the proof is
// written and the key remembered, then a second run only hashes it. A key
// with one point outside its subgroup: the run fails as a bad input file
// (status 3) naming the file, the query and the point; no proof file and no
// record are left.
#include <gtest/gtest.h>

#include <random>

#include "cli_harness.hpp"
#include "ec/encoding.hpp"
#include "key_test_util.hpp"

namespace starzk::test {
namespace {

const fs::path fixture = fs::path(STARZK_TEST_DATA) / "fixtures" / "multiplier";

class KeyOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("starzk-keygpu-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    fs::copy_file(fixture / "circuit.zkey", zkey());
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path zkey() const { return dir_ / "circuit.zkey"; }
  fs::path proof() const { return dir_ / "proof.json"; }
  size_t records() const { return validation_records(dir_ / "records"); }
  run_result prove() const {
    return run_binary(STARZK_BIN,
                      "prove --gpu on --zkey " + zkey().string() + " --wtns " + (fixture / "witness.wtns").string() +
                          " --proof " + proof().string() + " --public " + (dir_ / "public.json").string(),
                      "STARZK_VALIDATED_KEYS=" + (dir_ / "records").string());
  }
  // True when this machine has no GPU for `--gpu on` (the test skips).
  static bool no_gpu(const run_result& r) { return r.status == 4 && r.output.find("--gpu on:") != std::string::npos; }
  fs::path dir_;
};

TEST_F(KeyOnGpu, AFirstKeyIsValidatedOnTheDeviceAndRemembered) {
  run_result r = prove();
  if (no_gpu(r)) GTEST_SKIP() << r.output;
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(" points validated on GPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(", remembered"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(proof()));
  EXPECT_EQ(records(), 1u);
  r = prove();
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("circuit.zkey: validated before (digest "), std::string::npos) << r.output;
}

TEST_F(KeyOnGpu, AKeyOutsideItsSubgroupReleasesNoProof) {
  auto b = read_all(zkey());
  encode_g1_snarkjs(g1_outside_subgroup(), b.data() + find_section(b, 9).offset + 3 * 96);  // H query, point 3
  write_all(zkey(), b);
  const run_result r = prove();
  if (no_gpu(r)) GTEST_SKIP() << r.output;
  EXPECT_EQ(r.status, 3) << r.output;  // a bad input file (docs/usage.md, "Exit status")
  EXPECT_NE(r.output.find("circuit.zkey: h point 3: not in the prime-order subgroup"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(proof()));
  EXPECT_FALSE(fs::exists(dir_ / "public.json"));
  EXPECT_EQ(records(), 0u);
}

}  // namespace
}  // namespace starzk::test
