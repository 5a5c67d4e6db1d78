// batch_collect.cpp: taking finished partitions out of a batch (see
// batch.hpp): the result of each flight, and the one retry on the CPUs of a
// partition whose first failure was a device fault (a CUDA body's launch,
// allocation or kernel failing, or a test's injected fault). The retry runs
// the whole partition again, the witness read again through its fill,
// every task kept to the CPU workers (submit_context_t::only), in a chain
// of its own; its result carries retries = 1 and the first error. A
// failure on the CPUs, or in the retry, is the partition's result. A
// partition that succeeded has its key hold the resident arrays on the
// GPUs (key_bundle_t::hold_on_devices).
#include <starpu.h>

#include "dag/batch.hpp"

namespace starzk::dag {

std::optional<partition_result_t> batch_t::collect(uint32_t chain) {
  flight_t f;
  bool stopping = false;  // the batch is going: results are dropped, no retry
  {
    std::lock_guard<std::mutex> lk(mu_);
    stopping = stopping_;
    auto it = flights_.find(chain);
    if (it == flights_.end()) throw std::logic_error("batch: unknown partition finished");
    f = std::move(it->second);
    flights_.erase(it);
  }
  partition_result_t r;
  r.job = f.job;
  r.index = f.index;
  r.chain = chain;
  r.label = f.label;
  r.retries = f.attempt.retries;
  r.first_error = f.attempt.first_error;
  if (!f.part) {  // failed before it reached StarPU
    r.error = f.error;
    return r;
  }
  const codelets::partition_state_t& s = f.part->state();
  r.ok = !s.failed();
  if (r.ok) {
    r.proof = s.proof;
    r.publics = s.publics;
    f.part.reset();
    // The key's resident arrays have reached the GPUs that ran this
    // partition: from now on no allocation may evict them.
    if (f.attempt.key) f.attempt.key->hold_on_devices();
    return r;
  }
  r.error = s.error();
  const bool retry = options_.retry_on_cpu && !stopping && s.device_fault() && f.attempt.retries == 0 && f.attempt.key;
  f.part.reset();  // unregisters the handles (its tasks are all over)
  if (!retry) return r;
  attempt_t again = std::move(f.attempt);
  again.retries = 1;
  again.only = STARPU_CPU;
  again.first_error = r.error;
  try {
    launch(std::move(again));
  } catch (const std::exception& e) {
    r.retries = 1;
    r.first_error = r.error;
    r.error = r.label + ": the retry on the CPUs could not start: " + e.what();
    return r;
  }
  return std::nullopt;
}

std::optional<partition_result_t> batch_t::wait_next() {
  for (;;) {
    uint32_t chain = 0;
    {
      std::unique_lock<std::mutex> lk(mu_);
      if (flights_.empty()) return std::nullopt;
      done_cv_.wait(lk, [&] { return !done_.empty(); });
      chain = done_.front();
      done_.pop_front();
    }
    if (auto r = collect(chain)) return r;
  }
}

std::optional<partition_result_t> batch_t::wait_next_until(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    uint32_t chain = 0;
    {
      std::unique_lock<std::mutex> lk(mu_);
      if (flights_.empty()) return std::nullopt;
      if (!done_cv_.wait_until(lk, deadline, [&] { return !done_.empty(); })) return std::nullopt;
      chain = done_.front();
      done_.pop_front();
    }
    if (auto r = collect(chain)) return r;
  }
}

std::optional<partition_result_t> batch_t::poll() {
  for (;;) {
    uint32_t chain = 0;
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (done_.empty()) return std::nullopt;
      chain = done_.front();
      done_.pop_front();
    }
    if (auto r = collect(chain)) return r;
  }
}

}  // namespace starzk::dag
