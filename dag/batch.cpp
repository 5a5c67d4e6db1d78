// batch.cpp: jobs, partitions in flight, the memory budget and the
// completion queue, and the loader threads (see batch.hpp).
#include "dag/batch.hpp"

#include <starpu.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "codelets/codelets.hpp"
#include "dag/partition_pair.hpp"
#include "policies/resource_class.h"
#include "policies/starzk_policies.h"
#include "runtime/trace.hpp"
#include "util/config.hpp"

namespace starzk::dag {

namespace {

bool cuda_workers_present() { return starpu_is_initialized() && starpu_cuda_worker_get_count() > 0; }

// STARZK_PIN_WITNESS=0 keeps witnesses pageable (pinning is on with CUDA workers).
bool pin_witnesses() { return cuda_workers_present() && config::get_switch("STARZK_PIN_WITNESS").value_or(true); }

bool running_heteroprio() {
  const starpu_sched_policy* p = starpu_sched_ctx_get_sched_policy(0);
  return p && p->policy_name && std::strcmp(p->policy_name, "heteroprio") == 0;
}

// batch_options_t::prep_task: the option, else STARZK_PREP_TASK, else a
// prep_msm task only where the split MSMs will run on CPUs.
bool resolve_prep_task(int option) {
  if (option >= 0) return option != 0;
  if (const std::optional<bool> v = config::get_switch("STARZK_PREP_TASK")) return *v;
  if (starpu_cuda_worker_get_count() == 0) return true;
  // A split MSM placed on the CPUs by hand (set_placement: msm=cpu or
  // b_g2_msm=cpu) reads the CPU split of every partition.
  for (const starpu_codelet* cl : {codelets::msm_codelet(), codelets::b_g2_msm_codelet()})
    if (cl->where != 0 && !(cl->where & STARPU_CUDA)) return true;
  starzk_policy_config cfg{};
  return starzk_policy_get_config(0, &cfg) == 0 && cfg.chain_on_cpu == 1;
}

}  // namespace

unsigned default_loaders() {
  if (const std::optional<uint64_t> v = config::get_count("STARZK_LOADERS")) return unsigned(*v);
  return std::clamp(std::thread::hardware_concurrency() / 4, 2u, 8u);
}

batch_t::batch_t(const batch_options_t& options)
    // Four buffers per partition: the witness, and the rows a, b, c where
    // they live in host memory (dag/partition_dag.cpp).
    : options_(options), budget_(options.mem_budget), pool_(pin_witnesses(), 4 * (size_t(options.loaders) + 2)) {
  if (!starpu_is_initialized()) throw std::runtime_error("batch: StarPU is not running");
  if (starpu_cpu_worker_get_count() == 0)
    throw std::runtime_error("batch: no CPU worker (the codelets have CPU bodies only; set STARPU_NCPU >= 1)");
  if (starpu_memory_nodes_get_numa_count() > 1)
    throw std::runtime_error("batch: StarPU runs several main-RAM nodes (STARPU_USE_NUMA); the CPU bodies need one");
  // Under heteroprio a task's priority names its bucket (heteroprio.hpp).
  heteroprio_ = running_heteroprio();
  priorities_ = options.priorities < 0 ? !heteroprio_ : options.priorities != 0;
  const unsigned threads = std::max(1u, options.threads_per_task);
  mem_threads_ = options.mem_task_threads;
  if (mem_threads_ == 0) mem_threads_ = unsigned(config::get_count("STARZK_MEM_TASK_THREADS").value_or(0));
  if (mem_threads_ == 0) {
    starzk_policy_config cfg{};
    mem_threads_ = threads;
    if (starzk_policy_get_config(0, &cfg) == 0 && cfg.mem_interlock && cfg.mem_heavy_max > 0)
      mem_threads_ = std::max(threads, starpu_cpu_worker_get_count() / unsigned(cfg.mem_heavy_max));
  }
  if (options.trace) {  // how many threads a CPU body forks, for whoever reads the trace
    options.trace->set_meta("threads_per_task", std::to_string(threads));
    options.trace->set_meta("mem_task_threads", std::to_string(mem_threads_));
  }
  prep_task_ = resolve_prep_task(options.prep_task);
  for (unsigned i = 0; i < options.loaders; ++i) loaders_.emplace_back([this] { loader_main(); });
  pairs_thread_ = std::thread([this] { pairs_main(); });
}

batch_t::~batch_t() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stopping_ = true;  // the loaders finish what is queued, then leave
  }
  load_cv_.notify_all();
  for (std::thread& t : loaders_) t.join();
  try {
    while (wait_next()) {
    }
  } catch (...) {
  }
  {
    std::lock_guard<std::mutex> lk(mu_);
    pairs_stopping_ = true;
  }
  pairs_cv_.notify_all();
  pairs_thread_.join();
}

void batch_t::loader_main() {
  for (;;) {
    std::function<void()> work;
    {
      std::unique_lock<std::mutex> lk(mu_);
      load_cv_.wait(lk, [&] { return stopping_ || !load_queue_.empty(); });
      if (load_queue_.empty()) return;
      work = std::move(load_queue_.front());
      load_queue_.pop_front();
    }
    work();  // never throws: errors become failed results
  }
}

uint32_t batch_t::open_job(std::shared_ptr<const key_bundle_t> key, std::string name) {
  if (!key) throw std::runtime_error("batch: open_job without a key");
  if (next_job_ > STARZK_TAG_JOB_MAX) throw std::runtime_error("batch: too many jobs for the task tag");
  const uint32_t seq = next_job_++;
  jobs_[seq] = {std::move(key), std::move(name)};
  return seq;
}

void batch_t::close_job(uint32_t job) {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  // The key's handles are read-only: dropping what the trace knows of their
  // readers changes no edge while they live, and a handle registered at
  // their address after the key is gone starts clean (trace_recorder::forget).
  if (options_.trace)
    for (starpu_data_handle_t h : it->second.first->handles()) options_.trace->forget(h);
  jobs_.erase(it);
}

void batch_t::submit(uint32_t job, uint32_t index, std::vector<fr_t> witness, std::string label,
                     std::optional<blinding_t> fixed_rs) {
  auto it = jobs_.find(job);
  const std::string key_name = it == jobs_.end() ? std::string() : it->second.first->name();
  auto shared = std::make_shared<std::vector<fr_t>>(std::move(witness));
  witness_fill_t fill = [shared, label, key_name](std::span<fr_t> out) {
    if (shared->size() != out.size())
      throw std::runtime_error(label + ": witness has " + std::to_string(shared->size()) + " values, the key '" +
                               key_name + "' expects " + std::to_string(out.size()));
    std::copy(shared->begin(), shared->end(), out.begin());
  };
  submit(job, index, std::move(fill), std::move(label), fixed_rs);
}

std::unique_ptr<partition_t> batch_t::prepare(const std::shared_ptr<const key_bundle_t>& key,
                                              const witness_fill_t& fill, const std::string& label, uint64_t bytes,
                                              uint64_t later, std::optional<uint32_t> chain) {
  bool whole = later == 0;  // the whole reservation is held
  std::vector<fr_t> w;
  try {
    w = pool_.take(key->pk().n_vars, key->pool_values());
    fill(std::span<fr_t>(w));
    if (!whole) {  // the rows' share, before the partition takes their buffers
      admit_rest(bytes, later, chain);
      whole = true;
    }
    auto part =
        std::make_unique<partition_t>(key, std::move(w), label, options_.threads_per_task, options_.verify, pool_);
    part->state().mem_threads = mem_threads_;
    part->trace = options_.trace;
    return part;
  } catch (...) {
    pool_.give_back(std::move(w));  // still ours unless the partition took it
    budget_.release(whole ? bytes : bytes - later);
    if (!whole) end_staging();
    throw;
  }
}

void batch_t::submit(uint32_t job, uint32_t index, witness_fill_t fill, std::string label,
                     std::optional<blinding_t> fixed_rs) {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) throw std::runtime_error(label + ": job " + std::to_string(job) + " is not open");
  attempt_t a;
  a.key = it->second.first;
  a.job = job, a.index = index;
  a.fill = std::move(fill);
  a.label = std::move(label);
  a.fixed_rs = fixed_rs;
  launch(std::move(a));
}

uint64_t batch_t::reservation(const key_bundle_t& key) const {
  // Without a prep_msm task the reservation leaves out its result (a CPU
  // MSM body that computes the split itself is the rare exception).
  const proving_key_t& pk = key.pk();
  return key.partition_bytes() - (prep_task_ ? 0 : codelets::prep_msm_max_bytes(pk.n_vars, pk.n_public));
}

uint64_t batch_t::admit(const key_bundle_t& key, uint64_t bytes) {
  // Rows a, b, c with home buffers in host memory (partition_t) are given
  // back early by their free tasks: the witness can be loaded before they
  // fit, while another partition's MSMs run.
  const uint64_t rows = key.host_row_bytes();
  {
    std::unique_lock<std::mutex> lk(mu_);
    staging_cv_.wait(lk, [&] { return !staging_; });  // partitions are admitted in order
  }
  if (rows == 0 || rows >= bytes) {
    reserve(bytes);
    return 0;
  }
  if (budget_.try_reserve(bytes)) return 0;
  reserve(bytes - rows);
  std::lock_guard<std::mutex> lk(mu_);
  staging_ = true;
  ++staged_;
  return rows;
}

void batch_t::admit_rest(uint64_t bytes, uint64_t later, std::optional<uint32_t> chain) {
  if (later == 0) return;
  // Only this partition's witness reserved: admitted then, even above the
  // cap (a partition larger than the cap runs alone).
  reserve(later, bytes - later);
  if (chain) {  // before the next partition's admission: a parked tail may count on this one (batch_pairs.cpp)
    std::lock_guard<std::mutex> lk(mu_);
    flights_[*chain].admitted = true;
  }
  end_staging();
}

void batch_t::end_staging() noexcept {
  {
    std::lock_guard<std::mutex> lk(mu_);
    staging_ = false;
  }
  staging_cv_.notify_all();
}

void batch_t::launch(attempt_t a) {
  const proving_key_t& pk = a.key->pk();
  const uint64_t prep_bytes = codelets::prep_msm_max_bytes(pk.n_vars, pk.n_public);
  const uint64_t prep_max = prep_task_ ? prep_bytes : 0;
  uint64_t bytes = reservation(*a.key);
  // A retry on the CPUs holds a, b, c in host memory even where the plan
  // keeps them (or a alone) on the device, allocated by StarPU, and its
  // MSMs compute the split themselves.
  if (a.only == STARPU_CPU) {
    bytes += (3 - a.key->host_rows()) * sizeof(fr_t) * pk.domain_size;
    if (!prep_task_) bytes += prep_bytes;
  }
  const bool inject = options_.inject_fault && a.retries == 0 && options_.inject_fault->second == a.index;

  // `later`: bytes of the rows still to reserve once the witness is loaded
  // (0: all of it is reserved now). A partition that may pair is on its
  // way from here (batch_pairs.cpp): admitting_, then its flight.
  const bool may_pair = pairs_for(*a.key, submit_context_t{.prep_task = prep_task_, .only = a.only});
  const key_bundle_t* const key = a.key.get();
  const auto admitted = [this, may_pair, key] {  // under mu_
    if (may_pair && --admitting_[key] == 0) admitting_.erase(key);
  };
  if (may_pair) {
    std::lock_guard<std::mutex> lk(mu_);
    ++admitting_[key];
  }
  uint64_t later = 0;
  try {
    later = admit(*a.key, bytes);
  } catch (...) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      admitted();
    }
    release_parked();
    throw;
  }
  if (loaders_.empty()) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      admitted();
    }
    std::unique_ptr<partition_t> part = prepare(a.key, a.fill, a.label, bytes, later);
    part->state().fixed_rs = a.fixed_rs;
    if (inject) part->state().inject_fault = options_.inject_fault->first;
    start(next_chain_++, std::move(a), bytes, prep_max, std::move(part));  // throws if submission failed
    return;
  }
  // In the background: the flight exists from now on, so wait_next() waits
  // for it whether it is proved or fails while loading.
  const uint32_t chain = next_chain_++;
  {
    std::lock_guard<std::mutex> lk(mu_);
    flight_t& f = flights_[chain];
    f.job = a.job, f.index = a.index, f.reserved = bytes, f.label = a.label;
    f.key = a.key.get();
    f.may_pair = may_pair;
    f.admitted = later == 0;
    admitted();  // its flight tells from now on
    load_queue_.push_back([=, this, a = std::move(a)]() mutable {
      const std::string label = a.label;
      auto message = [&](const char* what) {
        return std::string_view(what).find(label) == std::string_view::npos ? label + ": " + what : std::string(what);
      };
      std::unique_ptr<partition_t> part;
      try {  // prepare() gives the reservation back if it throws
        part = prepare(a.key, a.fill, label, bytes, later, chain);
      } catch (const std::exception& e) {
        fail_early(chain, a.job, a.index, label, message(e.what()));
        return;
      } catch (...) {
        fail_early(chain, a.job, a.index, label, message("unknown error while loading the witness"));
        return;
      }
      part->state().fixed_rs = a.fixed_rs;
      if (inject) part->state().inject_fault = options_.inject_fault->first;
      const uint32_t job = a.job, index = a.index;
      try {
        start(chain, std::move(a), bytes, prep_max, std::move(part));
      } catch (const std::exception& e) {  // start() gave the reservation back
        fail_early(chain, job, index, label, message(e.what()));
      }
    });
  }
  load_cv_.notify_one();
}

void batch_t::start(uint32_t chain, attempt_t a, uint64_t bytes, uint64_t prep_max, std::unique_ptr<partition_t> part) {
  // prep_msm ran: give back the part of its reservation the result left unused.
  // Each counts what it gives back (partition_t::returned) first, so that
  // whoever reads the budget's use and then what a partition has still to
  // give back never counts bytes twice (tail_may_wait).
  part->on_prep = [this, prep_max](partition_t& p, uint64_t actual) {
    const uint64_t back = prep_max > actual ? prep_max - actual : 0;
    p.returned.fetch_add(back, std::memory_order_acq_rel);
    budget_.release(back);
  };
  // Rows in host memory released after their last reader: their share.
  part->on_rows = [this](partition_t& p, uint64_t row_bytes) {
    p.returned.fetch_add(row_bytes, std::memory_order_acq_rel);
    budget_.release(row_bytes);
  };
  // The head has ended: a tail parked for a partner may now hold the GPU
  // idle, which the pairs' thread checks (batch_pairs.cpp).
  part->on_head_done = [this](partition_t&) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      recheck_parked_ = true;
    }
    pairs_cv_.notify_one();
  };
  // Everything ran (the frees included): give back the rest, queue the result.
  part->on_done = [this, chain, bytes](partition_t& p) {
    const uint64_t early = p.returned.load(std::memory_order_acquire);  // on_prep's and on_rows'
    const uint64_t rest = bytes > early ? bytes - early : 0;
    p.returned.fetch_add(rest, std::memory_order_acq_rel);
    budget_.release(rest);
    // Queued and told under the lock, and nothing of this closure touched
    // after it: once the lock is free the application thread may collect
    // the partition (wait_next, poll) and destroy it, this closure with it,
    // and a notify after the unlock would read `this` from freed memory.
    std::lock_guard<std::mutex> lk(mu_);
    done_.push_back(chain);
    done_cv_.notify_all();
  };
  partition_t* raw = part.get();
  const uint32_t job = a.job, only = a.only;
  {
    std::lock_guard<std::mutex> lk(mu_);
    flight_t& f = flights_[chain];
    f.part = std::move(part);
    f.job = a.job, f.index = a.index, f.reserved = bytes, f.label = raw->state().label;
    f.key = a.key.get();
    f.attempt = std::move(a);
  }
  submit_flight({chain, raw, {options_.trace, priorities_, heteroprio_, job, chain, prep_task_, only}, bytes});
}

void batch_t::fail_early(uint32_t chain, uint32_t job, uint32_t index, const std::string& label, std::string error) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    flight_t& f = flights_[chain];
    f.part.reset();
    f.job = job, f.index = index, f.reserved = 0, f.label = label;
    f.error = std::move(error);
    done_.push_back(chain);
  }
  done_cv_.notify_all();
  release_parked();  // it may have waited for this one
}

size_t batch_t::in_flight() const {
  std::lock_guard<std::mutex> lk(mu_);
  return flights_.size();
}

}  // namespace starzk::dag
