// batch_pairs.cpp: how a batch hands its partitions to StarPU, alone or in
// pairs (dag/partition_pair.hpp), and what it does when a submission fails.
//
// Pairs: where a key's partitions may pair (pairs_for), a partition that
// is ready while another of its key is still loading waits, unsubmitted
// (parked: one at a time), for that one, and the two go to StarPU as a
// pair; with no partner in sight it goes alone, as every partition does
// where pairs are off. Only loads that hold their whole reservation count
// as partners to wait for: a staged one (batch_t::admit) may be waiting
// for memory that the parked partition holds. A load that fails lets the
// parked partition go alone when no other partner is loading
// (fail_early). So a parked partition waits for nothing but loads in
// progress, each of which ends in submit_flight or fail_early.
#include <starpu.h>

#include <algorithm>
#include <exception>

#include "dag/batch.hpp"
#include "dag/partition_pair.hpp"

namespace starzk::dag {

bool batch_t::partner_loading(const key_bundle_t& key, uint32_t chain) const {
  for (const auto& [c, f] : flights_)
    if (c != chain && f.may_pair && !f.handed && f.error.empty() && f.key == &key) return true;
  return false;
}

void batch_t::submit_flight(const ready_t& r) {
  std::optional<ready_t> parked;
  const bool may_pair = pairs_for(r.part->key(), r.ctx);
  {
    std::lock_guard<std::mutex> lk(mu_);
    flights_[r.chain].handed = true;  // no longer a load to wait for
    if (may_pair && parked_ && &parked_->part->key() == &r.part->key()) {
      parked = parked_;
      parked_.reset();
    } else if (may_pair && !parked_ && partner_loading(r.part->key(), r.chain)) {
      parked_ = r;
      return;
    }
  }
  if (!parked) {
    submit_now(r, nullptr, r.chain);
    release_parked();  // one parked may have counted on this one
    return;
  }
  // The pair's task goes in the chain of the lower id (the older partition).
  if (parked->chain < r.chain) return submit_now(*parked, &r, r.chain);
  submit_now(r, &*parked, r.chain);
}

void batch_t::release_parked() {
  std::optional<ready_t> alone;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (!parked_ || partner_loading(parked_->part->key(), parked_->chain)) return;
    alone = parked_;
    parked_.reset();
  }
  submit_now(*alone, nullptr, std::nullopt);  // a failure is queued as its result
}

void batch_t::submit_now(const ready_t& r, const ready_t* partner, std::optional<uint32_t> caller_chain) {
  try {
    if (partner)
      submit_pair(*r.part, r.ctx, *partner->part, partner->ctx);
    else
      submit_partition(*r.part, r.ctx);
  } catch (const std::exception& e) {
    // Some tasks are in StarPU: let them drain, then drop the partitions.
    r.part->state().fail("submit", e.what());
    if (partner) partner->part->state().fail("submit", e.what());
    starpu_task_wait_for_all();
    for (const ready_t* x : {&r, partner}) {
      if (!x) continue;
      std::unique_ptr<partition_t> dead;
      uint32_t job = 0, index = 0;
      {
        std::lock_guard<std::mutex> lk(mu_);
        flight_t& f = flights_[x->chain];
        dead = std::move(f.part);
        job = f.job, index = f.index;
        flights_.erase(x->chain);
        std::erase(done_, x->chain);
      }
      // Its reservation, unless on_done already gave it back (less the
      // rows a free task gave back; release() clamps at zero if on_prep
      // returned part of it: a rare, harmless over-release).
      const uint64_t early = dead->rows_released.load();
      if (dead->pending_callbacks.load() > 0) budget_.release(x->bytes > early ? x->bytes - early : 0);
      const std::string label = dead->state().label;
      dead.reset();
      // The caller reports its own partition's failure; another's is
      // queued here.
      if (x->chain != caller_chain) {
        const std::string what = e.what();
        fail_early(x->chain, job, index, label, what.find(label) == std::string::npos ? label + ": " + what : what);
      }
    }
    if (caller_chain) throw;
  }
}

}  // namespace starzk::dag
