// partition.cpp: a partition in flight (see partition_dag.hpp): its
// witness and rows taken from the batch's pool, its StarPU handles, and the
// callbacks its tasks end with. The callbacks count down to on_done (the
// partition may then be collected and destroyed), hand host memory back to
// the batch's budget (on_prep, on_rows), and tell the batch where the GPU
// chain stands (head_done, chains_open), which decides whether a tail may
// wait parked for a partner (dag/batch_pairs.cpp).
#include <stdexcept>

#include "dag/partition_dag.hpp"
#include "dag/partition_handles.hpp"
#include "runtime/trace.hpp"

namespace starzk::dag {

using codelets::msm_query_t;

partition_t::partition_t(std::shared_ptr<const key_bundle_t> key, std::vector<fr_t>&& witness, std::string label,
                         unsigned threads, bool verify, witness_pool_t& pool)
    : key_(std::move(key)), pool_(pool) {
  if (!key_) throw std::runtime_error(label + ": no key");
  const proving_key_t& pk = key_->pk();
  if (witness.size() != pk.n_vars)
    throw std::runtime_error(label + ": witness has " + std::to_string(witness.size()) + " values, the key '" +
                             key_->name() + "' expects " + std::to_string(pk.n_vars));
  if (!witness[0].is_one()) throw std::runtime_error(label + ": witness: w[0] must be 1");
  codelets::partition_state_t& s = state_;
  // a, b, c: where the memory plan keeps them on a GPU, StarPU's own (no
  // home: allocated where spmv writes them); in host memory, buffers of the
  // witness pool as their home, so that a partition neither page-locks nor
  // page-faults 3n fresh values (12 GiB at 2^27); their free tasks hand
  // them back; a has none where it stays on the device through the H
  // phase in passes (key_bundle_t::a_on_device_only). Taken first: nothing
  // else is the partition's yet if one fails.
  host_rows_ = !key_->rows_on_device();
  a_home_ = host_rows_ && !key_->a_on_device_only();
  if (host_rows_) {
    try {
      for (int i = a_home_ ? 0 : 1; i < 3; ++i) s.rows[i] = pool.take(pk.domain_size, key_->pool_values());
    } catch (...) {
      for (std::vector<fr_t>& r : s.rows) pool.give_back(std::move(r));
      throw;
    }
  }
  s.key = key_->view();
  s.label = std::move(label);
  s.threads = threads == 0 ? 1 : threads;
  s.verify = verify;
  s.publics.assign(witness.begin() + 1, witness.begin() + 1 + pk.n_public);
  s.w = std::move(witness);
  // With CUDA workers the witness crosses PCIe (spmv and the MSMs read it
  // on the GPU): its pool page-locked the buffer once for fast asynchronous
  // copies; the free task hands it back.
  s.recycle = [&pool](std::vector<fr_t>&& v) { pool.give_back(std::move(v)); };
  const bool uncached = key_->rows_made_on_device() || key_->h_phase_in_passes();
  w = register_fr_vector(s.w.size(), &s.w, uncached);
  starpu_data_handle_t* rows[3] = {&a, &b, &c};
  for (int i = 0; i < 3; ++i)
    *rows[i] = register_fr_vector(pk.domain_size, host_rows_ && (i > 0 || a_home_) ? &s.rows[i] : nullptr, uncached);
  if (host_rows_) pending_callbacks += a_home_ ? 2 : 1;  // the rows' free tasks
  prep = register_variable(s.prep);
  res[int(msm_query_t::h)] = register_variable(s.msm.h);
  res[int(msm_query_t::l)] = register_variable(s.msm.l);
  res[int(msm_query_t::a)] = register_variable(s.msm.a);
  res[int(msm_query_t::b_g1)] = register_variable(s.msm.b_g1);
  res_b2 = register_variable(s.msm.b_g2);
  proof = register_variable(s.proof);
}

partition_t::~partition_t() {
  // Each handle leaves the trace's records before StarPU frees it. The free
  // tasks released the big vectors: nothing of w, a, b, c, prep is copied back.
  auto drop = [&](starpu_data_handle_t h, bool coherent) {
    if (!h) return;
    if (trace) trace->forget(h);
    if (coherent)
      starpu_data_unregister(h);
    else
      starpu_data_unregister_no_coherency(h);
  };
  for (starpu_data_handle_t h : {w, a, b, c, prep}) drop(h, false);
  for (starpu_data_handle_t h : res) drop(h, true);
  for (starpu_data_handle_t h : {res_b2, proof}) drop(h, true);
  for (std::vector<fr_t>* v : {&state_.w, &state_.rows[0], &state_.rows[1], &state_.rows[2]})
    if (!v->empty()) pool_.give_back(std::move(*v));  // a free task never ran
}

void partition_t::callback_done() noexcept {
  if (pending_callbacks.fetch_sub(1, std::memory_order_acq_rel) == 1 && on_done) {
    try {
      on_done(*this);
    } catch (...) {
    }
  }
}

// ---- the callbacks (StarPU's, C: none may throw) -----------------------------

void partition_t::prep_done(void* arg) noexcept {
  auto* p = static_cast<partition_t*>(arg);
  try {
    if (p->on_prep) p->on_prep(*p, p->state().prep_bytes);
  } catch (...) {
  }
  p->callback_done();
}

void partition_t::task_done(void* arg) noexcept { static_cast<partition_t*>(arg)->callback_done(); }

template <unsigned rows>
void partition_t::rows_freed(void* arg) noexcept {
  auto* p = static_cast<partition_t*>(arg);
  const uint64_t bytes = p->row_bytes() * rows;
  p->rows_released.fetch_add(bytes, std::memory_order_acq_rel);
  try {
    if (p->on_rows) p->on_rows(*p, bytes);
  } catch (...) {
  }
  p->callback_done();
}
template void partition_t::rows_freed<1>(void*) noexcept;
template void partition_t::rows_freed<2>(void*) noexcept;

// The partner's count goes down before this partition's own callback_done,
// which may end this partition (on_done) and let it be destroyed; the
// partner waited for this callback (its pending_callbacks), so it is alive.
template <bool head, bool last>
void partition_t::chain_step(void* arg) noexcept {
  auto* p = static_cast<partition_t*>(arg);
  if (last) {
    if (partition_t* second = p->chain_partner) {
      second->chains_open.fetch_sub(1, std::memory_order_acq_rel);
      second->callback_done();
    }
    p->chains_open.fetch_sub(1, std::memory_order_acq_rel);
  }
  if (head) {
    p->head_done.store(true, std::memory_order_release);
    try {
      if (p->on_head_done) p->on_head_done(*p);
    } catch (...) {
    }
  }
  p->callback_done();
}
template void partition_t::chain_step<true, false>(void*) noexcept;
template void partition_t::chain_step<false, true>(void*) noexcept;
template void partition_t::chain_step<true, true>(void*) noexcept;

}  // namespace starzk::dag
