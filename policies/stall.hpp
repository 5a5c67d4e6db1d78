// stall.hpp: telling a chain that will never end from one that is slow.
//
// The GPU lock keeps a lock domain for one chain until that chain's
// is_last task has ended. A chain whose tasks carry no is_last, or a chain
// that waits on another chain's GPU_CHAIN tasks (both break the rules of
// docs/policies.md), keeps the domain forever, and every other chain's
// tasks wait for it: the program hangs without a word. The engine (and
// the GPU-lock gate of a component tree, component_gate.cpp) asks
// find_stalled_chain every so often; when the same stall with no change at
// all in the ledger lasts STARZK_CHAIN_STALL_MS, it names the chain on
// stderr, records the error (starzk_policies_error) and releases the
// domain, so the run ends and the caller can fail.
//
// A stall, all at once:
//   - no task runs anywhere (nothing running can make the chain's last
//     task ready any more);
//   - a chain owns a lock domain, has no task in flight, has not run its
//     is_last task, and has no task in the ready queue;
//   - a GPU_CHAIN task of another chain is ready and waits.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "policies/rules.hpp"

namespace starzk::policies {

struct stall_t {
  std::uint64_t owner = 0;   // the chain holding the domain
  unsigned domain = 0;       // the lock domain (a memory node)
  std::uint64_t waiter = 0;  // a chain with a ready task kept out
};

// The stall in the ledger, if any, given the chain keys of the ready
// GPU_CHAIN tasks of one engine. Caller holds L.mu.
std::optional<stall_t> find_stalled_chain(const ledger_t& L, const std::vector<std::uint64_t>& ready_chains);

// What a stall report says (one line, names both chains and the domain).
std::string describe_stall(const stall_t& s, int stalled_ms);

// The first stall reported (by an engine or a GPU-lock gate) since the
// ledger last started empty, for starzk_policies_error: set keeps the
// first message, clear forgets it (the first scheduler of a StarPU run).
void stall_error_set(const std::string& message);
void stall_error_clear();
bool stall_error(std::string* message);

// A thread that calls `tick` every `period` until destroyed (none in a
// StarPU built with SimGrid, where no thread outside the simulation may
// call into StarPU: a stalled chain there hangs the simulation).
class stall_watch_t {
 public:
  stall_watch_t(std::chrono::milliseconds period, std::function<void()> tick);
  ~stall_watch_t();
  stall_watch_t(const stall_watch_t&) = delete;
  stall_watch_t& operator=(const stall_watch_t&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace starzk::policies
