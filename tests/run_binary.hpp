// Running a program from a test and capturing what it printed: the one
// helper behind every end-to-end test of the starzk binary (tests/cli,
// tests/dag). stdout and stderr are merged; StarPU's banner is silenced.
// Keys are never remembered in the user's cache (STARZK_VALIDATED_KEYS=off,
// io/validation_record.hpp) unless `env` (assignments put before the
// command, e.g. "STARZK_VALIDATED_KEYS=/tmp/x") says otherwise.
// binary_dir_test: the fixture those tests share (a temporary folder).
#pragma once

#include <sys/wait.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>

namespace starzk::test {

struct run_result {
  int status;          // exit status (-1 if killed by a signal)
  std::string output;  // stdout + stderr
};

inline run_result run_binary(const std::string& binary, const std::string& args, const std::string& env = "") {
  const std::string cmd = "STARPU_SILENT=1 STARZK_VALIDATED_KEYS=off " + env + " " + binary + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + cmd);
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int st = pclose(p);
  return run_result{WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// A fixture for end-to-end tests of a binary: skipped when the binary was
// not built, with a fresh temporary folder dir_ removed afterwards.
class binary_dir_test : public ::testing::Test {
 protected:
  binary_dir_test(std::filesystem::path binary, std::string prefix)
      : binary_(std::move(binary)), prefix_(std::move(prefix)) {}
  void SetUp() override {
    if (!std::filesystem::exists(binary_)) GTEST_SKIP() << "binary not built: " << binary_;
    dir_ = std::filesystem::temp_directory_path() / (prefix_ + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::filesystem::path binary_;
  std::string prefix_;
  std::filesystem::path dir_;
};

}  // namespace starzk::test
