// witness_pool.hpp: page-locked witness buffers, reused from one partition
// to the next (and the rows a, b, c where a partition keeps them in host
// memory: dag/partition_dag.cpp).
//
// With CUDA workers the witness w crosses PCIe (spmv and the MSMs read it on
// the GPU), so it must be page-locked for fast asynchronous copies. Locking
// and unlocking 512 MiB per 2^24 partition (cudaHostRegister /
// cudaHostUnregister under starpu_memory_pin) costs tens to hundreds of ms
// per call, in driver calls that the CUDA workers' own calls wait behind; a
// fresh vector per witness also page-faults all of it in. The pool locks a
// buffer once and hands it out again: take(n) gives a buffer of n values
// (reusing an idle one whose capacity suffices), give_back() returns it. At
// most `max_idle` buffers wait idle; beyond that a returned buffer is
// unlocked and freed. Everything is unlocked when the pool goes.
//
// A buffer is a std::vector<fr_t> whose storage never moves while the pool
// knows it: fill it through a span, never resize it past its capacity.
// Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "ff/fr.hpp"

namespace starzk::dag {

class witness_pool_t {
 public:
  // pin: page-lock the buffers (starpu_memory_pin; only useful with CUDA
  // workers). StarPU must stay up while the pool holds locked buffers.
  witness_pool_t(bool pin, size_t max_idle);
  ~witness_pool_t();
  witness_pool_t(const witness_pool_t&) = delete;
  witness_pool_t& operator=(const witness_pool_t&) = delete;

  // A buffer of exactly n values (contents unspecified) with room for at
  // least `capacity` (at least n): the smallest idle one that has it, else
  // a new one of that capacity.
  std::vector<fr_t> take(size_t n, size_t capacity = 0);
  // Back to the pool (or unlocked and freed when max_idle wait already).
  // Never throws; a vector the pool did not hand out is just freed.
  void give_back(std::vector<fr_t>&& v) noexcept;

  bool pins() const { return pin_; }
  size_t created() const;  // buffers allocated so far
  size_t idle() const;     // buffers waiting in the pool now

 private:
  void release(std::vector<fr_t>& v) noexcept;  // unlock (if locked) and free

  const bool pin_;
  const size_t max_idle_;
  mutable std::mutex mu_;
  std::vector<std::vector<fr_t>> idle_;
  std::vector<const fr_t*> locked_;  // storage the pool page-locked
  size_t created_ = 0;
};

}  // namespace starzk::dag
