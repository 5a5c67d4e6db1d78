// The batch watch's stall rule (src/cli/batch_watch.cpp): a batch whose
// codelet bodies have stopped moving (none running, none beginning or
// ending) for STARZK_STALL_ABORT_S is given up with exit status 4 and a line
// saying so, after its on_stop (the trace) ran; a batch with a body running,
// however long, and a batch before its first body (keys still loading) are
// not, nor is an MPI rank that turned the check off to wait for the other
// ranks. SIGUSR1 asks for a stop once: a second one (a launcher passing it
// on twice) changes nothing and prints nothing. Death tests: the rule ends
// the process.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/batch_watch.hpp"
#include "codelets/activity.hpp"

namespace starzk::cli {
namespace {

using namespace std::chrono_literals;

TEST(batch_watch_death, a_stalled_batch_is_given_up_with_status_4) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        batch_watch_t w(
            0, stderr, [] { std::fprintf(stderr, "on_stop ran\n"); }, 0.5);
        codelets::activity_begin("spmv");
        codelets::activity_end("spmv");
        std::this_thread::sleep_for(5s);
        std::exit(0);
      },
      ::testing::ExitedWithCode(4), "batch has stalled(.|\n)*on_stop ran");
}

TEST(batch_watch_death, a_running_body_or_no_body_yet_is_no_stall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        {
          batch_watch_t w(0, stderr, {}, 0.5);
          std::this_thread::sleep_for(1500ms);  // nothing has run yet: keys still loading
        }
        {
          batch_watch_t w(0, stderr, {}, 0.5);
          codelets::activity_begin("msm_h");  // one long body
          std::this_thread::sleep_for(1500ms);
          codelets::activity_end("msm_h");
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(batch_watch_death, an_idle_rank_with_the_stall_check_off_is_no_stall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        batch_watch_t w(0, stderr, {}, 0.5);
        codelets::activity_begin("spmv");
        codelets::activity_end("spmv");
        w.stall_check(false);  // its partitions done: waiting for the other ranks
        std::this_thread::sleep_for(1500ms);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// Waits (at most 5 s) for the watch to take a signal.
bool stop_seen(const batch_watch_t& w) {
  for (int i = 0; i < 250 && !w.stop_requested(); ++i) std::this_thread::sleep_for(20ms);
  return w.stop_requested();
}

TEST(batch_watch_death, sigusr1_asks_for_a_stop_once) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        batch_watch_t w(0, stderr, {}, 0);
        if (w.stop_requested()) std::exit(2);
        ::kill(::getpid(), SIGUSR1);
        if (!stop_seen(w)) std::exit(3);
        ::kill(::getpid(), SIGUSR1);  // taken by the watch, not the default action
        std::this_thread::sleep_for(600ms);
        std::fprintf(stderr, "still running\n");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "^starzk: SIGUSR1 after [0-9]+ s: submitting no more partitions[^\n]*\nstill running");
}

}  // namespace
}  // namespace starzk::cli
