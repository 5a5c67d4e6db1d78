// Choosing where setup's fixed-base products run, on a machine WITHOUT a
// CUDA device (CI): `--gpu on` must fail with a clear message and a
// non-zero exit, before writing anything; auto falls back to the CPU; the
// --gpu values parse. Where a device exists these cases skip (the GPU side
// is tests/cuda/setup_gpu_test.cpp, label gpu).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "../run_binary.hpp"
#include "gen/filecoin_shape.hpp"
#include "groth16/setup.hpp"

namespace starzk {
namespace {

namespace fs = std::filesystem;

#define SZK_REQUIRE_NO_GPU()                                                                       \
  do {                                                                                             \
    if (setup_gpu_available()) GTEST_SKIP() << "a CUDA device is present: the GPU tests cover it"; \
  } while (0)

fs::path scratch_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("starzk-setup-device-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

TEST(SetupDevice, ParsesTheGpuOption) {
  EXPECT_EQ(parse_setup_device("auto"), setup_device_t::auto_);
  EXPECT_EQ(parse_setup_device("on"), setup_device_t::gpu);
  EXPECT_EQ(parse_setup_device("off"), setup_device_t::cpu);
  EXPECT_EQ(parse_setup_device("gpu"), setup_device_t::gpu);
  EXPECT_EQ(parse_setup_device("cpu"), setup_device_t::cpu);
  EXPECT_THROW(parse_setup_device("yes"), std::invalid_argument);
  EXPECT_THROW(parse_setup_device(""), std::invalid_argument);
}

TEST(SetupDevice, GpuWithoutDeviceThrowsAClearError) {
  SZK_REQUIRE_NO_GPU();
  std::string why;
  EXPECT_FALSE(setup_gpu_available(&why));
  EXPECT_FALSE(why.empty());
  const r1cs_t cs = generate_circuit(gen_params_t{10, 8, 1});
  setup_options_t o;
  o.device = setup_device_t::gpu;
  try {
    (void)setup(cs, root_convention_t::bellman, o);
    FAIL() << "setup with device gpu succeeded without a device";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("GPU"), std::string::npos) << m;
    EXPECT_NE(m.find(why), std::string::npos) << m;
    EXPECT_NE(m.find("--gpu off"), std::string::npos) << m;
  }
}

TEST(SetupDevice, AutoFallsBackToTheCpu) {
  SZK_REQUIRE_NO_GPU();
  const r1cs_t cs = generate_circuit(gen_params_t{10, 8, 2});
  const toxic_waste_t tw = random_toxic_waste();
  setup_info_t info;
  setup_options_t o;
  o.info = &info;
  o.threads = 2;
  const proving_key_t pk = setup(cs, root_convention_t::bellman, tw, o);
  EXPECT_FALSE(info.used_gpu);
  EXPECT_EQ(info.device.rfind("CPU", 0), 0u) << info.device;
  EXPECT_GT(info.total_s, 0.0);
  EXPECT_TRUE(pk == setup(cs, root_convention_t::bellman, tw, 2u));  // the historical signature: same key
}

TEST(SetupDevice, CliGpuOnWithoutDeviceFails) {
  SZK_REQUIRE_NO_GPU();
  const fs::path dir = scratch_dir("cli");
  fs::create_directories(dir);
  const std::string r1cs = std::string(STARZK_TEST_DATA) + "/fixtures/multiplier/circuit.r1cs";
  const auto setup_run =
      test::run_binary(STARZK_BIN, "setup --r1cs " + r1cs + " --params " + (dir / "k.params").string() + " --gpu on");
  EXPECT_NE(setup_run.status, 0) << setup_run.output;
  EXPECT_NE(setup_run.output.find("GPU"), std::string::npos) << setup_run.output;
  EXPECT_NE(setup_run.output.find("--gpu off"), std::string::npos) << setup_run.output;
  // The program gives the reason this test's own setup gives: both carry
  // the GPU backend where the build has CUDA (groth16/gpu_backend.hpp), so
  // neither says it has none.
  std::string why;
  EXPECT_FALSE(setup_gpu_available(&why));
  EXPECT_NE(setup_run.output.find(why), std::string::npos) << setup_run.output << "\nwant: " << why;
  EXPECT_FALSE(fs::exists(dir / "k.params"));

  const fs::path out = dir / "job";
  const auto gen_run = test::run_binary(STARZK_BIN, "gen --log2 10 --public 4 --out " + out.string() + " --gpu on");
  EXPECT_NE(gen_run.status, 0) << gen_run.output;
  EXPECT_NE(gen_run.output.find("--gpu on"), std::string::npos) << gen_run.output;
  EXPECT_FALSE(fs::exists(out / "circuit.r1cs")) << "gen wrote files before failing";

  const auto bad = test::run_binary(
      STARZK_BIN, "setup --r1cs " + r1cs + " --params " + (dir / "k.params").string() + " --gpu maybe");
  EXPECT_NE(bad.status, 0) << bad.output;

  // --gpu off (and auto, here) make a key.
  const auto off =
      test::run_binary(STARZK_BIN, "setup --r1cs " + r1cs + " --params " + (dir / "k.params").string() + " --gpu off");
  EXPECT_EQ(off.status, 0) << off.output;
  EXPECT_NE(off.output.find("on CPU"), std::string::npos) << off.output;
  EXPECT_TRUE(fs::exists(dir / "k.params"));

  // prove: --gpu on fails before writing, off and auto prove on the CPU.
  const std::string fx = std::string(STARZK_TEST_DATA) + "/fixtures/multiplier/";
  const std::string prove = "prove --zkey " + fx + "circuit.zkey --wtns " + fx + "witness.wtns --proof ";
  const auto prove_on = test::run_binary(STARZK_BIN, prove + (dir / "p_on.json").string() + " --gpu on");
  EXPECT_NE(prove_on.status, 0) << prove_on.output;
  EXPECT_NE(prove_on.output.find("--gpu on"), std::string::npos) << prove_on.output;
  EXPECT_FALSE(fs::exists(dir / "p_on.json"));
  for (const char* mode : {"off", "auto"}) {
    const fs::path proof = dir / (std::string("p_") + mode + ".json");
    const auto r = test::run_binary(STARZK_BIN, prove + proof.string() + " --gpu " + mode);
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(", CPU)"), std::string::npos) << r.output;
    EXPECT_TRUE(fs::exists(proof));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace starzk
