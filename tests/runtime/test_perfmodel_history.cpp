// Reading StarPU's history-based model files (runtime/perfmodel_history.hpp):
// a hand-written file of StarPU 1.3's layout (two kinds, entries with and
// without flops, a combined worker left out) gives its entries; damaged
// files are refused naming the file and line; STARPU_CALIBRATE_MINIMUM is
// honoured. Then the round trip through StarPU itself: a session with
// STARPU_CALIBRATE=1 runs tasks of a history-based codelet, StarPU writes
// the file at shutdown, and the reader finds one entry per footprint the
// trace recorded, with as many samples as tasks ran there less the first
// (which StarPU leaves out of a new entry).
#include <gtest/gtest.h>

#include <set>

#include <starpu.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "cpu_session.hpp"
#include "../test_support.hpp"
#include "runtime/perfmodel_history.hpp"
#include "runtime/perfmodels.hpp"
#include "runtime/trace.hpp"

namespace starzk::runtime {
namespace {

namespace fs = std::filesystem;

class perfmodel_history : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("starzk-history-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  fs::path dir_;
};

// One architecture combination of one device, one implementation.
std::string comb(int type, int devid, const std::string& entries, int n) {
  return "####################\n# COMB\n# number of types devices\n1\n# device type\n" + std::to_string(type) +
         "\n# device id\n" + std::to_string(devid) +
         "\n# number of cores\n1\n##########\n# number of implementations\n1\n"
         "#####\n# number of entries\n" +
         std::to_string(n) +
         "\n# sumlnx\tsumlnx2\t\tsumlny\t\tsumlnxlny\talpha\t\tbeta\t\tn\tminx\t\tmaxx\n"
         "0.000000e+00   \t0.000000e+00   \t0.000000e+00   \t0.000000e+00   \tnan            \tnan            \t0\t0  "
         "            \t0              \n# a\t\tb\t\tc\nnan            \tnan            \tnan            \n"
         "# not multiple-regression-base\n0\n# hash\t\tsize\t\tflops\t\tmean (us)\tdev (us)\tsum\t\tsum2\t\tn\n" +
         entries;
}

TEST_F(perfmodel_history, reads_entries_per_kind_and_footprint) {
  const std::string combined =
      "####################\n# COMB\n2\n0\n0\n1\n1\n0\n1\n1\n1\n0 0 0 0 nan nan 0 0 0\nnan nan nan\n0\n"
      "0000abcd\t64\t0.0\t5.0\t0.0\t5.0\t25.0\t1\n";
  const fs::path f = write(
      "m.host", "##################\n# Performance Model Version\n45\n\n####################\n# COMBs\n3\n" +
                    comb(0, 0,
                         "70bf06c7\t328            \t0.000000e+00   \t3.450592e+03   \t4.668226e+02   \t4.106205e+05   "
                         "\t1.442817e+09   \t119\n"
                         "2669802c\t1\t9.491703e+03\t9.393151e+02\t1.898341e+04\t1.819495e+08\t2\n",
                         2) +
                    comb(1, 0,
                         "70bf06c7\t328\t0\t12.5\t1\t125\t1600\t10\n"
                         "70bf06c8\t328\t0\t12.5\t-nan\t12.5\t156.25\t1\n",
                         2) +
                    combined);
  const std::vector<history_entry_t> e = read_history_file(f);
  ASSERT_EQ(e.size(), 4u);  // the combined worker's entry is left out
  EXPECT_EQ(e[0].arch, "cpu");
  EXPECT_EQ(e[0].footprint, 0x70bf06c7u);
  EXPECT_EQ(e[0].size, 328u);
  EXPECT_NEAR(e[0].mean_us, 3450.592, 1e-3);
  EXPECT_EQ(e[0].nsample, 119u);
  EXPECT_EQ(e[1].footprint, 0x2669802cu);  // no flops column: mean is the third value
  EXPECT_NEAR(e[1].mean_us, 9491.703, 1e-3);
  EXPECT_EQ(e[1].nsample, 2u);
  EXPECT_EQ(e[2].arch, "cuda");
  EXPECT_EQ(e[2].nsample, 10u);
  EXPECT_DOUBLE_EQ(e[2].mean_us, 12.5);
  EXPECT_DOUBLE_EQ(e[2].dev_us, 1);
  EXPECT_NEAR(e[0].dev_us, 466.8226, 1e-3);
  EXPECT_DOUBLE_EQ(e[3].dev_us, 0);  // StarPU's "-nan" deviation of one sample
  EXPECT_EQ(e[3].nsample, 1u);
}

TEST_F(perfmodel_history, damaged_files_are_refused_naming_file_and_line) {
  auto error_of = [&](const std::string& text) {
    const fs::path f = write("bad.host", text);
    try {
      read_history_file(f);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "# v\n45\n1\n";
  std::string msg = error_of("44\n1\n");
  EXPECT_NE(msg.find("bad.host: line 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("version 44"), std::string::npos) << msg;
  msg = error_of(head + comb(0, 0, "70bf06c7\t328\t0\t1\t1\t1\t1\n", 2));  // one entry of two
  EXPECT_NE(msg.find("ends before a history entry"), std::string::npos) << msg;
  msg = error_of(head + comb(0, 0, "70bf06c7\t328\t0\n", 1));
  EXPECT_NE(msg.find("3 values"), std::string::npos) << msg;
  msg = error_of(head + comb(0, 0, "zz\t328\t0\t1\t1\t1\t1\t3\n", 1));
  EXPECT_NE(msg.find("footprint 'zz'"), std::string::npos) << msg;
  msg = error_of("45\n999999999\n");
  EXPECT_NE(msg.find("out of range"), std::string::npos) << msg;
  msg = error_of("");
  EXPECT_NE(msg.find("ends before"), std::string::npos) << msg;
  EXPECT_NE(error_of(head + comb(0, 0, "70bf06c7\t328\t0\t-1\t1\t1\t1\t3\n", 1)).find("mean"), std::string::npos);
  try {
    read_history_file(dir_ / "missing.host");
    FAIL() << "a missing file must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.host"), std::string::npos) << e.what();
  }
}

TEST_F(perfmodel_history, calibration_minimum_follows_starpu) {
  {
    test::scoped_env_t g("STARPU_CALIBRATE_MINIMUM", nullptr);
    EXPECT_EQ(calibration_minimum(), 10u);
  }
  {
    test::scoped_env_t g("STARPU_CALIBRATE_MINIMUM", "3");
    EXPECT_EQ(calibration_minimum(), 3u);
  }
  test::scoped_env_t g("STARPU_CALIBRATE_MINIMUM", "ten");
  EXPECT_THROW(calibration_minimum(), std::runtime_error);
}

// A codelet whose footprint is the task's cl_arg value.
void sleep_cpu(void* /*buffers*/[], void* arg) { usleep(useconds_t(200 * reinterpret_cast<uintptr_t>(arg))); }
uint32_t arg_footprint(starpu_task* t) { return uint32_t(reinterpret_cast<uintptr_t>(t->cl_arg)) * 0x9e3779b1u; }

TEST_F(perfmodel_history, round_trip_through_starpu) {
  test::scoped_env_t model_dir("STARPU_PERF_MODEL_DIR", (dir_ / "sampling").c_str());
  test::scoped_env_t host("STARPU_HOSTNAME", "roundtrip");
  test::scoped_env_t calibrate("STARPU_CALIBRATE", "1");
  // Every measurement counts (StarPU leaves out those far from the mean).
  test::scoped_env_t max_error("STARPU_HISTORY_MAX_ERROR", "1000000");
  static starpu_perfmodel model;
  model = starpu_perfmodel{};
  model.type = STARPU_HISTORY_BASED;
  model.symbol = "starzk_test_history";
  model.footprint = &arg_footprint;
  static starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.cpu_funcs[0] = sleep_cpu;
  cl.nbuffers = 0;
  cl.model = &model;
  cl.name = "sleeper";
  std::map<uint32_t, unsigned> ran;  // footprint the trace saw -> tasks
  {
    starpu_session session(test::cpu_session("eager", 1));
    trace_recorder recorder;
    for (uintptr_t a : {1, 1, 1, 2, 2}) {
      starpu_task* t = starpu_task_create();
      t->cl = &cl;
      t->cl_arg = reinterpret_cast<void*>(a);
      recorder.submit(t);
    }
    starpu_task_wait_for_all();
    for (const trace_event_t& e : recorder.snapshot().events) {
      EXPECT_EQ(e.model, "starzk_test_history");
      EXPECT_EQ(e.could_run, std::vector<std::string>{"cpu"});
      ++ran[e.footprint];
    }
  }  // StarPU writes the model at shutdown
  ASSERT_EQ(ran.size(), 2u);
  EXPECT_EQ(ran[1u * 0x9e3779b1u], 3u);  // arg_footprint of the three tasks with arg 1
  const std::vector<history_entry_t> e = read_history("starzk_test_history");
  ASSERT_EQ(e.size(), 2u);
  for (const history_entry_t& x : e) {
    EXPECT_EQ(x.arch, "cpu");
    ASSERT_TRUE(ran.count(x.footprint)) << std::hex << x.footprint;
    EXPECT_EQ(x.nsample, ran[x.footprint] - 1);  // StarPU drops a history entry's first measurement
    EXPECT_GT(x.mean_us, 0);
  }
  EXPECT_TRUE(read_history("starzk_no_such_model").empty());
}

// The models shipped in bench/perfmodels (installed with
// STARZK_CALIBRATED_MODELS) read as StarPU 1.3 history files, each with a
// measured entry (StarPU also keeps entries of no sample), and each
// machine's with measured CPU and CUDA entries.
TEST(perfmodel_files, shipped_models_read) {
  const fs::path root = fs::path(STARZK_SOURCE_DIR) / "bench" / "perfmodels";
  size_t files = 0;
  for (const char* machine : {"h100", "h200"}) {
    std::set<std::string> archs;
    for (const fs::directory_entry& f : fs::directory_iterator(root / machine / "codelets" / "45")) {
      size_t measured = 0;
      for (const history_entry_t& x : read_history_file(f.path()))
        if (x.nsample > 0 && x.mean_us > 0) ++measured, archs.insert(x.arch);
      EXPECT_GT(measured, 0u) << f.path();
      ++files;
    }
    EXPECT_EQ(archs, (std::set<std::string>{"cpu", "cuda"})) << machine;
  }
  EXPECT_GE(files, 14u);  // seven codelets a machine
}

}  // namespace
}  // namespace starzk::runtime
