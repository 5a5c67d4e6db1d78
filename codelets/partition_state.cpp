// partition_state.cpp: failure recording and small helpers of the
// per-partition state (see partition_state.hpp).
#include "codelets/partition_state.hpp"

#include <stdexcept>

#include "codelets/codelets.hpp"

namespace starzk::codelets {

const char* msm_query_name(msm_query_t q) {
  switch (q) {
    case msm_query_t::h:
      return "msm_h";
    case msm_query_t::l:
      return "msm_l";
    case msm_query_t::a:
      return "msm_a";
    case msm_query_t::b_g1:
      return "msm_b1";
  }
  return "msm_?";
}

const mappable_vector_t<g1_affine_t>& msm_query_bases(const proving_key_t& pk, msm_query_t q) {
  switch (q) {
    case msm_query_t::h:
      return pk.h;
    case msm_query_t::l:
      return pk.l;
    case msm_query_t::a:
      return pk.a;
    case msm_query_t::b_g1:
      return pk.b_g1;
  }
  throw std::invalid_argument("unknown MSM query");
}

partition_state_t::partition_state_t() {
  for (int q = 0; q < msm_query_count; ++q) msm_args[q] = msm_task_arg_t{this, static_cast<msm_query_t>(q)};
}

const prep_pair_t& partition_state_t::cpu_prep(unsigned nthreads) {
  if (prep_ready_.load(std::memory_order_acquire)) return prep;
  std::lock_guard<std::mutex> lk(prep_mu_);
  if (prep_ready_.load(std::memory_order_relaxed)) return prep;
  // w = (1, inputs, aux): A, B_g1, B_g2 keep the constant wire and the
  // inputs in the tail; L runs over the aux wires alone.
  const size_t n_in = size_t(key.pk->n_public) + 1;
  if (w.size() < n_in) throw std::invalid_argument("witness shorter than its public inputs");
  const std::span<const fr_t> all(w);
  prep.w = prep_msm(all, n_in, nthreads);
  prep.aux = prep_msm(all.subspan(n_in), 0, nthreads);
  prep_bytes = prep_msm_bytes(prep.w) + prep_msm_bytes(prep.aux);
  prep_ready_.store(true, std::memory_order_release);
  return prep;
}

uint64_t partition_state_t::h_len() const {
  return key.pk->convention == root_convention_t::bellman ? key.pk->domain_size - 1 : key.pk->domain_size;
}

void partition_state_t::fail(const char* phase, const char* what) noexcept {
  try {
    std::lock_guard<std::mutex> lk(mu_);
    if (failed_.load(std::memory_order_relaxed)) return;
    error_ = "partition " + label + ": " + phase + ": " + what;
  } catch (...) {
    // Out of memory while building the message: the flag alone still fails the partition.
  }
  failed_.store(true, std::memory_order_release);
}

std::string partition_state_t::error() const {
  std::lock_guard<std::mutex> lk(mu_);
  if (error_.empty() && failed()) return "partition " + label + ": failed";
  return error_;
}

}  // namespace starzk::codelets
