// key_bundle.cpp: registering a key and its circuit once (see key_bundle.hpp).
#include "dag/key_bundle.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "codelets/codelets.hpp"
#include "codelets/cuda_support.hpp"
#include "codelets/msm_device.hpp"
#include "groth16/witness_map.hpp"
#include "policies/starzk_policies.h"
#include "runtime/starpu_session.hpp"
#include "util/config.hpp"

namespace starzk::dag {

namespace {

void expect_count(const std::string& name, const char* what, uint64_t got, uint64_t want) {
  if (got != want)
    throw std::runtime_error(name + ": " + what + " has " + std::to_string(got) + " entries, expected " +
                             std::to_string(want));
}

// The counts every query must have (keys.hpp), checked once per key.
void check_key(const std::string& name, const proving_key_t& pk, const r1cs_t* cs) {
  if (pk.domain_size == 0 || (pk.domain_size & (pk.domain_size - 1)) != 0)
    throw std::runtime_error(name + ": domain size " + std::to_string(pk.domain_size) + " is not a power of two");
  if (pk.n_vars < uint64_t(pk.n_public) + 1) throw std::runtime_error(name + ": fewer wires than public inputs");
  const uint64_t n_aux = uint64_t(pk.n_vars) - pk.n_public - 1;
  const bool bellman = pk.convention == root_convention_t::bellman;
  expect_count(name, "A query", pk.a.size(), pk.n_vars);
  expect_count(name, "B_g1 query", pk.b_g1.size(), pk.n_vars);
  expect_count(name, "B_g2 query", pk.b_g2.size(), pk.n_vars);
  expect_count(name, "L query", pk.l.size(), n_aux);
  expect_count(name, "H query", pk.h.size(), bellman ? pk.domain_size - 1 : pk.domain_size);
  expect_count(name, "IC", pk.vk.ic.size(), uint64_t(pk.n_public) + 1);
  if (bellman && cs == nullptr) throw std::runtime_error(name + ": a bellman/Filecoin key needs the circuit (.r1cs)");
  if (cs == nullptr) return;
  if (cs->n_vars != pk.n_vars || cs->n_public != pk.n_public)
    throw std::runtime_error(name + ": circuit (" + std::to_string(cs->n_vars) + " wires, " +
                             std::to_string(cs->n_public) + " public) does not match the key (" +
                             std::to_string(pk.n_vars) + " wires, " + std::to_string(pk.n_public) + " public)");
  if (domain_size_for(*cs) > pk.domain_size)
    throw std::runtime_error(name + ": circuit needs a domain of " + std::to_string(domain_size_for(*cs)) +
                             " rows, the key has " + std::to_string(pk.domain_size));
}

unsigned log2_exact(uint64_t n) {
  unsigned k = 0;
  while ((uint64_t(1) << k) < n) ++k;
  return k;
}

}  // namespace

key_bundle_t::key_bundle_t(std::shared_ptr<const proving_key_t> pk, std::shared_ptr<const r1cs_t> cs, std::string name,
                           unsigned threads)
    : name_(std::move(name)), pk_(std::move(pk)), cs_(std::move(cs)) {
  if (!pk_) throw std::runtime_error(name_ + ": no proving key");
  if (!starpu_is_initialized()) throw std::runtime_error(name_ + ": StarPU is not running");
  check_key(name_, *pk_, cs_.get());
  const auto t0 = std::chrono::steady_clock::now();
  domain_ = std::make_unique<domain_t>(log2_exact(pk_->domain_size), pk_->convention, threads);
  times_.domain_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  view_ = codelets::key_view_t{pk_.get(), cs_.get(), domain_.get()};
  try {
    plan_device_memory();  // which queries stream: those are no StarPU handle
    for (int q = 0; q < codelets::msm_query_count; ++q)
      if (!view_.g1_device[q].streamed) {
        const auto& bases = codelets::msm_query_bases(*pk_, codelets::msm_query_t(q));
        register_vector(g1_[q], bases.data(), bases.size(), sizeof(g1_affine_t));
      }
    if (!view_.b_g2_device.streamed) register_vector(b_g2_, pk_->b_g2.data(), pk_->b_g2.size(), sizeof(g2_affine_t));
    const auto t1 = std::chrono::steady_clock::now();
    register_device_domain();
    times_.device_domain_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    // Per matrix: row_ptr, col, then val (plain) or code, dict (coded), as
    // the spmv codelet takes them (codelets.hpp spmv_matrix_buffers).
    for (const sparse_matrix_t* m : spmv_matrices()) {
      const size_t before = matrices_.size();
      auto add = [&](const void* data, size_t count, size_t elem) {
        matrices_.emplace_back();
        register_vector(matrices_.back(), data, count, elem);
      };
      add(m->row_ptr.data(), m->row_ptr.size(), sizeof(uint64_t));
      add(m->col.data(), m->col.size(), sizeof(uint32_t));
      if (m->coded()) {
        add(m->code.data(), m->code.size(), sizeof(uint16_t));
        add(m->dict.data(), m->dict.size(), sizeof(fr_t));
      } else {
        add(m->val.data(), m->val.size(), sizeof(fr_t));
      }
      if (matrices_.size() - before != codelets::spmv_matrix_buffers(*m))
        throw std::logic_error("key_bundle_t: matrix handles and spmv buffers disagree");
    }
  } catch (...) {  // nothing is held yet
    for (starpu_data_handle_t h : all_) starpu_data_unregister(h);
    unpin_all();
    throw;
  }
  pin_for_devices();
  prefetch_to_devices();
  // Each resident array is held as soon as its copy lands, before any
  // partition's allocation can find the device full and reclaim it.
  hold_.hold_as_they_arrive(resident_on_devices(), cuda_nodes());
}

// What the plan keeps on each GPU, in the order the first chain reads it
// (the NTT domain, the CSR arrays where the witness map runs there, the
// resident queries); empty without a plan.
std::vector<starpu_data_handle_t> key_bundle_t::resident_on_devices() const {
  std::vector<starpu_data_handle_t> order;
  if (memory_input_.device == 0) return order;  // no plan: no CUDA workers or no count
  if (domain_h_) order.push_back(domain_h_);
  if (memory_plan_.optional_fits) order.insert(order.end(), matrices_.begin(), matrices_.end());
  for (int q : {0, 1, 2})
    if (g1_[q]) order.push_back(g1_[q]);  // h, l, a
  if (b_g2_) order.push_back(b_g2_);
  if (starpu_data_handle_t b1 = g1_[int(codelets::msm_query_t::b_g1)]) order.push_back(b1);
  return order;
}

std::vector<unsigned> key_bundle_t::cuda_nodes() {
  std::vector<unsigned> nodes;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
    if (starpu_worker_get_type(int(w)) == STARPU_CUDA_WORKER) {
      const unsigned node = starpu_worker_get_memory_node(w);
      if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
    }
  return nodes;
}

// Starts the copies of what the plan keeps on each GPU as soon as the key
// is registered, so that they cross PCIe while the first partitions'
// witness maps and H phases run instead of inside the first chain's MSMs
// (at 2^27, 60 GiB of queries; a task's own fetch still goes first:
// StarPU serves prefetch requests after fetches). The plan counts all of
// it; the holds then keep StarPU's reclaim off it.
void key_bundle_t::prefetch_to_devices() {
  const std::vector<starpu_data_handle_t> order = resident_on_devices();
  for (unsigned node : cuda_nodes())
    for (starpu_data_handle_t h : order)
      runtime::check_starpu(starpu_data_prefetch_on_node(h, node, 1), "starpu_data_prefetch_on_node");
}

// Holds every resident array that has arrived on a GPU (device_hold.hpp):
// the plan counted it there, so an allocation that finds the device full
// must take its room elsewhere. Cheap when everything is held.
void key_bundle_t::hold_on_devices() const {
  const std::vector<starpu_data_handle_t> order = resident_on_devices();
  if (order.empty()) return;
  for (unsigned node : cuda_nodes())
    for (starpu_data_handle_t h : order) hold_.hold_if_valid(h, node);
}

// The matrices the witness map reads: the circuit's A, B, C for a bellman
// key, the .zkey's A and B for a snarkjs key.
std::vector<const sparse_matrix_t*> key_bundle_t::spmv_matrices() const {
  if (pk_->convention == root_convention_t::bellman) return {&cs_->a, &cs_->b, &cs_->c};
  return {&pk_->zkey_a, &pk_->zkey_b};
}

// The device NTT domain (ntt_h's buffer 3): the whole table in host memory
// (lean, without the full twiddle tables, where the memory plan says so),
// registered like the queries, so StarPU copies it once to each GPU that
// runs an ntt_h and keeps it there. Without CUDA workers (or above the
// kernels' 2^27) a one-element dummy stands in: the CPU body never reads it.
void key_bundle_t::register_device_domain() {
#if STARZK_CODELETS_CUDA
  const unsigned log_n = log2_exact(pk_->domain_size);
  const uint64_t bytes = codelets::ntt_h_domain_bytes(log_n, memory_plan_.lean_domain);
  if (starpu_cuda_worker_get_count() > 0 && bytes > 0) {
    device_domain_.resize(bytes / sizeof(fr_t));
    try {
      codelets::build_ntt_h_domain(device_domain_, log_n, pk_->convention, memory_plan_.lean_domain);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(name_ + ": " + e.what());
    }
  }
#endif
  register_vector(domain_h_, device_domain_.data(), device_domain_.size(), sizeof(fr_t));
}

// The device memory plan (dag/key_residency.hpp), made with CUDA workers only: which queries
// stream from host memory, how much scratch an MSM body may take, and what each MSM task needs on
// a device at least (the codelets' can_execute reads it). The knobs are read here, once per key.
void key_bundle_t::plan_device_memory() {
  const gpu_memory_knobs_t knobs = gpu_memory_knobs_from_env();
  view_.scratch_max = knobs.scratch_max;
  view_.stream_piece_bytes = knobs.stream_piece_bytes;
  view_.h_passes_vectors = knobs.h_passes_vectors;
  codelets::set_h_passes_a_on_device(h_passes_a_on_device_ = knobs.h_passes_a_on_device);
  view_.msm_profile = config::get_switch("STARZK_MSM_PROFILE").value_or(false);
  view_.msm_piece_wait = config::get_switch("STARZK_MSM_PIECE_WAIT").value_or(false);
  view_.msm_shared_buckets = config::get_switch("STARZK_MSM_SHARED_BUCKETS").value_or(true);
  view_.msm_regroup = config::get_switch("STARZK_MSM_REGROUP").value_or(true);
  view_.g1_msms_together = knobs.msms_together.value_or(false);            // auto: decided below, with the plan
  view_.b_g2_pairs = (knobs.msm_pairs.value_or(0) & msm_pairs_b_g2) != 0;  // the same
  view_.g1_pairs = (knobs.msm_pairs.value_or(0) & msm_pairs_g1) != 0;
#if STARZK_CODELETS_CUDA
  if (starpu_cuda_worker_get_count() == 0) return;
  const proving_key_t& pk = *pk_;
  static_assert(
      key_query_count == codelets::msm_query_count + 1 && int(key_query_t::b_g1) == int(codelets::msm_query_t::b_g1),
      "the plan's queries are the msm codelet's, then B_g2");
  codelets::msm_shape_t shape[key_query_count];
  for (int q = 0; q < key_query_count; ++q) shape[q] = codelets::msm_query_shape(pk, q);
  const uint64_t scalar_bytes[key_query_count] = {sizeof(fr_t) * pk.domain_size, sizeof(fr_t) * pk.n_vars,
                                                  sizeof(fr_t) * pk.n_vars, sizeof(fr_t) * pk.n_vars,
                                                  sizeof(fr_t) * pk.n_vars};
  residency_input_t in;
  in.device = UINT64_MAX;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
    if (starpu_worker_get_type(int(w)) == STARPU_CUDA_WORKER) {
      const starpu_ssize_t total = starpu_memory_get_total(starpu_worker_get_memory_node(w));
      if (total > 0) in.device = std::min(in.device, uint64_t(total));
    }
  if (in.device == UINT64_MAX) return;  // StarPU counts no device memory: no plan
  const unsigned log_n = log2_exact(pk.domain_size);
  in.key_fixed = codelets::ntt_h_domain_bytes(log_n, false);
  in.key_fixed_lean = codelets::ntt_h_domain_bytes(log_n, true);
  in.headroom = in.device / 64;  // StarPU's and CUB's small buffers, the driver's share
  for (const sparse_matrix_t* m : spmv_matrices())
    in.key_optional += m->row_ptr.size() * sizeof(uint64_t) + m->col.size() * sizeof(uint32_t) +
                       m->val.size() * sizeof(fr_t) + m->code.size() * sizeof(uint16_t) + m->dict.size() * sizeof(fr_t);
  in.partition = sizeof(fr_t) * (uint64_t(pk.n_vars) + 3 * pk.domain_size);
  in.witness = sizeof(fr_t) * uint64_t(pk.n_vars);
  in.rows = sizeof(fr_t) * 3 * pk.domain_size;
  in.overlap = sizeof(fr_t) * (uint64_t(pk.n_vars) + pk.domain_size);
  in.map_scratch = knobs.rows_on_device ? codelets::spmv_dev_scratch_bytes(view_) : 0;
  for (int q = 0; q < key_query_count; ++q) {
    in.query[q] = shape[q].n * (shape[q].g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t));
    const size_t piece = std::min(shape[q].n, codelets::msm_plan_piece);
    in.scratch_floor = std::max(in.scratch_floor, codelets::msm_scratch_bytes(shape[q], piece, true, true));
  }
  in.forced = knobs.stream;
  const residency_plan_t plan = plan_key_residency(in);
  memory_input_ = in;
  memory_plan_ = plan;
  // The plan counts one partition mapped ahead of its chain: the starzk
  // policies are told (a bound already lower, none, or another policy
  // stays as it is).
  if (plan.run_ahead() > 0) (void)starzk_policy_limit_gpu_run_ahead(0, plan.run_ahead());
  // Two device vectors asked for the H phase in passes: the room they need
  // beside the chain's witness is what a staged next witness would take,
  // so the policy stages none into it (codelets/ntt_h_passes.cpp).
  if (plan.h_passes && view_.h_passes_vectors >= 2)
    (void)starzk_policy_reserve_gpu_memory(0, codelets::ntt_h_passes_two_vector_bytes(log2_exact(pk.domain_size)));
  view_.scratch_max = std::min(knobs.scratch_max, plan.scratch_budget);
  for (int q = 0; q < key_query_count; ++q) {
    codelets::msm_device_t& d = q < codelets::msm_query_count ? view_.g1_device[q] : view_.b_g2_device;
    d.streamed = plan.streams(q);
    d.min_scratch = codelets::msm_min_scratch_bytes(shape[q], d.streamed);
    d.buffer_bytes = (d.streamed ? 0 : in.query[q]) + scalar_bytes[q] +
                     (shape[q].g2 ? sizeof(g2_jacobian_t) : sizeof(g1_jacobian_t));
  }
  // auto: the G1 MSMs together where all four stream and may run on a GPU.
  // Never where a, b, c are made on the device: b_g2_msm waits for msm_h
  // there and the chain's end for b_g2_msm, which one task cannot do
  // (dag/partition_dag.cpp).
  if (!knobs.msms_together.has_value()) {
    bool together = (codelets::codelet_where(codelets::msm_codelet()) & STARPU_CUDA) != 0;
    for (int q = 0; q < codelets::msm_query_count; ++q) together = together && plan.streams(q);
    view_.g1_msms_together = together;
  }
  if (plan.rows_stay) view_.g1_msms_together = false;
  // auto: pairs of the witness MSMs whose bases stream (resident ones
  // cross PCIe once, pairs or not), where their codelet may run on a GPU.
  if (!knobs.msm_pairs.has_value()) {
    view_.b_g2_pairs = plan.streams(int(key_query_t::b_g2)) &&
                       (codelets::codelet_where(codelets::b_g2_msm_codelet()) & STARPU_CUDA) != 0;
    view_.g1_pairs = plan.streams(int(key_query_t::l)) && plan.streams(int(key_query_t::a)) &&
                     plan.streams(int(key_query_t::b_g1)) &&
                     (codelets::codelet_where(codelets::msm_codelet()) & STARPU_CUDA) != 0;
  }
#endif
}

std::string key_bundle_t::describe_memory_plan() const {
  return memory_input_.device == 0 ? std::string() : describe(memory_plan_, memory_input_);
}

// With CUDA workers, page-lock the arrays copied to the GPUs again and
// again, so that those copies run at full PCIe speed and asynchronously:
// the streamed queries, whose bases cross PCIe in every partition, and the
// CSR arrays where spmv_passes copies them in every partition. An
// array copied once per GPU (a resident query, the CSR arrays, the domain)
// stays pageable by default: page-locking costs about what a pageable copy
// of the same bytes costs, and at sector scale it is tens of GB (77 GB of
// queries at 2^27) that would be locked before the first task could start.
// STARZK_PIN_KEY: "streamed" (the default), "all" (every array StarPU or an
// MSM body copies), "0" or "off" (none). Pinning is an optimisation: an
// array that cannot be pinned (starpu_memory_pin fails, e.g. over the
// locked-memory limit) is copied from pageable memory instead.
void key_bundle_t::pin_for_devices() {
  if (starpu_cuda_worker_get_count() == 0) return;
  const std::string mode = config::get_word("STARZK_PIN_KEY").value_or("streamed");
  if (mode == "0" || mode == "off") return;
  const bool all = mode == "all";
  const auto t0 = std::chrono::steady_clock::now();
  for (int q = 0; q < codelets::msm_query_count; ++q)
    if (all || view_.g1_device[q].streamed) {
      const auto& bases = codelets::msm_query_bases(*pk_, codelets::msm_query_t(q));
      pin(bases.data(), bases.size() * sizeof(g1_affine_t));
    }
  if (all || view_.b_g2_device.streamed) pin(pk_->b_g2.data(), pk_->b_g2.size() * sizeof(g2_affine_t));
  if (all) pin(device_domain_.data(), device_domain_.size() * sizeof(fr_t));
  // Where the witness map copies the matrices in every partition
  // (spmv_passes), they are streamed arrays too.
  if (all || rows_on_host_with_gpus()) pin_matrices();
  uint64_t bytes = 0;
  for (const auto& pb : pinned_) bytes += pb.second;
  times_.pinned_bytes = bytes;
  times_.pin_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Page-locks one array, remembered for unpin_all; an array that cannot be
// locked stays pageable.
void key_bundle_t::pin(const void* p, size_t bytes) {
  if (p && bytes && starpu_memory_pin(const_cast<void*>(p), bytes) == 0) pinned_.push_back({p, bytes});
}

// The CSR arrays: copied once to each GPU where spmv keeps them there, in
// every partition where spmv_passes streams them.
void key_bundle_t::pin_matrices() {
  for (const sparse_matrix_t* m : spmv_matrices()) {
    pin(m->row_ptr.data(), m->row_ptr.size() * sizeof(uint64_t));
    pin(m->col.data(), m->col.size() * sizeof(uint32_t));
    // Plain: val; coded: code and dict (the other form's arrays are empty).
    pin(m->val.data(), m->val.size() * sizeof(fr_t));
    pin(m->code.data(), m->code.size() * sizeof(uint16_t));
    pin(m->dict.data(), m->dict.size() * sizeof(fr_t));
  }
}

std::string key_bundle_t::setup_times() const {
  char b[160];
  std::snprintf(b, sizeof b, "host NTT domain %.2f s, device NTT domain %.2f s, %.2f GB page-locked in %.2f s",
                times_.domain_seconds, times_.device_domain_seconds, double(times_.pinned_bytes) / 1e9,
                times_.pin_seconds);
  return b;
}

void key_bundle_t::unpin_all() noexcept {
  for (const auto& [p, bytes] : pinned_) starpu_memory_unpin(const_cast<void*>(p), bytes);
  pinned_.clear();
}

void key_bundle_t::register_vector(starpu_data_handle_t& h, const void* data, size_t count, size_t elem) {
  if (count == 0 || data == nullptr) {
    if (elem > sizeof(dummy_)) throw std::logic_error("key_bundle_t: element larger than the dummy");
    data = dummy_;
    count = 1;
  }
  if (count > UINT32_MAX)
    throw std::runtime_error(name_ + ": array of " + std::to_string(count) +
                             " entries is too long for a StarPU vector");
  starpu_vector_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(data), uint32_t(count), elem);
  all_.push_back(h);
}

key_bundle_t::~key_bundle_t() {
  // Every task reading these handles is over (partitions hold a reference
  // until theirs are); the holds go first (an unregister waits for them),
  // and unregistering copies nothing back (all are R-only).
  hold_.release_all();
  for (starpu_data_handle_t h : all_) starpu_data_unregister(h);
  unpin_all();
  // The CUDA workers' scratch goes with the key (re-grown on demand by the
  // next task that needs it), so nothing is left on the devices at shutdown.
  codelets::detail::release_worker_scratch();
}

bool key_bundle_t::rows_on_device() const { return memory_input_.device > 0 && memory_plan_.optional_fits; }
bool key_bundle_t::rows_made_on_device() const { return memory_input_.device > 0 && memory_plan_.rows_stay; }
bool key_bundle_t::h_phase_in_passes() const { return memory_input_.device > 0 && memory_plan_.h_passes; }
bool key_bundle_t::rows_on_host_with_gpus() const { return memory_input_.device > 0 && !memory_plan_.optional_fits; }

uint64_t key_bundle_t::pool_values() const {
  return rows_on_device() ? pk_->n_vars : std::max<uint64_t>(pk_->n_vars, pk_->domain_size);
}
bool key_bundle_t::a_on_device_only() const {  // spmv_passes writes a on the GPU unless placed on the CPUs
  return h_phase_in_passes() && h_passes_a_on_device_ && view_.h_passes_vectors >= 2 &&
         (codelets::codelet_where(codelets::spmv_passes_codelet()) & STARPU_CUDA) != 0;
}
unsigned key_bundle_t::host_rows() const { return rows_on_device() ? 0 : a_on_device_only() ? 2 : 3; }
uint64_t key_bundle_t::host_row_bytes() const { return host_rows() * sizeof(fr_t) * pool_values(); }

uint64_t key_bundle_t::partition_bytes() const {
  // a, b, c: where the plan keeps them on the device (the tasks that hold
  // them then run on GPUs, dag/partition_dag.cpp) no host memory; elsewhere
  // pool buffers (host_row_bytes).
  return sizeof(fr_t) * (pool_values() + pk_->n_public) + host_row_bytes() +
         codelets::prep_msm_max_bytes(pk_->n_vars, pk_->n_public);
}

}  // namespace starzk::dag
