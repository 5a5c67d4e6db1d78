// The batch watch's stall rule (src/cli/batch_watch.cpp): a batch whose
// codelet bodies have stopped moving (none running, none beginning or
// ending) for STARZK_STALL_ABORT_S is given up with exit status 4 and a line
// saying so, after its on_stop (the trace) ran; a batch with a body running,
// however long, and a batch before its first body (keys still loading) are
// not. Death tests: the rule ends the process.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace starzk::cli
