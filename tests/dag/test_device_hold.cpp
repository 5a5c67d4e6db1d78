// device_hold_t on CPU workers (dag/device_hold.hpp): a hold is an R
// acquisition on a memory node, taken only where a valid copy is; readers
// run beside it, a writer waits for it, and release_all() gives it back so
// that the handle can be unregistered; the watcher holds copies as they
// land and stops at release_all(). The GPU side (a held replica
// surviving StarPU's reclaim) is tests/gpu/device_hold_gpu_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "dag/device_hold.hpp"
#include "dag_test_util.hpp"

namespace starzk {
namespace {

std::atomic<int> g_ran{0};

void touch(void* /*buffers*/[], void*) { g_ran.fetch_add(1); }

starpu_codelet touch_codelet(starpu_data_access_mode mode) {
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.cpu_funcs[0] = touch;
  cl.nbuffers = 1;
  cl.modes[0] = mode;
  cl.name = "touch";
  return cl;
}

// Waits (up to 10 s) for `held` holds: a callback may come from a StarPU thread.
bool wait_held(const dag::device_hold_t& hold, size_t held) {
  for (int i = 0; i < 1000 && hold.held() != held; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return hold.held() == held;
}

// A vector handle on v, home in main memory.
starpu_data_handle_t register_words(std::vector<uint64_t>& v) {
  starpu_data_handle_t h;
  starpu_vector_data_register(&h, STARPU_MAIN_RAM, uintptr_t(v.data()), uint32_t(v.size()), sizeof(uint64_t));
  return h;
}

class device_hold : public ::testing::Test {
 protected:
  device_hold() : session_(test::cpu_session("eager", 2)) {}
  runtime::starpu_session session_;
};

TEST_F(device_hold, holds_a_valid_copy_once_readers_run_and_release_lets_it_go) {
  std::vector<uint64_t> v(1000, 7);
  const starpu_data_handle_t h = register_words(v);
  {
    dag::device_hold_t hold;
    EXPECT_TRUE(hold.hold_if_valid(h, STARPU_MAIN_RAM));
    EXPECT_FALSE(hold.hold_if_valid(h, STARPU_MAIN_RAM));  // once per handle and node
    ASSERT_TRUE(wait_held(hold, 1));
    // A reader runs while the hold is in place.
    starpu_codelet cl = touch_codelet(STARPU_R);
    g_ran = 0;
    ASSERT_EQ(starpu_task_insert(&cl, STARPU_R, h, 0), 0);
    starpu_task_wait_for_all();
    EXPECT_EQ(g_ran.load(), 1);
    hold.release_all();
    EXPECT_EQ(hold.held(), 0u);
    EXPECT_FALSE(hold.hold_if_valid(h, STARPU_MAIN_RAM));  // none after release_all
  }
  starpu_data_unregister(h);  // returns: nothing holds it
}

TEST_F(device_hold, a_writer_waits_until_the_hold_is_given_back) {
  std::vector<uint64_t> v(1000, 7);
  const starpu_data_handle_t h = register_words(v);
  dag::device_hold_t hold;
  ASSERT_TRUE(hold.hold_if_valid(h, STARPU_MAIN_RAM));
  ASSERT_TRUE(wait_held(hold, 1));
  starpu_codelet cl = touch_codelet(STARPU_RW);
  g_ran = 0;
  ASSERT_EQ(starpu_task_insert(&cl, STARPU_RW, h, 0), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(g_ran.load(), 0) << "a writer ran while the handle was held";
  hold.release_all();
  starpu_task_wait_for_all();
  EXPECT_EQ(g_ran.load(), 1);
  starpu_data_unregister(h);
}

TEST_F(device_hold, no_hold_without_a_valid_copy) {
  starpu_data_handle_t h;  // StarPU allocates it on first use: no valid copy yet
  starpu_vector_data_register(&h, -1, 0, 1000, sizeof(uint64_t));
  dag::device_hold_t hold;
  EXPECT_FALSE(hold.hold_if_valid(h, STARPU_MAIN_RAM));
  EXPECT_FALSE(hold.hold_if_valid(nullptr, STARPU_MAIN_RAM));
  EXPECT_EQ(hold.held(), 0u);
  starpu_data_unregister(h);
}

TEST_F(device_hold, the_watcher_holds_each_copy_once_it_lands) {
  std::vector<uint64_t> v(1000, 7);
  const starpu_data_handle_t there = register_words(v);  // valid in main memory now
  starpu_data_handle_t later;                            // valid once a task has written it
  starpu_vector_data_register(&later, -1, 0, 1000, sizeof(uint64_t));
  dag::device_hold_t hold;
  hold.hold_as_they_arrive({there, later}, {STARPU_MAIN_RAM});
  ASSERT_TRUE(wait_held(hold, 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(hold.held(), 1u) << "a handle without a valid copy was held";
  starpu_codelet cl = touch_codelet(STARPU_W);
  ASSERT_EQ(starpu_task_insert(&cl, STARPU_W, later, 0), 0);
  starpu_task_wait_for_all();
  EXPECT_TRUE(wait_held(hold, 2)) << "the watcher did not hold the copy the task made";
  hold.release_all();
  EXPECT_EQ(hold.held(), 0u);
  starpu_data_unregister(there);
  starpu_data_unregister(later);
}

TEST_F(device_hold, release_all_stops_a_watcher_still_waiting) {
  starpu_data_handle_t never;  // no task ever writes it: no valid copy
  starpu_vector_data_register(&never, -1, 0, 1000, sizeof(uint64_t));
  dag::device_hold_t hold;
  hold.hold_as_they_arrive({never}, {STARPU_MAIN_RAM});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto t0 = std::chrono::steady_clock::now();
  hold.release_all();  // returns: the watcher is joined
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  EXPECT_EQ(hold.held(), 0u);
  starpu_data_unregister(never);
}

}  // namespace
}  // namespace starzk
