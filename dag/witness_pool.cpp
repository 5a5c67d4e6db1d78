// witness_pool.cpp: page-locked witness buffers reused across partitions
// (see witness_pool.hpp).
#include "dag/witness_pool.hpp"

#include <starpu.h>

#include <algorithm>

namespace starzk::dag {

witness_pool_t::witness_pool_t(bool pin, size_t max_idle) : pin_(pin), max_idle_(max_idle) {}

witness_pool_t::~witness_pool_t() {
  for (std::vector<fr_t>& v : idle_) release(v);
}

std::vector<fr_t> witness_pool_t::take(size_t n, size_t capacity) {
  capacity = std::max(n, capacity);
  {
    std::lock_guard<std::mutex> lk(mu_);
    // The smallest idle buffer that holds `capacity` values.
    auto best = idle_.end();
    for (auto it = idle_.begin(); it != idle_.end(); ++it)
      if (it->capacity() >= capacity && (best == idle_.end() || it->capacity() < best->capacity())) best = it;
    if (best != idle_.end()) {
      std::vector<fr_t> v = std::move(*best);
      idle_.erase(best);
      v.resize(n);  // within capacity: the storage stays where it was locked
      return v;
    }
    ++created_;
  }
  std::vector<fr_t> v;
  v.reserve(capacity);
  v.resize(n);
  // Failing to lock only costs speed (the copies go through StarPU's
  // staging): such a buffer is then reused unlocked.
  if (pin_ && n > 0 && starpu_memory_pin(v.data(), v.capacity() * sizeof(fr_t)) == 0) {
    std::lock_guard<std::mutex> lk(mu_);
    locked_.push_back(v.data());
  }
  return v;
}

void witness_pool_t::give_back(std::vector<fr_t>&& v) noexcept {
  if (v.capacity() == 0) return;
  std::vector<fr_t> mine = std::move(v);
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (idle_.size() < max_idle_) {
      try {
        idle_.push_back(std::move(mine));
        return;
      } catch (...) {  // no room to keep it: free it below
      }
    }
  }
  release(mine);
}

void witness_pool_t::release(std::vector<fr_t>& v) noexcept {
  bool locked = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = std::find(locked_.begin(), locked_.end(), v.data());
    if (it != locked_.end()) {
      locked_.erase(it);
      locked = true;
    }
  }
  if (locked) starpu_memory_unpin(v.data(), v.capacity() * sizeof(fr_t));
  std::vector<fr_t>().swap(v);
}

size_t witness_pool_t::created() const {
  std::lock_guard<std::mutex> lk(mu_);
  return created_;
}

size_t witness_pool_t::idle() const {
  std::lock_guard<std::mutex> lk(mu_);
  return idle_.size();
}

}  // namespace starzk::dag
