// read_ahead.hpp: hints that the job runner gives before a partition is
// submitted, run in order on one background thread.
//
// A partition's witness is read only once the memory budget has room for
// it (batch.hpp), so with the budget full the disk sits idle while the GPU
// works, and the partition that gets the room then waits for its read
// (4.3 GB at 2^27). A part's hint (job_part_t::read_ahead: the command
// line's asks the kernel to read its witness file into the page cache)
// runs while the part still waits for room; the read that follows finds
// the bytes in memory. Hints run one at a time, in the order given, on a
// thread started at the first one; a hint must not throw (one that does is
// dropped). Hints not started when the queue goes are dropped; the one
// running is waited for.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace starzk::dag {

class read_ahead_t {
 public:
  read_ahead_t() = default;
  ~read_ahead_t();
  read_ahead_t(const read_ahead_t&) = delete;
  read_ahead_t& operator=(const read_ahead_t&) = delete;

  // Queues `hint` (an empty one is ignored).
  void give(std::function<void()> hint);

 private:
  void main();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;  // started by the first hint
};

}  // namespace starzk::dag
