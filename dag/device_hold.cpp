// device_hold.cpp: read-only handles held on a device's memory node
// (see device_hold.hpp).
#include "dag/device_hold.hpp"

#include <chrono>
#include <utility>

namespace starzk::dag {

device_hold_t::~device_hold_t() {
  release_all();
  // A callback still to come would find a freed entry: wait for it (none
  // is pending once the handles are unregistered).
  std::unique_lock<std::mutex> lk(mu_);
  called_back_.wait(lk, [&] { return pending_ == 0; });
}

bool device_hold_t::entered_locked(starpu_data_handle_t h, unsigned node) const {
  for (const auto& x : entries_)
    if (x->handle == h && x->node == node) return true;
  return false;
}

bool device_hold_t::hold_if_valid(starpu_data_handle_t h, unsigned node) {
  if (h == nullptr) return false;
  int allocated = 0, valid = 0, requested = 0;
  starpu_data_query_status(h, int(node), &allocated, &valid, &requested);
  if (!valid) return false;
  entry_t* e = nullptr;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (closing_ || entered_locked(h, node)) return false;
    entries_.push_back(std::make_unique<entry_t>(entry_t{this, h, node}));
    e = entries_.back().get();
    ++pending_;
  }
  // The callback may run before this call returns (the copy is there):
  // no lock is held across it.
  if (starpu_data_acquire_on_node_cb(h, int(node), STARPU_R, &on_acquired, e) != 0) {
    std::lock_guard<std::mutex> lk(mu_);
    --pending_;
    e->released = true;  // never acquired: nothing to give back
    called_back_.notify_all();
    return false;
  }
  return true;
}

void device_hold_t::on_acquired(void* arg) {
  entry_t* e = static_cast<entry_t*>(arg);
  device_hold_t* self = e->owner;
  bool give_back = false;
  {
    std::lock_guard<std::mutex> lk(self->mu_);
    e->acquired = true;
    if (self->closing_) give_back = e->released = true;
  }
  if (give_back) starpu_data_release_on_node(e->handle, int(e->node));
  std::lock_guard<std::mutex> lk(self->mu_);
  --self->pending_;
  self->called_back_.notify_all();
}

void device_hold_t::hold_as_they_arrive(std::vector<starpu_data_handle_t> handles, std::vector<unsigned> nodes) {
  if (handles.empty() || nodes.empty()) return;
  std::lock_guard<std::mutex> lk(mu_);
  if (closing_ || watcher_.joinable()) return;
  watcher_ = std::thread(&device_hold_t::watch, this, std::move(handles), std::move(nodes));
}

// The watcher: every few milliseconds, a hold on each (handle, node) whose
// copy has landed and that nobody holds yet. A copy of the largest array
// takes seconds, so the poll costs nothing next to it, and a hold comes at
// most one period after the copy.
void device_hold_t::watch(std::vector<starpu_data_handle_t> handles, std::vector<unsigned> nodes) {
  std::vector<std::pair<starpu_data_handle_t, unsigned>> waiting;
  for (unsigned node : nodes)
    for (starpu_data_handle_t h : handles)
      if (h) waiting.push_back({h, node});
  auto entered = [&](starpu_data_handle_t h, unsigned node) {
    std::lock_guard<std::mutex> lk(mu_);
    return entered_locked(h, node);
  };
  for (;;) {
    std::erase_if(waiting,
                  [&](const auto& w) { return hold_if_valid(w.first, w.second) || entered(w.first, w.second); });
    std::unique_lock<std::mutex> lk(mu_);
    if (waiting.empty() || stop_watch_.wait_for(lk, std::chrono::milliseconds(5), [&] { return closing_; })) return;
  }
}

void device_hold_t::release_all() noexcept {
  std::vector<entry_t*> now;
  {
    std::lock_guard<std::mutex> lk(mu_);
    closing_ = true;
  }
  stop_watch_.notify_all();
  // No hold is taken once closing_ is set; the watcher returns at once.
  if (watcher_.joinable()) watcher_.join();
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (const auto& e : entries_)
      if (e->acquired && !e->released) {
        e->released = true;
        now.push_back(e.get());
      }
  }
  for (entry_t* e : now) starpu_data_release_on_node(e->handle, int(e->node));
}

size_t device_hold_t::held() const {
  std::lock_guard<std::mutex> lk(mu_);
  size_t n = 0;
  for (const auto& e : entries_) n += e->acquired && !e->released;
  return n;
}

}  // namespace starzk::dag
