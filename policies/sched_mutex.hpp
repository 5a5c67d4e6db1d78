// sched_mutex.hpp: the mutex the policies hold on scheduling paths (push,
// pop, the ledger).
//
// It is StarPU's own mutex wrapper, not std::mutex. In a normal StarPU
// that is a pthread mutex. In a StarPU built with SimGrid every worker is
// a simulated actor and all actors take turns on one OS thread, switching
// only inside SimGrid calls: an actor that blocks on a std::mutex held by
// another actor blocks that thread, and the holder never runs again. The
// wrapper is then a SimGrid mutex, on which a waiting actor yields to the
// holder. Statically initialised (lazily created under SimGrid), so it is
// safe in objects built before StarPU starts.
#pragma once

#include <starpu.h>

namespace starzk::policies {

class sched_mutex_t {
 public:
  sched_mutex_t() = default;
  ~sched_mutex_t() {
#ifndef STARPU_SIMGRID
    starpu_pthread_mutex_destroy(&m_);  // a SimGrid mutex may outlive the simulation: left alone
#endif
  }
  sched_mutex_t(const sched_mutex_t&) = delete;
  sched_mutex_t& operator=(const sched_mutex_t&) = delete;

  void lock() { starpu_pthread_mutex_lock(&m_); }
  void unlock() { starpu_pthread_mutex_unlock(&m_); }
  bool try_lock() { return starpu_pthread_mutex_trylock(&m_) == 0; }

 private:
  starpu_pthread_mutex_t m_ = STARPU_PTHREAD_MUTEX_INITIALIZER;
};

}  // namespace starzk::policies
