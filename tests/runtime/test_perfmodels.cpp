// Seeding calibrated performance models: files land under StarPU's codelet
// model folder with this host's name, a model this host already has is
// never overwritten (an empty one StarPU wrote is replaced), a second
// seeding copies nothing, and a missing folder is a clear error.
// STARPU_PERF_MODEL_DIR / STARPU_HOSTNAME point StarPU's lookup into a
// temporary folder.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "../test_support.hpp"
#include "runtime/perfmodels.hpp"

namespace starzk::runtime {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(perfmodels, seeds_missing_models_only) {
  const fs::path root = fs::temp_directory_path() / ("starzk-perfmodels-" + std::to_string(getpid()));
  fs::remove_all(root);
  test::scoped_env_t dir("STARPU_PERF_MODEL_DIR", (root / "sampling").string());
  test::scoped_env_t host("STARPU_HOSTNAME", "testhost");
  EXPECT_EQ(perfmodel_hostname(), "testhost");
  EXPECT_EQ(perfmodel_codelet_dir(), root / "sampling" / "codelets" / "45");

  const fs::path src = root / "shipped";
  write(src / "codelets" / "45" / "starzk_msm.h200", "msm model\n");
  write(src / "codelets" / "45" / "starzk_ntt_h.h200", "ntt model\n");
  write(src / "codelets" / "45" / "starzk_spmv.h200", "spmv model\n");
  write(perfmodel_codelet_dir() / "starzk_ntt_h.testhost", "learned here\n# number of combinations\n1\n");
  // What StarPU writes at shutdown for a model a run loaded but never measured.
  write(perfmodel_codelet_dir() / "starzk_spmv.testhost",
        "##################\n# Performance Model Version\n45\n\n####################\n# COMBs\n"
        "# number of combinations\n0\n");

  EXPECT_EQ(seed_perfmodels(src), 2u);
  EXPECT_EQ(test::read_text(perfmodel_codelet_dir() / "starzk_msm.testhost"), "msm model\n");
  EXPECT_EQ(test::read_text(perfmodel_codelet_dir() / "starzk_spmv.testhost"), "spmv model\n");
  EXPECT_EQ(test::read_text(perfmodel_codelet_dir() / "starzk_ntt_h.testhost"),
            "learned here\n# number of combinations\n1\n");
  EXPECT_EQ(seed_perfmodels(src), 0u);
  // The files themselves (without codelets/45 above them) work too.
  write(root / "flat" / "starzk_prep_msm.other", "prep\n");
  EXPECT_EQ(seed_perfmodels(root / "flat"), 1u);
  EXPECT_TRUE(fs::exists(perfmodel_codelet_dir() / "starzk_prep_msm.testhost"));

  try {
    seed_perfmodels(root / "missing");
    FAIL() << "a missing folder must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace starzk::runtime
