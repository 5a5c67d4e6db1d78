// ready_queue.hpp: the ready tasks of one scheduling context, one ordered
// set per resource class.
//
// Order inside a class: oldest job first (smaller job sequence number),
// then higher StarPU priority, then first pushed. Because the oldest job's
// ready work always comes first and a job has finitely many tasks, every
// job finishes: no aging is needed. Untagged tasks are job 0, so a program
// that never tags its tasks gets a plain priority FIFO.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <set>

#include "policies/resource_class.h"

struct starpu_task;

namespace starzk::policies {

struct ready_entry_t {
  std::uint32_t job = 0;
  int priority = 0;
  std::uint64_t seq = 0;  // push order
  starpu_task* task = nullptr;
  std::uint64_t chain = 0;  // chain_key() of a GPU_CHAIN task
  bool last = false;        // last task of its chain
  mutable bool prefetched = false;

  // true when *this runs before o
  bool before(const ready_entry_t& o) const {
    if (job != o.job) return job < o.job;
    if (priority != o.priority) return priority > o.priority;
    return seq < o.seq;
  }
};

struct ready_order_t {
  bool operator()(const ready_entry_t& a, const ready_entry_t& b) const { return a.before(b); }
};

class ready_queue_t {
 public:
  using set_t = std::set<ready_entry_t, ready_order_t>;

  void push(int rc, const ready_entry_t& e) {
    sets_[rc].insert(e);
    ++size_;
  }
  void erase(int rc, set_t::iterator it) {
    sets_[rc].erase(it);
    --size_;
  }
  set_t& of(int rc) { return sets_[rc]; }
  std::size_t size() const { return size_; }

 private:
  std::array<set_t, STARZK_RC_COUNT> sets_;
  std::size_t size_ = 0;
};

}  // namespace starzk::policies
