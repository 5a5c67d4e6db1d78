// batch_pairs.cpp: how a batch hands its partitions to StarPU, alone or in
// pairs (dag/partition_pair.hpp), and what it does when a submission fails.
//
// Pairs: where a key's partitions may pair (pairs_for), a partition that
// is ready while another of its key is on its way (waiting for admission
// or loading) submits its head (witness map, H phase, msm_h: the same as
// alone) and parks its tail, one at a time; the next partition of the key
// to be ready becomes its second: the first's tail, whose witness MSMs
// compute both, and the second's whole DAG go to StarPU together. With no
// partner on its way a partition goes whole, alone, as every partition
// does where pairs are off.
//
// A parked tail holds its partition's witness, and once its head has
// ended the GPU lock too (its chain unfinished), so nothing may wait for
// it that it waits for. Its partner's admission may have to wait for host
// memory (a 2^27 partition on a host that holds a few): it may wait for
// what comes back without the tail. Until the head has ended that is what
// every other partition in StarPU holds, since the head's chain runs its
// own tasks and the chains before it end: a sector's partitions queue for
// the GPU seconds ahead, and the partner is ready long before the head
// runs. From then on it is the head's rows (given back after the H phase
// and msm_h) and what partitions hold whose work left needs no GPU lock
// (their chains ended: partition_t::chains_open). So a reservation that
// must wait (reserve) is listed by the budget while it waits (granting it
// takes it off under the lock that counts its bytes in); a tail is parked
// only where every listed wait would fit once that memory is back
// (tail_may_wait); a wait that would not fit releases the parked tail
// (alone) before it blocks, and so does the end of its head where the
// waits then would not fit (pairs_main). A load that fails, or a partner
// that goes alone, lets the parked tail go alone when no other partner is
// on its way. So a parked tail waits for nothing but partitions on their
// way, each of which ends in submit_flight or fail_early, and for memory
// given back by tasks that need nothing it holds.
#include <starpu.h>

#include <algorithm>
#include <exception>

#include "dag/batch.hpp"
#include "dag/partition_pair.hpp"

namespace starzk::dag {

batch_t::partner_t batch_t::partner_of(const key_bundle_t& key, uint32_t chain) const {
  partner_t found = partner_t::none;
  for (const auto& [c, f] : flights_) {
    if (c == chain || !f.may_pair || f.handed || !f.error.empty() || f.key != &key) continue;
    if (f.admitted) return partner_t::admitted;
    found = partner_t::on_its_way;
  }
  if (auto it = admitting_.find(&key); it != admitting_.end() && it->second > 0) found = partner_t::on_its_way;
  return found;
}

bool batch_t::tail_may_wait(const ready_t& r) const {
  const partner_t partner = partner_of(r.part->key(), r.chain);
  if (partner != partner_t::on_its_way) return partner == partner_t::admitted;  // admitted: waits for no memory
  const partition_t& p = *r.part;
  const bool head_ended = p.head_done.load(std::memory_order_acquire);
  auto returning = [&] {
    const uint64_t rows = p.host_row_bytes(), back = p.rows_released.load();
    uint64_t sum = rows > back ? rows - back : 0;  // what its head's free tasks have still to give back
    for (const auto& [c, f] : flights_) {
      if (c == r.chain || !f.part || !f.handed) continue;  // r, or not in StarPU yet
      if (head_ended && f.part->chains_open.load(std::memory_order_acquire) > 0) continue;
      const uint64_t given = f.part->returned.load(std::memory_order_acquire);
      sum += f.reserved > given ? f.reserved - given : 0;
    }
    return sum;
  };
  return budget_.waiting_fit_once_returned(returning);
}

void batch_t::pairs_main() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    pairs_cv_.wait(lk, [&] { return pairs_stopping_ || recheck_parked_; });
    if (!recheck_parked_) return;
    recheck_parked_ = false;
    lk.unlock();
    release_parked();
    lk.lock();
  }
}

void batch_t::reserve(uint64_t bytes, uint64_t held) {
  // Listed as waiting before the check, so a tail parked from now on sees it.
  budget_.reserve(bytes, held, [this] {
    bool release = false;
    {
      std::lock_guard<std::mutex> lk(mu_);
      release = parked_ && !tail_may_wait(*parked_);
    }
    if (release) release_parked();
  });
}

void batch_t::submit_flight(const ready_t& r) {
  std::lock_guard<std::recursive_mutex> submitting(submit_mu_);
  const bool may_pair = pairs_for(r.part->key(), r.ctx);
  std::optional<ready_t> first;
  bool head_first = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    flights_[r.chain].handed = true;  // no longer on its way
    if (may_pair && parked_ && &parked_->part->key() == &r.part->key()) {
      first = parked_;
      parked_.reset();
    } else {
      head_first = may_pair && !parked_ && partner_of(r.part->key(), r.chain) != partner_t::none;
    }
  }
  if (first) return submit_now(*first, &r, part_t::tail, r.chain);  // the first's tail for both, r whole
  if (!head_first) {
    submit_now(r, nullptr, part_t::whole, r.chain);
    release_parked();  // one parked may have counted on this one
    return;
  }
  submit_now(r, nullptr, part_t::head, r.chain);
  {
    // Decided under the lock that registers waits: a wait registered from
    // now on sees the parked tail (reserve).
    std::lock_guard<std::mutex> lk(mu_);
    if (tail_may_wait(r)) {
      parked_ = r;
      return;
    }
  }
  submit_now(r, nullptr, part_t::tail, r.chain);
}

void batch_t::release_parked() {
  std::lock_guard<std::recursive_mutex> submitting(submit_mu_);
  std::optional<ready_t> alone;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (!parked_ || tail_may_wait(*parked_)) return;
    alone = parked_;
    parked_.reset();
  }
  submit_now(*alone, nullptr, part_t::tail, std::nullopt);  // a failure is queued as its result
}

void batch_t::submit_now(const ready_t& r, const ready_t* partner, part_t what, std::optional<uint32_t> caller_chain) {
  try {
    if (partner)
      submit_pair(*r.part, r.ctx, *partner->part, partner->ctx);
    else if (what == part_t::head)
      submit_head(*r.part, r.ctx);
    else if (what == part_t::tail)
      submit_tail(*r.part, r.ctx);
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
      // Its reservation, unless on_done already gave it back, less what
      // on_prep and the rows' free tasks gave back.
      const uint64_t early = dead->returned.load(std::memory_order_acquire);
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
