// The job runner's read-ahead queue (read_ahead.hpp).
#include "dag/read_ahead.hpp"

#include <utility>

namespace starzk::dag {

read_ahead_t::~read_ahead_t() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stopping_ = true;
    queue_.clear();  // no use once nothing waits for them
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void read_ahead_t::give(std::function<void()> hint) {
  if (!hint) return;
  {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.push_back(std::move(hint));
    if (!thread_.joinable()) thread_ = std::thread([this] { main(); });
  }
  cv_.notify_one();
}

void read_ahead_t::main() {
  for (;;) {
    std::function<void()> hint;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      hint = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      hint();
    } catch (...) {  // a hint; the real read reports what went wrong
    }
  }
}

}  // namespace starzk::dag
