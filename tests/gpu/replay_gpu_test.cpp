// A replay on a GPU (runtime/replay.hpp; label gpu, skipped without a CUDA
// worker): a buffer the recorded run read on its GPU at its first use
// without fetching it (a key the program had put there) is on the GPU when
// the replay's first task that uses it is taken, so the replay's own trace
// lists no fetch of it there; when the recorded run had to fetch it, the
// replay fetches it too (which also shows the trace would see the fetch).
// The test's tasks can run only on the GPU, so StarPU's own prefetch of
// such a task's inputs at push (STARPU_PREFETCH, on by default with one GPU
// memory node) is turned off: it would put the key there before the first
// task in both cases, and the replay's prefetch would go unseen.
#include <gtest/gtest.h>

#include <starpu.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "cpu_session.hpp"
#include "replay_traces.hpp"
#include "runtime/replay.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"
#include "../test_support.hpp"

namespace starzk {
namespace {

using runtime::trace_event_t;
using runtime::trace_t;

// Whether the replay's first task to use the key (buffer 0 of chain 0's
// msm_h, recorded id 2) had to fetch it.
bool key_fetched_in_replay(const trace_t& recorded) {
  const runtime::replay_plan_t plan = runtime::plan_replay(recorded);
  const test::scoped_env_t no_push_prefetch("STARPU_PREFETCH", "0");
  runtime::session_options_t o = test::cpu_session("eager", 1);
  o.ncuda = 1;
  runtime::starpu_session session(o);
  if (session.cuda_workers() == 0) throw std::runtime_error("no CUDA worker");
  runtime::trace_recorder recorder;
  runtime::run_replay(plan, {}, recorder);
  const trace_t got = recorder.snapshot();
  const auto msm = std::find_if(got.events.begin(), got.events.end(), [](const trace_event_t& e) { return e.id == 2; });
  EXPECT_NE(msm, got.events.end());
  if (msm == got.events.end() || msm->buffers.empty()) return true;
  const std::uint64_t key = msm->buffers[0].data;
  const trace_event_t* first = nullptr;
  for (const trace_event_t& e : got.events)
    for (const runtime::trace_buffer_t& b : e.buffers)
      if (b.data == key && (!first || e.start_us < first->start_us)) first = &e;
  if (!first) return true;
  EXPECT_EQ(first->worker_kind, "cuda");
  for (unsigned i = 0; i < first->buffers.size(); ++i)
    if (first->buffers[i].data == key && std::count(first->missing.begin(), first->missing.end(), i)) return true;
  return false;
}

TEST(replay_gpu, what_the_recorded_run_had_on_its_gpu_is_there_before_the_first_task) {
  trace_t t = test::two_chains();
  for (trace_event_t& e : t.events) {
    e.worker_kind = "cuda";
    e.could_run = {"cuda"};
    e.popped_us = e.start_us - 1;
  }
  {
    runtime::session_options_t o = test::cpu_session("eager", 1);
    o.ncuda = 1;
    runtime::starpu_session probe(o);
    if (probe.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  }
  EXPECT_FALSE(key_fetched_in_replay(t)) << "the key was resident in the recorded run";
  trace_t fetched = t;
  fetched.events[2].missing = {0};
  EXPECT_TRUE(key_fetched_in_replay(fetched)) << "the recorded run fetched the key: so must the replay";
}

}  // namespace
}  // namespace starzk
