// Running a program from a test and capturing what it printed: the one
// helper behind every end-to-end test of the starzk binary (tests/cli,
// tests/dag). stdout and stderr are merged; StarPU's banner is silenced.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace starzk::test {

struct run_result {
  int status;          // exit status (-1 if killed by a signal)
  std::string output;  // stdout + stderr
};

inline run_result run_binary(const std::string& binary, const std::string& args) {
  const std::string cmd = "STARPU_SILENT=1 " + binary + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + cmd);
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int st = pclose(p);
  return run_result{WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace starzk::test
