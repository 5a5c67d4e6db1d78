// partition_state.hpp: what the codelets of one partition (one Groth16
// proof) work on, and the rule that lets a CPU body read it.
//
// A partition's DAG (dag/partition_dag.hpp) registers every vector below as
// a StarPU handle whose home is STARPU_MAIN_RAM on this very memory, and
// the key's queries and the circuit's CSR arrays likewise (dag/key_bundle.hpp).
// The QAP rows a, b, c are the exception: they are StarPU's own (registered
// with no home), allocated by StarPU where spmv writes them (main RAM or a
// GPU) and given back once their last reader is done, so a partition whose
// phases run on a GPU never holds them in host memory; bodies take them
// from their buffers.
// StarPU keeps a handle's main-RAM replica in its home buffer, and makes it
// valid before a CPU task that accesses the handle starts. So a CPU body may
// read and write these objects in place, through the pointers below, while
// its task holds the matching buffers: the buffers carry the dependencies
// (data access modes) and the residency (device replicas for the CUDA
// bodies to come), the objects carry the C++ types the reference functions
// take (std::vector for h_phase, sparse_matrix_t for spmv). This holds as
// long as main RAM is one StarPU memory node (STARPU_USE_NUMA unset, which
// dag::batch_t checks).
//
// Failures: a body never lets an exception reach StarPU. It records the
// first failure here ("partition <label>: <phase>: <what>"); later bodies of
// the same partition see failed() and skip their work, the free body still
// releases the memory, and the batch reports the error for the partition.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "codelets/activity.hpp"
#include "ff/fr.hpp"
#include "groth16/keys.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"
#include "msm/prep_msm.hpp"
#include "ntt/domain.hpp"

namespace starzk::codelets {

// The four G1 queries one msm codelet serves.
enum class msm_query_t : uint8_t { h = 0, l = 1, a = 2, b_g1 = 3 };
inline constexpr int msm_query_count = 4;

// How one MSM query meets a GPU, decided when the key is registered
// (dag/key_residency.hpp; docs/gpu.md, "Memory plan"). The CUDA bodies and
// their can_execute read it; without CUDA workers it stays as below.
struct msm_device_t {
  // The bases stream from the key's page-locked host array, piece by
  // piece: the query is no StarPU buffer of the task (the task's buffers
  // start at the scalars), and the CUDA body copies the bases itself.
  bool streamed = false;
  // Device scratch of the MSM in its smallest pieces (staging included
  // when streamed); 0: unknown (no check).
  uint64_t min_scratch = 0;
  // Device bytes the task's buffers take besides the scratch (the bases
  // when resident, the scalars, the result).
  uint64_t buffer_bytes = 0;
};

// The read-only inputs shared by every partition of every job using one key.
struct key_view_t {
  const proving_key_t* pk = nullptr;
  const r1cs_t* cs = nullptr;                    // the circuit; null for a .zkey proved without one
  const domain_t* domain = nullptr;              // size pk->domain_size, in the key's root convention
  msm_device_t g1_device[msm_query_count] = {};  // the G1 queries, by msm_query_t
  msm_device_t b_g2_device = {};
  // Device scratch one MSM body may take: the smaller of the operators'
  // cap (STARZK_GPU_SCRATCH_MAX) and what the memory plan leaves for it.
  uint64_t scratch_max = UINT64_MAX;
  // Bytes of bases one piece of a streamed MSM of mostly 0/1 scalars copies
  // at most (STARZK_MSM_STREAM_PIECE; 0: no cap; msm_device.hpp).
  uint64_t stream_piece_bytes = 0;
  // Device vectors the H phase in passes may take (STARZK_H_PASSES_VECTORS;
  // codelets/ntt_h_passes.cpp).
  unsigned h_passes_vectors = 2;
  // Every CUDA MSM body times its phases and says where its time went
  // (STARZK_MSM_PROFILE; msm_device.hpp).
  bool msm_profile = false;
  // Every CUDA MSM body in pieces waits for its stream after each piece
  // (STARZK_MSM_PIECE_WAIT; an A/B knob, msm_device.hpp).
  bool msm_piece_wait = false;
  // The pieces of an MSM add their buckets into one set and reduce it once
  // (STARZK_MSM_SHARED_BUCKETS, on by default; gpu::msm_pieces_t).
  bool msm_shared_buckets = true;
  // A dense MSM in pieces takes the plan with the fewest digit-group passes
  // (STARZK_MSM_REGROUP, on by default; msm/msm_pieces.hpp).
  bool msm_regroup = true;
  // The four G1 MSMs of a partition run as one task, msm_g1, L, A and B_g1
  // beside H on a second stream, so that the copies of their bases run
  // while H computes (STARZK_MSM_TOGETHER; never where a, b, c are made on
  // the device; dag/partition_dag.cpp, msm.cpp).
  bool g1_msms_together = false;
  // Partitions of a batch go in pairs whose b_g2_msm (b_g2_pairs), and
  // whose msm_l, msm_a and msm_b1 (g1_pairs), are one task each over one
  // staging of the bases (STARZK_MSM_PAIRS; the batch pairs none where
  // g1_msms_together is set; dag/partition_pair.hpp).
  bool b_g2_pairs = false, g1_pairs = false;
};
const char* msm_query_name(msm_query_t q);  // "msm_h", "msm_l", "msm_a", "msm_b1"
// The name of the task of the four G1 MSMs together (msm_task_arg_t).
inline constexpr const char* msm_together_name = "msm_g1";
// The key's bases of query q (pk.h, pk.l, pk.a, pk.b_g1).
const mappable_vector_t<g1_affine_t>& msm_query_bases(const proving_key_t& pk, msm_query_t q);

// prep_msm of the two scalar vectors the split queries use (docs/prover.md step 3):
// w   = the whole witness, inputs forced to the tail (queries A, B_g1, B_g2);
// aux = the aux wires only, no forced entries (query L).
struct prep_pair_t {
  prep_msm_t w;
  prep_msm_t aux;
};

struct partition_state_t;

// cl_arg of an msm task: which query, of which partition; or, with
// together set, the partition's four G1 MSMs as one task (msm_g1,
// key_view_t::g1_msms_together; query is then h). Also the cl_arg of a
// b_g2_msm task (query unused). With a partner, the task computes the
// same query of two partitions of one key, over one staging of the bases
// (a pair: dag/partition_pair.hpp).
struct msm_task_arg_t {
  partition_state_t* part = nullptr;
  msm_query_t query = msm_query_t::h;
  bool together = false;
  partition_state_t* partner = nullptr;
};

// cl_arg of a free task: what it releases, of which partition. Rows in host
// memory go as soon as their last reader is done (b, c after the H phase,
// a after msm_h); the witness and the prep_msm result at the end.
struct free_task_arg_t {
  enum what_t : unsigned { witness = 1u << 0, prep = 1u << 1, row_a = 1u << 2, row_b = 1u << 3, row_c = 1u << 4 };
  partition_state_t* part = nullptr;
  unsigned what = 0;
};

struct partition_state_t {
  key_view_t key;
  std::string label;     // names the partition in every message
  unsigned threads = 1;  // threads a body may fork (its worker's share)
  // Threads a MEMORY_HEAVY body (spmv, prep_msm, b_g2_msm on the CPU) may
  // fork: the cores behind one memory-interlock slot, since the interlock
  // admits one such task per memory link and one thread cannot fill a link
  // (dag/batch.hpp). Bodies read memory_threads().
  unsigned mem_threads = 1;
  unsigned memory_threads() const { return mem_threads > threads ? mem_threads : threads; }
  bool verify = true;                  // assemble verifies the proof (the prover's rule)
  std::optional<blinding_t> fixed_rs;  // TEST ONLY: fixed r, s (byte identity)

  std::vector<fr_t> w;  // the witness, n_vars values (w[0] = 1)
  // The home buffers of the rows a, b, c where the DAG keeps them in host
  // memory (dag/partition_dag.cpp); empty where StarPU allocates them on a
  // GPU.
  std::vector<fr_t> rows[3];
  // Set when w and the rows are reused buffers (dag/witness_pool.hpp,
  // page-locked with CUDA workers): the free task hands them to it instead
  // of freeing them.
  std::function<void(std::vector<fr_t>&&)> recycle;
  std::vector<fr_t> publics;  // w[1..n_public], kept for verification and output
  // The split of the witness scalars for the CPU MSM bodies. Filled by the
  // prep_msm task where the DAG has one, else by the first CPU body that
  // needs it (cpu_prep): the CUDA bodies derive the split on the device, so
  // a batch whose MSMs run on GPUs has no prep_msm task (dag/batch.hpp).
  prep_pair_t prep;
  uint64_t prep_bytes = 0;  // bytes prep holds, once computed
  // prep, computed on the first call (thread-safe; later calls return it).
  const prep_pair_t& cpu_prep(unsigned threads);
  msm_results_t msm;  // one handle per field
  proof_t proof;
  msm_task_arg_t msm_args[msm_query_count];
  msm_task_arg_t msm_together{this, msm_query_t::h, true};
  msm_task_arg_t b_g2_arg{this};
  // The free tasks' arguments: the rows b, c; the row a; the rest.
  free_task_arg_t free_rows_bc{this, free_task_arg_t::row_b | free_task_arg_t::row_c};
  free_task_arg_t free_row_a{this, free_task_arg_t::row_a};
  free_task_arg_t free_rest{this, free_task_arg_t::witness | free_task_arg_t::prep};

  partition_state_t();
  partition_state_t(const partition_state_t&) = delete;
  partition_state_t& operator=(const partition_state_t&) = delete;

  // Number of H scalars the key's convention uses: n − 1 (bellman) or n (snarkjs).
  uint64_t h_len() const;

  // TEST ONLY: the first body of this phase fails as a device fault would
  // ("injected fault"), so that the batch's retry can be tested without a
  // faulty GPU (dag/batch.hpp, batch_options_t::inject_fault).
  std::string inject_fault;
  std::atomic<bool> fault_injected{false};

  // Record a failure of `phase` (the first one wins). Never throws.
  void fail(const char* phase, const char* what) noexcept;
  // The first failure came from a body on a CUDA worker (a launch, an
  // allocation, a kernel fault) or was injected: running the partition
  // again on the CPUs may succeed where a bad input would fail again.
  void mark_device_fault() noexcept { device_fault_.store(true, std::memory_order_release); }
  bool device_fault() const noexcept { return device_fault_.load(std::memory_order_acquire); }
  bool failed() const noexcept { return failed_.load(std::memory_order_acquire); }
  std::string error() const;

 private:
  mutable std::mutex mu_;
  std::mutex prep_mu_;
  std::atomic<bool> prep_ready_{false};
  std::string error_;
  std::atomic<bool> failed_{false};
  std::atomic<bool> device_fault_{false};
};

// What a body throws when its input is bad, whichever worker runs it (a
// witness that breaks a constraint): never a device fault, since the
// partition would fail the same way anywhere.
struct bad_input_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Runs body(live) for `phase` of the partitions `parts` (one, or a pair's
// two; null entries are skipped) that have not failed, `live` listing
// them in order; nothing when none is left. Records any exception as a
// failure of every live one instead of letting it escape (StarPU's
// callbacks are C).
template <class Body>
void guarded_each(std::initializer_list<partition_state_t*> parts, const char* phase, Body&& body) noexcept {
  partition_state_t* live_at[2] = {};
  size_t n = 0;
  for (partition_state_t* p : parts) {
    if (p == nullptr || p->failed() || n == 2) continue;
    if (!p->inject_fault.empty() && p->inject_fault == phase && !p->fault_injected.exchange(true)) {
      p->mark_device_fault();
      p->fail(phase, "injected fault (test)");
      continue;
    }
    live_at[n++] = p;
  }
  if (n == 0) return;
  const std::span<partition_state_t* const> live(live_at, n);
  const activity_scope_t counted(phase);  // for describe_activity()
  // A failure is a device fault when it happens on a CUDA worker and is the
  // partition's first (marked before fail() so that a reader who sees the
  // failure sees the mark too).
  auto failed = [&](const char* what, bool device) {
    for (partition_state_t* p : live) {
      if (device && !p->failed() && on_cuda_worker()) p->mark_device_fault();
      p->fail(phase, what);
    }
  };
  try {
    body(live);
  } catch (const bad_input_error& e) {
    failed(e.what(), false);
  } catch (const std::exception& e) {
    failed(e.what(), true);
  } catch (...) {
    failed("unknown exception", true);
  }
}

// guarded_each for one partition: body() unless p already failed.
template <class Body>
void guarded(partition_state_t& p, const char* phase, Body&& body) noexcept {
  guarded_each({&p}, phase, [&](std::span<partition_state_t* const>) { body(); });
}

}  // namespace starzk::codelets
