// A whole development setup on the GPU against the CPU path, same toxic
// waste: the proving keys must be identical field by field (queries a,
// b_g1, b_g2, l, h, the vk with ic, the single points, the .zkey matrices),
// in both H conventions, with the default chunk and with chunks of 1000 and
// 333 scalars (pieces that straddle the query boundaries, many pipeline
// turns). Generated Filecoin-shaped circuits (src/gen): ~13% of the a
// query and ~36% of b are O, so points at infinity are covered. Also: a
// GPU key proves and verifies, and setup_info_t names the device.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "gen/filecoin_shape.hpp"
#include "gpu_test_util.hpp"
#include "groth16/gpu_backend.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"

namespace starzk {
namespace {

toxic_waste_t seeded_toxic_waste(std::mt19937_64& rng) {
  auto nz = [&] {
    fr_t v;
    do v = fr_t::random(rng);
    while (v.is_zero());
    return v;
  };
  return toxic_waste_t{nz(), nz(), nz(), nz(), nz()};
}

template <class V>
void expect_same(const V& cpu, const V& gpu, const char* what) {
  ASSERT_EQ(cpu.size(), gpu.size()) << what;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < cpu.size(); ++i)
    if (!(cpu[i] == gpu[i]) && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " points differ, first at " << first;
}

void expect_same_key(const proving_key_t& c, const proving_key_t& g) {
  expect_same(c.a, g.a, "a");
  expect_same(c.b_g1, g.b_g1, "b_g1");
  expect_same(c.b_g2, g.b_g2, "b_g2");
  expect_same(c.l, g.l, "l");
  expect_same(c.h, g.h, "h");
  expect_same(c.vk.ic, g.vk.ic, "ic");
  EXPECT_TRUE(c.alpha_g1 == g.alpha_g1 && c.beta_g1 == g.beta_g1 && c.delta_g1 == g.delta_g1);
  EXPECT_TRUE(c.beta_g2 == g.beta_g2 && c.delta_g2 == g.delta_g2);
  EXPECT_TRUE(c.vk == g.vk);
  EXPECT_TRUE(c == g);  // everything, the .zkey matrices and counts included
}

struct setup_case {
  unsigned log2;
  uint32_t n_public;
  root_convention_t conv;
};

class CudaSetup : public ::testing::TestWithParam<setup_case> {};

TEST_P(CudaSetup, GpuKeyEqualsCpuKey) {
  SZK_REQUIRE_GPU();
  const setup_case c = GetParam();
  auto rng = gpu::test::seeded_rng();
  const r1cs_t cs = generate_circuit(gen_params_t{c.log2, c.n_public, rng()});
  const toxic_waste_t tw = seeded_toxic_waste(rng);

  setup_options_t cpu_o;
  cpu_o.device = setup_device_t::cpu;
  const proving_key_t cpu = setup(cs, c.conv, tw, cpu_o);
  size_t o_count = 0;
  for (const auto& p : cpu.a) o_count += p.is_infinity();
  EXPECT_GT(o_count, 0u) << "the circuit should leave some a[j] = O";

  for (uint64_t chunk : {uint64_t(0), uint64_t(1000), uint64_t(333)}) {
    SCOPED_TRACE("gpu_chunk=" + std::to_string(chunk));
    setup_info_t info;
    setup_options_t o;
    o.device = setup_device_t::gpu;
    o.gpu_chunk = chunk;
    o.info = &info;
    const proving_key_t gpu = setup(cs, c.conv, tw, o);
    EXPECT_TRUE(info.used_gpu);
    EXPECT_EQ(info.device.rfind("GPU", 0), 0u) << info.device;
    expect_same_key(cpu, gpu);
  }

  // auto picks the device where there is one.
  setup_info_t info;
  setup_options_t o;
  o.info = &info;
  EXPECT_TRUE(setup(cs, c.conv, tw, o) == cpu);
  EXPECT_TRUE(info.used_gpu);
}

// Linking starzk_gpu_backend installs the CUDA table before main (no GPU
// needed to check): without it the GPU tests of setup and validation would
// skip as if there were no device.
TEST(CudaSetupBackend, InstalledByLinking) {
  const groth16_gpu_backend_t* b = groth16_gpu_backend();
  ASSERT_NE(b, nullptr);
  std::string why;
  if (!setup_gpu_available(&why)) {
    EXPECT_EQ(why.find("no GPU backend"), std::string::npos) << why;
  }
}

TEST(CudaSetupProve, GpuKeyProvesAndVerifies) {
  SZK_REQUIRE_GPU();
  const gen_params_t params{10, 16, 5};
  const r1cs_t cs = generate_circuit(params);
  setup_options_t o;
  o.device = setup_device_t::gpu;
  for (root_convention_t conv : {root_convention_t::bellman, root_convention_t::snarkjs}) {
    const proving_key_t pk = setup(cs, conv, o);
    const std::vector<fr_t> w = generate_witness(params, cs, 0);
    const proof_t proof = prove(pk, &cs, w);
    const std::vector<fr_t> x = public_inputs(pk, w);
    EXPECT_TRUE(verify(pk.vk, x, proof));
    std::vector<fr_t> x2 = x;
    x2[0] += fr_t::one();
    EXPECT_FALSE(verify(pk.vk, x2, proof));
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaSetup,
                         ::testing::Values(setup_case{10, 328, root_convention_t::bellman},
                                           setup_case{10, 328, root_convention_t::snarkjs},
                                           setup_case{11, 20, root_convention_t::bellman},
                                           setup_case{11, 20, root_convention_t::snarkjs}),
                         [](const ::testing::TestParamInfo<setup_case>& i) {
                           return "k" + std::to_string(i.param.log2) + "_pub" + std::to_string(i.param.n_public) +
                                  (i.param.conv == root_convention_t::bellman ? "_bellman" : "_snarkjs");
                         });

}  // namespace
}  // namespace starzk
