// parallel_for and parallel_tasks: fork-join helpers over std::thread for the
// CPU reference paths (NTT, MSM, prep_msm).
//
// Why our own and not a pool library: the math layers must not know StarPU,
// and a StarPU CPU codelet that wants more than one core gets them as a
// thread count (a parallel worker's size). So every routine takes a
// `threads` argument and forks that many std::threads for one call, joins
// them, and leaves nothing running afterwards. A fork costs tens of
// microseconds, which is noise next to the work each call does (the callers
// only split work of thousands of field operations or more).
//
// Contract of both helpers:
//   - threads == 0 means std::thread::hardware_concurrency() (at least 1);
//   - the calling thread does a share of the work, so threads == 1 runs
//     inline with no thread created;
//   - the first exception thrown by fn is rethrown on the calling thread
//     after every worker has joined (later ones are dropped);
//   - the forked threads may run on any CPU the process was given at start
//     (see process_cpus below), whatever the calling thread is bound to.
//
// That last point matters under StarPU: each CPU worker is bound to one core,
// and a thread inherits its creator's binding, so the threads a codelet body
// forks would all share the worker's single core and a "16-thread" prep_msm
// would run at one core's speed. Each forked thread therefore widens its
// affinity to the set the process had when it was loaded (before StarPU
// bound anything), which is also what taskset, Slurm's cgroup or mpirun's
// binding gave the whole process. The calling thread keeps its own binding.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace starzk {

namespace util_detail {
#if defined(__linux__)
struct cpu_mask_t {
  cpu_set_t set;
  bool known = false;
};
// The process's CPU set, read once while the program is loaded (the main
// thread, before any runtime binds threads).
inline cpu_mask_t read_startup_mask() {
  cpu_mask_t m;
  CPU_ZERO(&m.set);
  m.known = sched_getaffinity(0, sizeof(m.set), &m.set) == 0;
  return m;
}
inline const cpu_mask_t startup_mask = read_startup_mask();
#endif
}  // namespace util_detail

// How many CPUs the process was allowed to run on when it started (0 where
// the platform cannot tell). Forked threads run anywhere in that set.
inline unsigned process_cpus() {
#if defined(__linux__)
  return util_detail::startup_mask.known ? unsigned(CPU_COUNT(&util_detail::startup_mask.set)) : 0u;
#else
  return 0;
#endif
}

// Called first thing on a thread forked from one that may be bound (a
// StarPU worker's body, or code it calls): run anywhere in the startup
// set. A failure leaves the inherited binding, which is slower but still
// correct.
inline void widen_thread_affinity() {
#if defined(__linux__)
  const util_detail::cpu_mask_t& m = util_detail::startup_mask;
  if (m.known) (void)pthread_setaffinity_np(pthread_self(), sizeof(m.set), &m.set);
#endif
}

#if defined(__linux__)
// Binds the calling thread to the first CPU it may use, as StarPU binds a
// worker (for tests and benchmarks that play one); `saved` receives its
// mask before. False, the binding unchanged, where either call fails.
inline bool bind_thread_to_first_cpu(cpu_set_t& saved) {
  if (pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved) != 0) return false;
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &saved)) {
      CPU_SET(c, &one);
      break;
    }
  return pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0;
}
#endif

// 0 -> hardware_concurrency (1 if the runtime cannot tell); otherwise as given.
inline unsigned resolve_threads(unsigned requested) {
  if (requested != 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1u : hw;
}

namespace util_detail {
// Runs body(t) for t = 0..workers-1, body(0) on the calling thread.
template <class Body>
void fork_join(unsigned workers, Body&& body) {
  if (workers <= 1) {
    body(0u);
    return;
  }
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto guarded = [&](unsigned t) {
    try {
      body(t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (unsigned t = 1; t < workers; ++t)
    pool.emplace_back([&guarded, t] {
      widen_thread_affinity();
      guarded(t);
    });
  guarded(0);
  for (auto& th : pool) th.join();
  if (first_error) std::rethrow_exception(first_error);
}
}  // namespace util_detail

// Splits [0, n) into at most `threads` contiguous chunks of at least
// `min_chunk` indices (the last chunks may be one shorter than the first) and
// calls fn(begin, end) once per chunk, concurrently. Static split: use it for
// uniform work (a butterfly stage, a scan over scalars).
template <class Fn>
void parallel_for(size_t n, unsigned threads, Fn&& fn, size_t min_chunk = 1) {
  if (n == 0) return;
  min_chunk = std::max<size_t>(min_chunk, 1);
  const size_t max_chunks = std::max<size_t>(n / min_chunk, 1);
  const size_t chunks = std::min<size_t>(resolve_threads(threads), max_chunks);
  const size_t base = n / chunks, extra = n % chunks;
  util_detail::fork_join(unsigned(chunks), [&](unsigned t) {
    // Chunk t starts after t chunks, the first `extra` of which are one longer.
    const size_t begin = t * base + std::min<size_t>(t, extra);
    const size_t end = begin + base + (t < extra ? 1 : 0);
    fn(begin, end);
  });
}

// Calls fn(i) for every i in [0, n_tasks); min(threads, n_tasks) workers take
// the next index from a shared counter, so uneven tasks balance themselves.
// Use it for coarse tasks of unequal cost (MSM windows, chunks of buckets).
template <class Fn>
void parallel_tasks(size_t n_tasks, unsigned threads, Fn&& fn) {
  if (n_tasks == 0) return;
  const unsigned workers = unsigned(std::min<size_t>(resolve_threads(threads), n_tasks));
  std::atomic<size_t> next{0};
  util_detail::fork_join(workers, [&](unsigned) {
    for (size_t i = next.fetch_add(1, std::memory_order_relaxed); i < n_tasks;
         i = next.fetch_add(1, std::memory_order_relaxed))
      fn(i);
  });
}

}  // namespace starzk
