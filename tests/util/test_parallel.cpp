// Tests of parallel_for / parallel_tasks (src/util/parallel.hpp): every index
// is visited once, errors come back to the caller, and forked threads are not
// confined to the caller's CPU binding. The last property is what lets a
// StarPU CPU worker (bound to one core) run a multi-threaded body on many
// cores; without it the threads all share that one core.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "util/parallel.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace starzk {
namespace {

TEST(Parallel, ForVisitsEveryIndexOnce) {
  for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(1000), size_t(1001)})
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
      std::vector<std::atomic<int>> seen(n);
      parallel_for(n, threads, [&](size_t b, size_t e) {
        ASSERT_LE(b, e);
        for (size_t i = b; i < e; ++i) seen[i].fetch_add(1);
      });
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i].load(), 1) << "n " << n << " threads " << threads << " i " << i;
    }
}

TEST(Parallel, ForHonoursTheMinimumChunk) {
  std::atomic<int> calls{0};
  parallel_for(
      10, 8,
      [&](size_t b, size_t e) {
        EXPECT_GE(e - b, 5u);
        calls.fetch_add(1);
      },
      5);
  EXPECT_EQ(calls.load(), 2);
}

TEST(Parallel, TasksVisitEveryIndexOnce) {
  std::vector<std::atomic<int>> seen(257);
  parallel_tasks(seen.size(), 4, [&](size_t i) { seen[i].fetch_add(1); });
  for (auto& s : seen) EXPECT_EQ(s.load(), 1);
}

TEST(Parallel, TheFirstErrorReachesTheCaller) {
  EXPECT_THROW(parallel_tasks(64, 4,
                              [](size_t i) {
                                if (i == 13) throw std::runtime_error("task 13");
                              }),
               std::runtime_error);
  EXPECT_THROW(parallel_for(64, 1, [](size_t, size_t) { throw std::logic_error("inline"); }), std::logic_error);
}

#if defined(__linux__)
// The calling thread is bound to one CPU (as a StarPU worker is); the forked
// threads must be free to run on every CPU the process started with.
TEST(Parallel, ForkedThreadsLeaveTheCallersBinding) {
  const unsigned cpus = process_cpus();
  if (cpus < 2) GTEST_SKIP() << "the process may use " << cpus << " CPU(s)";
  cpu_set_t saved;
  ASSERT_TRUE(bind_thread_to_first_cpu(saved));

  std::mutex m;
  std::vector<int> counts;  // CPU_COUNT of each forked thread's mask
  int caller_count = -1;
  const auto self = pthread_self();
  parallel_for(4, 4, [&](size_t, size_t) {  // one chunk per thread
    cpu_set_t mine;
    CPU_ZERO(&mine);
    pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine);
    std::lock_guard<std::mutex> lock(m);
    if (pthread_equal(pthread_self(), self))
      caller_count = CPU_COUNT(&mine);
    else
      counts.push_back(CPU_COUNT(&mine));
  });
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved), 0);

  EXPECT_EQ(caller_count, 1) << "the caller keeps its binding";
  ASSERT_EQ(counts.size(), 3u);
  for (int c : counts) EXPECT_EQ(unsigned(c), cpus) << "a forked thread stayed on the caller's CPU";
}

// A thread of one's own (msm_beside's second stream) forked from a bound
// caller: widen_thread_affinity gives it the startup set, the caller keeps
// its one CPU.
TEST(Parallel, WidenThreadAffinityLeavesTheCallersBinding) {
  const unsigned cpus = process_cpus();
  if (cpus < 2) GTEST_SKIP() << "the process may use " << cpus << " CPU(s)";
  cpu_set_t saved;
  ASSERT_TRUE(bind_thread_to_first_cpu(saved));
  int inherited = -1, widened = -1;
  std::thread t([&] {
    cpu_set_t mine;
    CPU_ZERO(&mine);
    pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine);
    inherited = CPU_COUNT(&mine);
    widen_thread_affinity();
    CPU_ZERO(&mine);
    pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine);
    widened = CPU_COUNT(&mine);
  });
  t.join();
  cpu_set_t after;
  CPU_ZERO(&after);
  pthread_getaffinity_np(pthread_self(), sizeof(after), &after);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved), 0);
  EXPECT_EQ(inherited, 1) << "a new thread inherits its creator's binding";
  EXPECT_EQ(unsigned(widened), cpus);
  EXPECT_EQ(CPU_COUNT(&after), 1) << "the caller keeps its binding";
}
#endif

}  // namespace
}  // namespace starzk
