// partition_dag.hpp: one partition's proof as a StarPU task DAG (docs/dag.md),
// one function per phase, in the order of the math:
//
//   w ─► spmv ─► a,b,c ─► ntt_h ─► h(in a) ─► msm_h ──────────────┐
//   w ─► prep_msm ─► prep ─► msm_l, msm_a ─────────────────────────┤
//                      ├───► msm_b1 (reads h, l, a results: last) ─┤
//                      └───► b_g2_msm ─────────────────────────────┤
//                                                   assemble ─► proof
//   free(w, prep) after the last reader of each; b, c (after ntt_h), a
//   (after msm_h) and w's device copy (before free) go back to StarPU
//   (starpu_data_invalidate_submit), and
//   where they have home buffers in host memory a free task each releases
//   those (free(b, c), free(a)), so the budget can admit the next witness
//
// Every dependency comes from data access modes (StarPU's sequential
// consistency on the partition's handles): spmv writes a, b, c; ntt_h
// reads-writes them; msm_h reads a; the split MSMs read w and prep (which
// prep_msm writes); each MSM writes its own result handle; assemble reads
// the five results; each free task writes what it releases, so it waits
// for every reader. Where the memory plan keeps
// a, b, c on a GPU they have no home: StarPU allocates them where spmv runs,
// so rows made and used on a GPU never take host memory. Elsewhere their
// homes are buffers of the batch's pool (dag/witness_pool.hpp), page-locked
// once with CUDA workers and reused by the next partition.
//
// GPU chain (policies/resource_class.h): ntt_h, msm_h, msm_l, msm_a and
// msm_b1 are STARZK_RC_GPU_CHAIN tasks of chain `chain_id` (unique per
// partition in a process), and so is the witness map (spmv, or
// spmv_passes) where it runs on a GPU (witness_map_heads_chain). msm_b1
// carries is_last and reads the h, l and a results, so it depends on every
// other task of the chain, as the lock requires; the chain waits only on
// work of its own partition (the witness map, prep_msm), never on another
// chain. Every task, chain or not, carries the partition's chain id and its
// job's sequence number in its tag, so traces name job and partition for
// each task (the policies apply the lock to GPU_CHAIN tasks only).
#pragma once

#include <starpu.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codelets/partition_state.hpp"
#include "dag/key_bundle.hpp"
#include "dag/witness_pool.hpp"

namespace starzk::runtime {
class trace_recorder;
}

namespace starzk::dag {

// How tasks are submitted: tracing, priorities, tags.
struct submit_context_t {
  runtime::trace_recorder* trace = nullptr;  // attach every task when set
  bool priorities = true;                    // false: every task priority 0
  bool heteroprio = false;                   // priority = the task's heteroprio bucket (heteroprio.hpp)
  uint32_t job_seq = 0;                      // smaller = older job
  uint32_t chain_id = 0;                     // the partition's chain
  bool prep_task = true;                     // submit prep_msm (batch_options_t::prep_task)
  uint32_t only = 0;                         // STARPU_CPU: every task on the CPUs (a retry); 0: the plan's
};

// Task priorities when enabled: finish what is started (free, assemble, the
// chain) before starting more (spmv, prep_msm), which also bounds memory.
inline constexpr int prio_memory_phase = 0;
inline constexpr int prio_chain = 1;
inline constexpr int prio_finish = 2;

// A partition in flight: its state and its handles. Created on the
// application thread or a batch's loader thread, destroyed on the
// application thread, and only after all its tasks have finished (on_done
// ran).
class partition_t {
 public:
  // Takes the witness, a buffer of `pool` (page-locked there when the pool
  // pins); copies its public inputs. The free task gives the buffer back
  // (the partition does, if free never ran). Throws std::runtime_error
  // naming `label` when the witness does not fit the key (the witness is
  // then left with the caller).
  partition_t(std::shared_ptr<const key_bundle_t> key, std::vector<fr_t>&& witness, std::string label, unsigned threads,
              bool verify, witness_pool_t& pool);
  ~partition_t();
  partition_t(const partition_t&) = delete;
  partition_t& operator=(const partition_t&) = delete;

  codelets::partition_state_t& state() { return state_; }
  const codelets::partition_state_t& state() const { return state_; }
  const key_bundle_t& key() const { return *key_; }

  // Called from StarPU callbacks (any thread; must not throw):
  //   on_prep: after prep_msm, with the bytes its result holds;
  //   on_rows: after a free task that released rows a, b, c in host
  //     memory, with their bytes;
  //   on_done: once, after the last of prep_msm, assemble and the frees.
  std::function<void(partition_t&, uint64_t prep_bytes)> on_prep;
  std::function<void(partition_t&, uint64_t row_bytes)> on_rows;
  std::function<void(partition_t&)> on_done;
  // The recorder its tasks were attached to, if any: told to forget the
  // handles before they are unregistered (runtime::trace_recorder::forget).
  runtime::trace_recorder* trace = nullptr;

  // Handles (home: the state's vectors and fields; a, b, c: none).
  starpu_data_handle_t w = nullptr, a = nullptr, b = nullptr, c = nullptr, prep = nullptr;
  starpu_data_handle_t res[codelets::msm_query_count] = {};  // h, l, a, b_g1 results
  starpu_data_handle_t res_b2 = nullptr, proof = nullptr;

  // Whether b, c (and a: below) have home buffers in host memory (the
  // memory plan keeps them off the GPUs), which free tasks of their own
  // release early.
  bool rows_in_host_memory() const { return host_rows_; }
  // Whether a has one too; a_on_device_only: b and c have, a has not (it
  // stays on the device through the H phase in passes: key_bundle_t::
  // a_on_device_only), and the tasks that hold a (the H phase, msm_h) run
  // on GPUs, so that StarPU never allocates it in host memory the budget
  // does not count (where a, b, c all live on the device, msm_h may run
  // on the CPUs: the MSMs' placement decides).
  bool a_in_host_memory() const { return a_home_; }
  bool a_on_device_only() const { return host_rows_ && !a_home_; }
  // One row's pool buffer, and all its rows' home buffers: the budget's
  // share for them (key_bundle_t::partition_bytes), which the rows' free
  // tasks give back.
  uint64_t row_bytes() const { return sizeof(fr_t) * key_->pool_values(); }
  uint64_t host_row_bytes() const { return (host_rows_ ? (a_home_ ? 3 : 2) : 0) * row_bytes(); }

  // Internal: a callback finished (counts down to on_done). Those of
  // prep_msm, assemble and free, of the rows' two free tasks where the
  // rows are in host memory, and of the chain's (msm_h's and the last
  // task's, counted as they are submitted); submit_partition takes
  // prep_msm's off when the DAG has no such task.
  void callback_done() noexcept;
  std::atomic<int> pending_callbacks{3};
  // The StarPU callbacks of its tasks (arg: the partition; never throw):
  // prep_msm's (on_prep), a free task's that released `rows` host rows
  // (on_rows), assemble's and free's, and the GPU chain's: msm_h's where
  // it ends the head (head_done, on_head_done), the last task's where
  // `last` (chains_open).
  static void prep_done(void* arg) noexcept;
  static void task_done(void* arg) noexcept;
  template <unsigned rows>
  static void rows_freed(void* arg) noexcept;
  template <bool head, bool last>
  static void chain_step(void* arg) noexcept;

  // Where its GPU chain stands, for the batch's pairs (dag/batch_pairs.cpp):
  // head_done once msm_h has run, the head's last chain task (on_head_done
  // is called then); chains_open counts the chains its proof still waits
  // for: its own, and for a pair's second its first's, whose tasks compute
  // part of it (the first's chain end lowers it: chain_partner). At 0 none
  // of its work left needs a GPU lock.
  std::atomic<bool> head_done{false};
  std::atomic<int> chains_open{1};
  partition_t* chain_partner = nullptr;
  std::function<void(partition_t&)> on_head_done;
  // Host bytes handed back to the batch's budget so far (on_prep, on_rows
  // and on_done add theirs before they give them back).
  std::atomic<uint64_t> returned{0};
  // The second of a pair (dag/partition_pair.hpp): its B_g2 MSM (and its
  // witness G1 MSMs) are the partner's tasks', in the partner's chain, so
  // its own chain's end does not wait for them (a chain waits on no other
  // chain).
  bool b_g2_by_partner = false, g1_by_partner = false;
  std::atomic<uint64_t> rows_released{0};  // bytes the rows' free tasks gave back so far

 private:
  std::shared_ptr<const key_bundle_t> key_;
  witness_pool_t& pool_;
  bool host_rows_ = false, a_home_ = false;
  codelets::partition_state_t state_;
};

// The witness map's codelet for a key: spmv_passes where the memory plan
// keeps a, b, c in host memory beside GPUs (key_bundle_t::
// rows_on_host_with_gpus: the CSR arrays do not fit beside them), spmv
// otherwise.
starpu_codelet* witness_map_codelet(const key_bundle_t& key);

// Whether the witness map heads the partition's GPU chain: when the memory
// plan has GPUs and the witness map's codelet may run on them (not placed
// on the CPUs), it is submitted as a GPU_CHAIN task (tag class), so the GPU
// lock runs it with ntt_h and the MSMs. With a, b, c on the device they
// then exist only while their chain holds it, and a partition staged ahead
// of its chain holds only its witness there (dag/key_residency.hpp, rule
// 1); with spmv_passes the GPU maps the rows of the partition it is about
// to prove. Not on a retry on the CPUs.
bool witness_map_heads_chain(const key_bundle_t& key, const submit_context_t& ctx);

// The phases. Each builds, tags and submits one task (throws
// std::runtime_error if StarPU refuses it).
void submit_witness_map(partition_t& p, const submit_context_t& ctx);  // spmv or spmv_passes
void submit_h_phase(partition_t& p, const submit_context_t& ctx);      // ntt_h
void submit_prep_msm(partition_t& p, const submit_context_t& ctx);
// With a partner: one task for both partitions' query (a pair,
// dag/partition_pair.hpp), after p's msm_h; msm_h ends the chain of a G1
// pair's second (partition_t::g1_by_partner).
void submit_msm_h(partition_t& p, const submit_context_t& ctx);
void submit_msm_l(partition_t& p, const submit_context_t& ctx, partition_t* partner = nullptr);
void submit_msm_a(partition_t& p, const submit_context_t& ctx, partition_t* partner = nullptr);
void submit_msm_b1(partition_t& p, const submit_context_t& ctx,
                   partition_t* partner = nullptr);  // last of the chain
// With a partner: one task for both partitions' B_g2 MSMs (a pair,
// dag/partition_pair.hpp), after p's msm_h.
void submit_b_g2_msm(partition_t& p, const submit_context_t& ctx, partition_t* partner = nullptr);
void submit_assemble(partition_t& p, const submit_context_t& ctx);
void submit_free(partition_t& p, const submit_context_t& ctx);

// A partition's part in a pair (dag/partition_pair.hpp): the first's
// (partner set) b_g2_msm, and with g1 its msm_l, msm_a and msm_b1, also
// compute the partner's; the second (second set) has none of those (with
// g1, msm_h ends its chain).
struct pair_role_t {
  partition_t* partner = nullptr;
  bool second = false;
  bool b_g2 = true, g1 = false;
};
// The whole DAG, phase by phase (the order matters only for free, which
// must come after every reader): its head, then its tail.
void submit_partition(partition_t& p, const submit_context_t& ctx, const pair_role_t& pair = {});
// The head: the witness map, prep_msm, the H phase and msm_h (where the G1
// MSMs are tasks of their own), the same for a pair's first as for a
// partition alone, so the batch submits a first's head before it knows its
// partner (dag/batch_pairs.cpp). A second's head (pair.second) is its own:
// with G1 pairs its msm_h ends its chain.
void submit_head(partition_t& p, const submit_context_t& ctx, const pair_role_t& pair = {});
// The tail: the witness MSMs and b_g2_msm (with pair.partner, the pair's
// tasks for both), assemble and free; after the head, with the same role
// but for the partner, which a first's head never needs.
void submit_tail(partition_t& p, const submit_context_t& ctx, const pair_role_t& pair = {});

}  // namespace starzk::dag
