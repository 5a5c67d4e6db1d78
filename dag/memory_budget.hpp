// memory_budget.hpp: a cap on the host bytes that partitions in flight may
// hold, so a big batch throttles its submission (waits for a partition to
// finish before submitting the next) instead of running out of memory.
//
// Accounting (dag/batch.cpp): before a partition is submitted it reserves
// key_bundle_t::partition_bytes() (witness, a, b, c, publics, and the
// prep_msm result at its largest); when prep_msm has run, the part of the
// prep reservation its result did not use is given back; rows a, b, c in
// host memory are given back by the free tasks after their last readers
// (b, c after the H phase, a after msm_h); when the last free task has
// run, the rest is. Where the whole does not fit, a partition may reserve
// its witness first, load it while others run, and its rows once they fit
// (one partition at a time stages so: batch.cpp). So the reserved total is
// always an upper bound of what the partitions really hold, and it never
// exceeds the cap, except that a partition larger than the whole cap may
// run alone (else it could never run). Keys and circuits are resident and
// outside the budget; the "auto" cap (half of MemAvailable) is taken again,
// lower, once a key is loaded (in_use + half of what is then available),
// so a key of tens of GB is not counted twice over.
//
// The default cap is a fraction of MemAvailable from /proc/meminfo.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace starzk::dag {

class memory_budget_t {
 public:
  explicit memory_budget_t(uint64_t cap = 0);  // 0: no cap

  uint64_t cap() const;
  // A new cap (0: none); reservations waiting for room are woken. Used by
  // the "auto" budget once a key is resident (cmd_batch), never to take
  // back what is reserved.
  void set_cap(uint64_t cap);
  // Blocks until `bytes` fit under the cap (or nothing but the caller's own
  // `held` bytes is reserved), then reserves them. A reservation that has
  // to wait is listed as waiting (waiting_fit_once_returned) from then
  // until it is granted, which takes it off the list under the same lock
  // that adds its bytes to in_use(); `on_wait` is called once, outside the
  // lock, before it blocks.
  void reserve(uint64_t bytes, uint64_t held = 0, const std::function<void()>& on_wait = {});
  // Reserves without waiting when the bytes fit (as reserve() counts
  // `held`); false otherwise.
  bool try_reserve(uint64_t bytes, uint64_t held = 0);
  // Whether every reservation waiting now could be granted once
  // `returning()` more bytes are given back, nothing else: returning() is
  // called under the lock, after in_use() is read, so a release racing with
  // it is counted as not yet given back (the answer errs towards no).
  bool waiting_fit_once_returned(const std::function<uint64_t()>& returning) const;
  // Gives bytes back (any thread, StarPU callbacks included). Never throws.
  void release(uint64_t bytes) noexcept;

  uint64_t in_use() const;
  uint64_t peak() const;   // largest in_use() seen
  uint64_t waits() const;  // reserve() calls that had to wait

 private:
  bool fits(uint64_t bytes, uint64_t held = 0) const { return fits_at(in_use_, bytes, held); }
  bool fits_at(uint64_t in_use, uint64_t bytes, uint64_t held) const {
    return cap_ == 0 || in_use <= held || in_use + bytes <= cap_;
  }

  uint64_t cap_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t in_use_ = 0, peak_ = 0, waits_ = 0;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> waiting_;  // id → (bytes, held) of a blocked reserve()
  uint64_t next_wait_ = 0;
};

// MemAvailable from /proc/meminfo, in bytes. Throws std::runtime_error if it
// cannot be read.
uint64_t mem_available_bytes();

// The default cap: `fraction` of MemAvailable.
uint64_t default_memory_budget(double fraction = 0.5);

// A byte count with an optional binary suffix: "123456", "512M", "1.5G",
// "2GiB", "64k" (the one parser of sizes: --mem-budget and the byte-valued
// knobs, e.g. STARZK_GPU_SCRATCH_MAX). Throws std::runtime_error
// "<what>'<text>': ..." (what: "memory budget ", "STARZK_GPU_SCRATCH_MAX=").
uint64_t parse_byte_size(std::string_view text, const std::string& what);

// "auto" (the default cap), "0" / "none" (no cap), or a byte count as
// parse_byte_size reads it. Throws std::runtime_error naming the text.
uint64_t parse_memory_budget(std::string_view text);

}  // namespace starzk::dag
