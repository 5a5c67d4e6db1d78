// Tests of the crash report (src/util/crash_report.hpp): a child process
// installs it and crashes; its stderr must name the signal and hold a
// backtrace with the crashing function's frames, and the child must still
// end by that signal (the exit status and core file of the crash).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "util/crash_report.hpp"

namespace starzk {
namespace {

// Runs `crash` in a child with the report installed; returns the child's
// stderr and sets `status` to its wait status.
template <class F>
std::string crash_in_child(F crash, int& status) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    ::close(fds[1]);
    install_crash_report();
    crash();
    ::_exit(0);  // not reached when the crash happens
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t k; (k = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, size_t(k));
  ::close(fds[0]);
  ::waitpid(pid, &status, 0);
  return out;
}

// A null address the compiler cannot see through (a store through a
// visible null pointer is undefined behaviour it may drop).
volatile uintptr_t null_address = 0;
[[gnu::noinline]] void write_through_null() { *reinterpret_cast<volatile int*>(null_address) = 1; }

TEST(CrashReport, ASegfaultSaysWhereAndEndsByTheSignal) {
  int status = 0;
  const std::string out = crash_in_child(write_through_null, status);
  ASSERT_TRUE(WIFSIGNALED(status)) << out;
  EXPECT_EQ(WTERMSIG(status), SIGSEGV) << out;
  EXPECT_NE(out.find("starzk: crashed with SIGSEGV at address 0x0 in thread "), std::string::npos) << out;
  EXPECT_NE(out.find("backtrace"), std::string::npos) << out;
  // One line per frame, each ending in its address "[0x...]": at least the
  // handler's, the crash's and the callers'.
  size_t frames = 0;
  for (size_t at = out.find("[0x"); at != std::string::npos; at = out.find("[0x", at + 1)) ++frames;
  EXPECT_GE(frames, 3u) << out;
}

// A runtime that takes SIGSEGV over after the report was installed, as
// StarPU does: its handler restores the one it found with signal(2) and
// raises again. The report must still be written once and the child end by
// the signal, not loop (the alarm ends a child that hangs).
void (*taken_over)(int) = nullptr;
void runtime_handler(int sig) {
  ::signal(sig, taken_over);
  ::raise(sig);
}
TEST(CrashReport, ASignalRaisedAgainByARuntimeHandlerIsReportedOnce) {
  int status = 0;
  const std::string out = crash_in_child(
      [] {
        ::alarm(10);
        taken_over = ::signal(SIGSEGV, runtime_handler);
        write_through_null();
      },
      status);
  ASSERT_TRUE(WIFSIGNALED(status)) << out;
  EXPECT_EQ(WTERMSIG(status), SIGSEGV) << out;
  const size_t first = out.find("starzk: crashed with SIGSEGV in thread ");
  EXPECT_NE(first, std::string::npos) << out;
  EXPECT_EQ(out.find("starzk: crashed", first + 1), std::string::npos) << out;  // once
}

TEST(CrashReport, AnAbortSaysSoAndEndsByTheSignal) {
  int status = 0;
  const std::string out = crash_in_child([] { std::abort(); }, status);
  ASSERT_TRUE(WIFSIGNALED(status)) << out;
  EXPECT_EQ(WTERMSIG(status), SIGABRT) << out;
  EXPECT_NE(out.find("starzk: crashed with SIGABRT in thread "), std::string::npos) << out;
  EXPECT_EQ(out.find("at address"), std::string::npos) << out;
}

TEST(CrashReport, WithoutACrashNothingIsSaid) {
  int status = 0;
  const std::string out = crash_in_child([] {}, status);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(out.empty()) << out;
}

}  // namespace
}  // namespace starzk
