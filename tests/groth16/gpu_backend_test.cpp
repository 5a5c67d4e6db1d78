// The GPU backend table (groth16/gpu_backend.hpp) with a stand-in device:
// setup and key validation go through the installed table and nothing
// else, a device that finds a bad point is believed, and with no table
// every device query says this program has no GPU backend. Each test
// puts back the table it found (none: this binary does not link the CUDA
// backend, whose presence tests/cuda/setup_gpu_test.cpp checks).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "gen/filecoin_shape.hpp"
#include "groth16/gpu_backend.hpp"
#include "groth16/key_validation.hpp"
#include "groth16/setup.hpp"
#include "io/zkey.hpp"

namespace starzk {
namespace {

using key_validation_detail::bad_point_t;
using key_validation_detail::gpu_scanner_t;
using key_validation_detail::key_fault_t;

std::atomic<int> scans{0}, products{0};

// Reports every point of a G2 query fine and point 1 of a G1 query of more
// than one point off its curve, whatever the points are.
class fake_scanner_t final : public gpu_scanner_t {
 public:
  std::optional<bad_point_t> scan(std::span<const g1_affine_t> points, bool) override {
    ++scans;
    if (points.size() > 1) return bad_point_t{1, key_fault_t::off_curve};
    return std::nullopt;
  }
  std::optional<bad_point_t> scan(std::span<const g2_affine_t>, bool) override {
    ++scans;
    return std::nullopt;
  }
};

constexpr groth16_gpu_backend_t fake{
    [](std::string*) { return true; },
    [](proving_key_t&, const setup_detail::query_scalars_t&, uint64_t, unsigned) -> std::string {
      ++products;
      throw std::runtime_error("the stand-in device makes no products");
    },
    [](const setup_detail::query_scalars_t&, const setup_detail::query_sinks_t&, uint64_t, unsigned) -> std::string {
      throw std::runtime_error("the stand-in device streams nothing");
    },
    [] { return std::string("GPU 0: stand-in"); },
    [] { return std::unique_ptr<gpu_scanner_t>(std::make_unique<fake_scanner_t>()); },
};

// Installs `b` for the scope of one test, then puts back what was there.
class with_backend_t {
 public:
  explicit with_backend_t(const groth16_gpu_backend_t* b) : before_(install_groth16_gpu_backend(b)) {}
  ~with_backend_t() { install_groth16_gpu_backend(before_); }

 private:
  const groth16_gpu_backend_t* before_;
};

const proving_key_t& small_key() {
  static const proving_key_t k =
      read_zkey(std::filesystem::path(STARZK_TEST_DATA) / "fixtures" / "multiplier" / "circuit.zkey");
  return k;
}

TEST(gpu_backend, setup_on_the_gpu_calls_the_installed_table) {
  const with_backend_t installed(&fake);
  EXPECT_EQ(groth16_gpu_backend(), &fake);
  EXPECT_TRUE(setup_gpu_available());
  const r1cs_t cs = generate_circuit(gen_params_t{10, 8, 1});
  setup_options_t o;
  o.device = setup_device_t::gpu;
  products = 0;
  try {
    (void)setup(cs, root_convention_t::bellman, o);
    FAIL() << "setup succeeded on a device that makes no products";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the stand-in device makes no products"), std::string::npos) << e.what();
  }
  EXPECT_EQ(products.load(), 1);
  // The CPU choice never asks the device.
  o.device = setup_device_t::cpu;
  EXPECT_NO_THROW((void)setup(cs, root_convention_t::bellman, o));
  EXPECT_EQ(products.load(), 1);
}

TEST(gpu_backend, key_validation_believes_the_device) {
  const with_backend_t installed(&fake);
  scans = 0;
  try {
    (void)validate_key(small_key(), {.device = setup_device_t::gpu, .threads = 1});
    FAIL() << "the device's bad point was not reported";
  } catch (const key_validation_error& e) {
    EXPECT_NE(std::string(e.what()).find("point 1"), std::string::npos) << e.what();
  }
  EXPECT_GT(scans.load(), 0);
  // The same key on the CPU is good: the answer came from the table.
  const key_validation_info_t info = validate_key(small_key(), {.device = setup_device_t::cpu, .threads = 1});
  EXPECT_FALSE(info.on_gpu);
}

TEST(gpu_backend, without_a_table_the_device_is_refused_by_name) {
  const with_backend_t none(nullptr);
  EXPECT_EQ(groth16_gpu_backend(), nullptr);
  std::string why;
  EXPECT_FALSE(setup_gpu_available(&why));
  EXPECT_NE(why.find("no GPU backend"), std::string::npos) << why;
  const r1cs_t cs = generate_circuit(gen_params_t{10, 8, 1});
  setup_options_t o;
  o.device = setup_device_t::gpu;
  try {
    (void)setup(cs, root_convention_t::bellman, o);
    FAIL() << "setup --gpu on succeeded without a GPU backend";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)validate_key(small_key(), {.device = setup_device_t::gpu, .threads = 1}), std::runtime_error);
  const key_validation_info_t info = validate_key(small_key(), {.device = setup_device_t::auto_, .threads = 1});
  EXPECT_FALSE(info.on_gpu);
}

}  // namespace
}  // namespace starzk
