// stall.cpp: the stalled-chain test and the thread that runs it (see
// stall.hpp).

#include "policies/stall.hpp"

#include <starpu.h>

#include <algorithm>

namespace starzk::policies {

namespace {

std::mutex g_error_mu;
std::string g_error;  // the first stall reported

std::string chain_name(std::uint64_t key) {
  // Untagged GPU_CHAIN tasks are chains of their own above 2^63.
  return key >> 63 ? "an untagged GPU_CHAIN task" : "chain " + std::to_string(key);
}

}  // namespace

std::optional<stall_t> find_stalled_chain(const ledger_t& L, const std::vector<std::uint64_t>& ready_chains) {
  if (!L.admitted.empty()) return std::nullopt;  // something runs: it may still free the way
  for (const auto& [domain, owner] : L.domain_owner) {
    auto c = L.chains.find(owner);
    if (c == L.chains.end() || c->second.in_flight > 0 || c->second.last_done) continue;
    if (std::find(ready_chains.begin(), ready_chains.end(), owner) != ready_chains.end())
      continue;  // it has ready work of its own
    for (std::uint64_t r : ready_chains)
      if (r != owner) return stall_t{owner, domain, r};
  }
  return std::nullopt;
}

std::string describe_stall(const stall_t& s, int stalled_ms) {
  return "starzk policies: " + chain_name(s.owner) + " holds lock domain " + std::to_string(s.domain) +
         " but none of its tasks runs or is ready and its is_last task has not run, while " + chain_name(s.waiter) +
         " waits for the domain (" + std::to_string(stalled_ms) +
         " ms with nothing running). Mark the last task of every chain "
         "(starzk_task_set_chain(task, chain, 1)) and never make a chain wait on another chain's "
         "GPU_CHAIN tasks (docs/policies.md). Releasing the domain so the run can end.";
}

void stall_error_set(const std::string& message) {
  std::lock_guard<std::mutex> lk(g_error_mu);
  if (g_error.empty()) g_error = message;
}

void stall_error_clear() {
  std::lock_guard<std::mutex> lk(g_error_mu);
  g_error.clear();
}

bool stall_error(std::string* message) {
  std::lock_guard<std::mutex> lk(g_error_mu);
  if (message) *message = g_error;
  return !g_error.empty();
}

stall_watch_t::stall_watch_t([[maybe_unused]] std::chrono::milliseconds period,
                             [[maybe_unused]] std::function<void()> tick) {
#ifdef STARPU_SIMGRID
  // No thread outside the simulation may call into StarPU: no watch there.
  return;
#else
  thread_ = std::thread([this, period, tick = std::move(tick)] {
    std::unique_lock<std::mutex> lk(mu_);
    while (!cv_.wait_for(lk, period, [this] { return stop_; })) {
      lk.unlock();
      tick();
      lk.lock();
    }
  });
#endif
}

stall_watch_t::~stall_watch_t() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace starzk::policies
