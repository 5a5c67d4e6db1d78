// device_hold.hpp: read-only handles held on a device's memory node, so
// that StarPU's memory reclaim never evicts them.
//
// When an allocation on a GPU does not fit, StarPU reclaims twice its size
// from the replicas no task is using at that moment, oldest first. A key's
// resident arrays (dag/key_bundle.hpp) are such replicas between the tasks
// that read them: a partition's 4 GiB witness that finds the device full
// can evict a 12 GiB query, and the next MSM then copies it back from
// pageable host memory (1.7 s at 2^27, with the GPU idle). A replica with a
// reference count on its node is never reclaimed; an R acquisition on the
// node (starpu_data_acquire_on_node_cb) is such a reference and lets every
// task that reads the handle run as before.
//
// hold_if_valid() takes a hold only where StarPU already has a valid copy,
// so a hold never starts a copy of its own (the key's copies stay
// prefetches, which tasks' fetches overtake). hold_as_they_arrive() takes
// the holds of a set of handles from a watcher thread as their copies
// land, so that a prefetched array is held before the first allocation
// that finds the device full can reclaim it. release_all() stops the
// watcher and gives every hold back; one whose acquisition has not called
// back yet is given back from its callback. Handles must not be
// unregistered while held: release first. Destroy the object only after
// release_all() and after the held handles are unregistered
// (unregistering waits for the callbacks), or once every hold has called
// back. Thread-safe.
#pragma once

#include <starpu.h>

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace starzk::dag {

class device_hold_t {
 public:
  device_hold_t() = default;
  ~device_hold_t();
  device_hold_t(const device_hold_t&) = delete;
  device_hold_t& operator=(const device_hold_t&) = delete;

  // Holds h on memory node `node` if StarPU has a valid copy there now and
  // it is not held there yet: true when a hold was taken. After
  // release_all(), or when StarPU refuses the acquisition, nothing is held
  // and the answer is false (a hold only spares copies, never changes an
  // answer).
  bool hold_if_valid(starpu_data_handle_t h, unsigned node);
  // Holds each of `handles` on each of `nodes` as soon as a valid copy is
  // there, looking every few milliseconds from a thread of its own until
  // all are held or release_all() is called. One watcher per object.
  void hold_as_they_arrive(std::vector<starpu_data_handle_t> handles, std::vector<unsigned> nodes);
  // Gives every hold back (those not acquired yet, when they are); no
  // further holds are taken.
  void release_all() noexcept;
  // Holds acquired and not given back.
  size_t held() const;

 private:
  struct entry_t {
    device_hold_t* owner;
    starpu_data_handle_t handle;
    unsigned node;
    bool acquired = false;
    bool released = false;
  };
  static void on_acquired(void* arg);
  // An entry (held, pending or refused) for (h, node) exists; mu_ held.
  bool entered_locked(starpu_data_handle_t h, unsigned node) const;
  void watch(std::vector<starpu_data_handle_t> handles, std::vector<unsigned> nodes);

  mutable std::mutex mu_;
  std::condition_variable called_back_;
  bool closing_ = false;
  size_t pending_ = 0;  // acquisitions whose callback has not run
  std::vector<std::unique_ptr<entry_t>> entries_;
  std::condition_variable stop_watch_;  // closing_ set
  std::thread watcher_;
};

}  // namespace starzk::dag
