// batch.hpp: many jobs, each of j partitions sharing one key, proved at
// once as partition DAGs (dag/partition_dag.hpp) under one StarPU session,
// with a host-memory budget (dag/memory_budget.hpp).
//
// The application thread opens jobs (a job = a key bundle + a name; its
// sequence number orders jobs by age for the policies), submits partitions
// (submit() blocks while the budget has no room, so submission streams at
// the pace partitions finish) and collects finished partitions with
// wait_next(), which also unregisters their handles. StarPU callbacks only
// give memory back and queue the finished partition. Reading and
// page-locking a witness (hundreds of MB at 2^24) takes longer than the GPU
// needs to prove it, so with `loaders` that work runs on background threads
// and several partitions are prepared while others are proved.
//
//   batch_t batch({.mem_budget = parse_memory_budget("auto")});
//   auto job = batch.open_job(key);          // key: shared key_bundle_t
//   for (i...) batch.submit(job, i, read_wtns(...), "sector-1/3");
//   batch.close_job(job);
//   while (auto r = batch.wait_next()) write(*r);
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "dag/key_bundle.hpp"
#include "dag/memory_budget.hpp"
#include "dag/partition_dag.hpp"
#include "dag/witness_pool.hpp"
#include "groth16/prover.hpp"

namespace starzk::dag {

struct batch_options_t {
  uint64_t mem_budget = 0;                   // bytes in flight; 0 = no cap
  unsigned threads_per_task = 1;             // threads each body may fork
  bool verify = true;                        // assemble verifies every proof
  runtime::trace_recorder* trace = nullptr;  // record every task when set
  int priorities = -1;                       // 1 on, 0 off, -1 auto (off under heteroprio: buckets there)
  // Threads that read witnesses (load()), page-lock them and submit the
  // partitions' tasks in the background, so a large witness's preparation
  // overlaps the proofs in flight; 0: submit() does it on the caller's thread.
  unsigned loaders = 0;
  // Threads each MEMORY_HEAVY body (spmv, prep_msm, b_g2_msm on the CPU)
  // forks. 0: the cores behind one slot of the memory interlock, i.e. the
  // CPU workers divided by the running starzk policy's cap (a prep_msm at
  // 2^24 takes ~0.5 s on one thread, and the interlock runs them one per
  // memory link: on one thread they paced the first GPU batch); under other
  // policies, or with the interlock off, threads_per_task.
  // STARZK_MEM_TASK_THREADS=N sets it where the option is 0.
  unsigned mem_task_threads = 0;
  // Whether each partition has a prep_msm task. Only the CPU bodies of the
  // split MSMs read its result (the CUDA bodies split w on the device), so
  // where the MSMs run on GPUs the task is a CPU pass of ~0.3 s per 2^24
  // partition that nothing uses, on the path to the GPU chain. 1: always;
  // 0: never (a CPU MSM body computes the split itself when it runs);
  // -1 auto: a task when no CUDA worker runs, when msm or b_g2_msm is
  // placed on the CPUs (codelets::set_placement), or when the running starzk
  // policy puts the chains on CPUs (STARZK_CHAIN_ON_CPU=1); none otherwise.
  // STARZK_PREP_TASK=0|1 sets it where the option is -1.
  int prep_task = -1;
  // A partition whose first failure came from a body on a CUDA worker (a
  // kernel launch, a device allocation, a device fault) is run once more
  // with every task on the CPU workers; its result then says so (retries,
  // first_error). A failure on the CPUs, or in the retry, is final.
  bool retry_on_cpu = true;
  // TEST ONLY: the first attempt of partition `second` (its index in its
  // job) fails in its first body of phase `first` as a device fault would.
  std::optional<std::pair<std::string, uint32_t>> inject_fault = std::nullopt;
};

// Writes one partition's witness into the page-locked buffer it is given
// (exactly the key's n_vars values; read_wtns_into does), or throws.
using witness_fill_t = std::function<void(std::span<fr_t>)>;

// The loader count the CLI uses: STARZK_LOADERS when set, else a quarter of
// the cores, between 2 and 8.
unsigned default_loaders();

struct partition_result_t {
  uint32_t job = 0;    // open_job()'s sequence number
  uint32_t index = 0;  // the partition's index in its job
  uint32_t chain = 0;  // its chain id (traces)
  std::string label;
  bool ok = false;
  std::string error;  // when !ok: names the partition and the phase
  proof_t proof;      // when ok: verified (unless verify was off)
  std::vector<fr_t> publics;
  unsigned retries = 0;     // 1: run again on the CPUs after a device fault
  std::string first_error;  // when retried: why the first attempt failed
};

class batch_t {
 public:
  // StarPU must be running (with a CPU worker, and main RAM as one memory node).
  explicit batch_t(const batch_options_t& options = {});
  // Waits for every partition still in flight (results are dropped).
  ~batch_t();
  batch_t(const batch_t&) = delete;
  batch_t& operator=(const batch_t&) = delete;

  // A new job on `key`; returns its sequence number (older = smaller).
  uint32_t open_job(std::shared_ptr<const key_bundle_t> key, std::string name = {});
  // No more partitions for this job: the batch drops its reference to the key.
  void close_job(uint32_t job);

  // Submits one partition's DAG. Blocks while the memory budget has no
  // room. Throws std::runtime_error naming `label` if the witness does not
  // fit the job's key (nothing is submitted then). fixed_rs is the TEST-ONLY
  // hook for byte identity with prove_with_blinding; leave it empty to draw
  // r, s from the OS CSPRNG.
  void submit(uint32_t job, uint32_t index, std::vector<fr_t> witness, std::string label,
              std::optional<blinding_t> fixed_rs = std::nullopt);
  // The same, reading the witness only once the budget has room (so the
  // witness itself is inside the budget), straight into a buffer of the
  // batch's witness pool (page-locked once and reused when CUDA workers
  // run: dag/witness_pool.hpp). With loaders == 0, fill() runs on this
  // thread and its errors are thrown here. With loaders, submit() returns
  // once the budget is reserved (at least the witness's share, where the
  // rows are reserved after the load: admit); fill() runs on a loader
  // thread (so it must own what it reads: capture by value), and an error
  // there (from fill() or from a witness that does not fit the key) comes
  // back as a failed partition_result_t whose error names `label`.
  void submit(uint32_t job, uint32_t index, witness_fill_t fill, std::string label,
              std::optional<blinding_t> fixed_rs = std::nullopt);

  // The next finished partition, waiting for one; std::nullopt when none is
  // in flight.
  std::optional<partition_result_t> wait_next();
  // The same, giving up at `deadline` (std::nullopt then, as when nothing
  // is in flight: in_flight() tells them apart).
  std::optional<partition_result_t> wait_next_until(std::chrono::steady_clock::time_point deadline);
  // The next finished partition if one is ready.
  std::optional<partition_result_t> poll();

  size_t in_flight() const;
  uint64_t submitted() const { return next_chain_; }
  const memory_budget_t& budget() const { return budget_; }
  // Partitions whose witness was loaded before their rows fit (admit).
  uint64_t staged() const { return staged_.load(); }
  void set_memory_cap(uint64_t cap) { budget_.set_cap(cap); }
  bool priorities() const { return priorities_; }
  // Under heteroprio: task priorities are its buckets (heteroprio.hpp).
  bool heteroprio_buckets() const { return heteroprio_; }
  unsigned mem_task_threads() const { return mem_threads_; }  // resolved batch_options_t::mem_task_threads
  bool prep_task() const { return prep_task_; }               // resolved batch_options_t::prep_task
  // Host bytes the budget reserves for one partition of this key (without a
  // prep_msm task its result is left out; a retry on the CPUs adds more).
  uint64_t reservation(const key_bundle_t& key) const;
  const witness_pool_t& witness_pool() const { return pool_; }

 private:
  // One attempt at a partition: what launch() needs, kept in its flight so
  // that a device fault can run it again.
  struct attempt_t {
    std::shared_ptr<const key_bundle_t> key;
    uint32_t job = 0, index = 0;
    witness_fill_t fill;
    std::string label;
    std::optional<blinding_t> fixed_rs;
    unsigned retries = 0;
    uint32_t only = 0;  // STARPU_CPU for a retry (submit_context_t::only)
    std::string first_error;
  };
  // Reserves the budget and prepares and submits the partition (on a
  // loader thread when there are loaders).
  void launch(attempt_t a);
  // Reserves `bytes` for a partition of `key`, all of them, or (when they
  // do not fit now and the rows a, b, c live in host memory) all but the
  // rows, which it returns: admit_rest reserves them once the witness is
  // loaded. One partition at a time is so staged; the next waits for it.
  uint64_t admit(const key_bundle_t& key, uint64_t bytes);
  // `chain`: its flight, where it has one, told that it holds it all.
  void admit_rest(uint64_t bytes, uint64_t later, std::optional<uint32_t> chain);
  void end_staging() noexcept;
  // The result of a finished flight; std::nullopt when it was launched
  // again (a device fault, retry_on_cpu).
  std::optional<partition_result_t> collect(uint32_t chain);
  // A pool buffer filled by fill(), made into a partition whose
  // reservation of `bytes` is held but for the `later` bytes admit() left
  // (admit_rest takes them between the two, so the partition takes its
  // rows' pool buffers only once the budget holds them). If anything
  // throws, the buffer goes back to the pool and the reservation to the
  // budget.
  std::unique_ptr<partition_t> prepare(const std::shared_ptr<const key_bundle_t>& key, const witness_fill_t& fill,
                                       const std::string& label, uint64_t bytes, uint64_t later,
                                       std::optional<uint32_t> chain = std::nullopt);
  // Wires the budget callbacks, records the flight and submits the DAG
  // (submit_flight).
  void start(uint32_t chain, attempt_t a, uint64_t bytes, uint64_t prep_max, std::unique_ptr<partition_t> part);
  // A partition ready for StarPU (its flight holds it): submitted now,
  // alone or as the second of a pair whose first's tail was parked for it,
  // or its head submitted and its tail parked to wait for a partner still
  // on its way (dag/batch_pairs.cpp). Throws if its submission failed (the
  // flight is then gone and its reservation given back; a partner that
  // failed with it has a failed result queued).
  struct ready_t {
    uint32_t chain = 0;
    partition_t* part = nullptr;
    submit_context_t ctx;
    uint64_t bytes = 0;
  };
  void submit_flight(const ready_t& r);
  // What submit_now submits of r: its whole DAG, its head (its tail to be
  // parked) or its tail (after its head; with a partner, the pair's tail
  // and the partner's whole DAG as the second).
  enum class part_t { whole, head, tail };
  // If that fails, both flights are dropped and each gets a failed result,
  // but `caller_chain`'s: the error is rethrown for its caller to report.
  void submit_now(const ready_t& r, const ready_t* partner, part_t what, std::optional<uint32_t> caller_chain);
  // A partition of `key` other than `chain` that may pair: none; one on
  // its way (waiting for admission in launch, or loading); or one loading
  // with its whole reservation held (it reaches submit_flight or
  // fail_early without waiting for memory). Under mu_.
  enum class partner_t { none, on_its_way, admitted };
  partner_t partner_of(const key_bundle_t& key, uint32_t chain) const;
  // Whether r's tail may wait parked: a partner holds its whole
  // reservation, or one is on its way and every reservation waiting now
  // could be met once memory comes back that needs nothing of r's tail:
  // r's head's rows (free tasks after the H phase and msm_h), and what
  // other partitions in StarPU hold, until r's head has ended all of them
  // (r's chain runs its own tasks), from then on only those whose work
  // left needs no GPU lock (partition_t::chains_open). Under mu_.
  bool tail_may_wait(const ready_t& r) const;
  // The parked tail goes alone once it may not wait (tail_may_wait).
  void release_parked();
  // The pairs' thread: release_parked() whenever a head has ended
  // (partition_t::on_head_done; a StarPU callback may not submit tasks
  // that may have to wait for all others).
  void pairs_main();
  // budget_.reserve(bytes, held), waiting where it must: a waiting
  // reservation is listed by the budget (tail_may_wait reads the list), and
  // one that a parked tail could hold up releases that tail first.
  void reserve(uint64_t bytes, uint64_t held = 0);
  // A partition that never reached StarPU (its reservation already given
  // back by prepare() or start()): a failed result is queued.
  void fail_early(uint32_t chain, uint32_t job, uint32_t index, const std::string& label, std::string error);
  void loader_main();

  batch_options_t options_;
  bool priorities_ = true;
  bool heteroprio_ = false;
  unsigned mem_threads_ = 1;
  bool prep_task_ = true;
  memory_budget_t budget_;
  std::map<uint32_t, std::pair<std::shared_ptr<const key_bundle_t>, std::string>> jobs_;
  uint32_t next_job_ = 1;
  uint32_t next_chain_ = 0;

  struct flight_t {
    std::unique_ptr<partition_t> part;  // null while loading, or if it failed before StarPU
    uint32_t job = 0, index = 0;
    uint64_t reserved = 0;
    std::string label, error;  // error: why it failed before StarPU
    attempt_t attempt;         // once submitted to StarPU: how to run it again
    const key_bundle_t* key = nullptr;
    // Pairs (batch_pairs.cpp): the partition may pair; it holds its whole
    // reservation (it reaches submit_flight or fail_early without waiting
    // for memory); it has been handed to submit_flight.
    bool may_pair = false, admitted = false, handed = false;
  };
  // Pairs (batch_pairs.cpp): a first whose head is submitted and whose tail
  // waits for its pair's second; launches of partitions that may pair
  // waiting for admission, per key.
  std::optional<ready_t> parked_;
  std::map<const key_bundle_t*, unsigned> admitting_;
  std::recursive_mutex submit_mu_;  // one submit_flight or release_parked at a time
  witness_pool_t pool_;             // witnesses and host rows; before flights_: outlives every partition
  mutable std::mutex mu_;           // guards flights_, done_, load_queue_, stopping_, staging_, and the pairs' state
  std::condition_variable done_cv_;
  std::map<uint32_t, flight_t> flights_;
  std::deque<uint32_t> done_;
  std::condition_variable load_cv_;
  std::deque<std::function<void()>> load_queue_;
  bool stopping_ = false;
  bool staging_ = false;  // a partition holds its witness's share, not yet its rows' (admit)
  std::atomic<uint64_t> staged_{0};
  std::condition_variable staging_cv_;
  std::vector<std::thread> loaders_;
  std::condition_variable pairs_cv_;
  bool recheck_parked_ = false, pairs_stopping_ = false;  // under mu_
  std::thread pairs_thread_;
};

}  // namespace starzk::dag
