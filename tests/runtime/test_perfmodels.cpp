// Seeding calibrated performance models: files land under StarPU's codelet
// model folder with this host's name, a model this host already has is
// never overwritten (an empty one StarPU wrote is replaced; one it measured
// gains the shipped entries it lacks or holds short of the calibration
// minimum, and keeps the rest), a second seeding copies nothing, and a
// missing folder is a clear error.
// STARPU_PERF_MODEL_DIR / STARPU_HOSTNAME point StarPU's lookup into a
// temporary folder.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "../test_support.hpp"
#include "runtime/perfmodel_history.hpp"
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

history_entry_t entry(const char* arch, uint32_t footprint, double mean_us, unsigned n) {
  history_entry_t e;
  e.arch = arch;
  e.footprint = footprint;
  e.size = footprint;
  e.mean_us = mean_us;
  e.dev_us = mean_us / 100;
  e.nsample = n;
  return e;
}

// A warm host: its msm model measured a CUDA entry (calibrated) and a CPU
// one (3 samples, short of the minimum 6); the shipped model has both
// better sampled, and one footprint per architecture the host never ran.
TEST(perfmodels, merges_what_a_warm_host_lacks) {
  const fs::path root = fs::temp_directory_path() / ("starzk-perfmodels-merge-" + std::to_string(getpid()));
  fs::remove_all(root);
  test::scoped_env_t dir("STARPU_PERF_MODEL_DIR", (root / "sampling").string());
  test::scoped_env_t host("STARPU_HOSTNAME", "testhost");
  test::scoped_env_t minimum("STARPU_CALIBRATE_MINIMUM", "6");
  const fs::path mine = perfmodel_codelet_dir() / "starzk_msm.testhost";
  write_history_file(mine, {entry("cuda", 0xa, 100, 20), entry("cpu", 0xa, 9000, 3)});
  write_history_file(root / "shipped" / "starzk_msm.h100", {entry("cuda", 0xa, 120, 100), entry("cuda", 0xb, 400, 50),
                                                            entry("cpu", 0xa, 8000, 7), entry("cpu", 0xc, 5, 2)});
  EXPECT_EQ(seed_perfmodels(root / "shipped"), 1u);
  std::vector<history_entry_t> got = read_history_file(mine);
  ASSERT_EQ(got.size(), 4u);
  const auto find = [&](const char* arch, uint32_t footprint) {
    for (const history_entry_t& e : got)
      if (e.arch == arch && e.footprint == footprint) return e;
    ADD_FAILURE() << arch << " " << footprint << " missing";
    return history_entry_t{};
  };
  EXPECT_EQ(find("cuda", 0xa).nsample, 20u);  // the host's, calibrated: kept
  EXPECT_DOUBLE_EQ(find("cuda", 0xa).mean_us, 100);
  EXPECT_EQ(find("cuda", 0xb).nsample, 50u);  // never measured here: added
  EXPECT_EQ(find("cpu", 0xa).nsample, 7u);    // short here, calibrated there: replaced
  EXPECT_DOUBLE_EQ(find("cpu", 0xa).mean_us, 8000);
  EXPECT_EQ(find("cpu", 0xc).nsample, 2u);  // added though short: nothing better here
  EXPECT_EQ(seed_perfmodels(root / "shipped"), 0u);

  // A shipped entry short of the minimum does not replace a short one of the host.
  write_history_file(mine, {entry("cpu", 0xa, 9000, 3)});
  write_history_file(root / "short" / "starzk_msm.h100", {entry("cpu", 0xa, 8000, 5)});
  EXPECT_EQ(seed_perfmodels(root / "short"), 0u);
  EXPECT_EQ(read_history_file(mine).at(0).nsample, 3u);
  fs::remove_all(root);
}

}  // namespace
}  // namespace starzk::runtime
