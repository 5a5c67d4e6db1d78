// key_bundle.hpp: a proving key (and, for bellman keys, its circuit)
// registered with StarPU once, as read-only handles that stay resident for
// every partition of every job that uses the key (docs/dag.md, "Handles").
//
// Handles (all vector handles, home STARPU_MAIN_RAM on the key's own
// memory, accessed STARPU_R by every task, so they never create
// dependencies and StarPU may keep device replicas between tasks):
//   h, l, a, b_g1        the G1 queries (96-byte affine points)
//   b_g2                 the G2 query (192-byte affine points)
//   spmv's matrices      row_ptr (u64), col (u32), then val (F_r) of a
//                        plain matrix or code (u16) and dict (F_r) of a
//                        coded one (groth16/r1cs.hpp), for each matrix the
//                        witness map reads: the circuit's A, B, C for a
//                        bellman key, the .zkey's A and B for a snarkjs key
//                        (codelets.hpp spmv_matrix_buffers).
//   device domain        the NTT tables the CUDA ntt_h reads (n·32 bytes,
//                        built only when StarPU has CUDA workers).
// With CUDA workers the arrays the device memory plan keeps on the GPUs are
// prefetched there once registered and held there as each copy lands
// (dag/device_hold.hpp), so that StarPU's reclaim never
// evicts them; the streamed queries' host arrays are pinned for fast copies. Which
// queries are handles at all is the device memory plan's choice, made here
// from the GPUs' memory (dag/key_residency.hpp): a query the plan streams
// has no handle, and the MSM's CUDA body copies its bases from the pinned
// host array piece by piece.
// An empty array is registered as a one-element dummy (StarPU refuses
// zero-sized vectors); bodies take lengths from the key, never the handle.
// The bundle also builds the NTT domain once, in the key's root convention.
//
// Lifetime: the bundle is shared (std::shared_ptr) by the jobs and the
// partitions using it; the last owner unregisters the handles, which must
// happen on the application thread (never in a StarPU callback) and before
// starpu_shutdown.
#pragma once

#include <starpu.h>

#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "codelets/partition_state.hpp"
#include "dag/device_hold.hpp"
#include "dag/key_residency.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"
#include "ntt/domain.hpp"
#include "util/uninit_vector.hpp"

namespace starzk::dag {

class key_bundle_t {
 public:
  // Validates the key's shape and that the circuit fits it (std::runtime_error
  // naming `name` otherwise); a bellman key needs the circuit. StarPU must be
  // running. `threads` parallelises the domain table build (0 = all cores).
  key_bundle_t(std::shared_ptr<const proving_key_t> pk, std::shared_ptr<const r1cs_t> cs, std::string name,
               unsigned threads = 0);
  ~key_bundle_t();
  key_bundle_t(const key_bundle_t&) = delete;
  key_bundle_t& operator=(const key_bundle_t&) = delete;

  const std::string& name() const { return name_; }
  const proving_key_t& pk() const { return *pk_; }
  const r1cs_t* cs() const { return cs_.get(); }
  const codelets::key_view_t& view() const { return view_; }

  // The query handles; null for a query the memory plan streams
  // (view().g1_device[q].streamed, view().b_g2_device.streamed).
  starpu_data_handle_t query(codelets::msm_query_t q) const { return g1_[static_cast<int>(q)]; }
  starpu_data_handle_t b_g2() const { return b_g2_; }
  // The device memory plan (dag/key_residency.hpp) and the sizes it was
  // made from (memory_input().device == 0: no plan, without CUDA workers),
  // and the plan in one line (empty without a plan).
  const residency_input_t& memory_input() const { return memory_input_; }
  const residency_plan_t& memory_plan() const { return memory_plan_; }
  std::string describe_memory_plan() const;
  // "host NTT domain 1.20 s, device NTT domain 0.80 s, 12.9 GB page-locked
  // in 4.10 s": what making the bundle cost beyond the key itself.
  std::string setup_times() const;
  // The spmv buffers of each matrix it reads, in matrix order (see above).
  const std::vector<starpu_data_handle_t>& matrices() const { return matrices_; }
  // Every handle the bundle registered (queries, matrices), all read-only.
  const std::vector<starpu_data_handle_t>& handles() const { return all_; }
  // The device NTT domain (ntt_h's buffer 3).
  starpu_data_handle_t device_domain() const { return domain_h_; }
  // Holds on each GPU the resident arrays of the plan that have arrived
  // there and are not held yet (the watcher started at registration does
  // the same as copies land; the batch also calls it as partitions finish,
  // so every array a finished partition read is held by then); logically
  // const: it changes where copies stay, never what the key is.
  void hold_on_devices() const;
  // What the plan keeps on each GPU (empty without a plan), and how many
  // (array, GPU) holds are in place.
  std::vector<starpu_data_handle_t> resident_on_devices() const;
  size_t held_on_devices() const { return hold_.held(); }

  // Host bytes one partition of this key holds at most while in flight:
  // the witness, the rows a, b, c (h lives in a), the public inputs and
  // the prep_msm bitmaps and tails (at their largest). What the memory
  // budget reserves per partition.
  uint64_t partition_bytes() const;
  // The values each host buffer of a partition holds room for: the witness,
  // and the rows a, b, c where they live in host memory, all of one size
  // (the larger of the witness and the domain), so that any buffer one
  // partition gives back to the pool serves the next in any of the four
  // roles and no partition waits for a fresh buffer to be allocated and
  // page-locked (dag/witness_pool.hpp).
  uint64_t pool_values() const;
  // Host bytes of the rows a, b, c that have home buffers in host memory
  // (their free tasks give them back early: dag/batch.cpp): host_rows()
  // pool buffers of pool_values(); 0 where the rows live on the device.
  uint64_t host_row_bytes() const;
  unsigned host_rows() const;  // 3, 2 (b, c: a_on_device_only) or 0
  // The H phase runs in passes and a stays on the device from the witness
  // map (spmv_passes on a GPU: not placed on the CPUs) through msm_h
  // (STARZK_H_PASSES_A_ON_DEVICE), the H phase in two vectors
  // (STARZK_H_PASSES_VECTORS=2, the one-vector form keeps a's coset
  // values in a's host buffer): nothing reads or writes a in host memory,
  // so it has no home buffer there (StarPU allocates it where a task runs)
  // and the budget does not count it; b and c keep theirs. (Where the
  // device has no room for the second vector after all, that task takes a
  // temporary host buffer: codelets/ntt_h_passes.cpp.) The tasks that
  // hold a (the witness map, the H phase, msm_h) then run on GPUs only,
  // but for a retry on the CPUs, which reserves a's row beside the rest
  // (dag/batch.cpp).
  bool a_on_device_only() const;
  // The memory plan holds the witness map's buffers (w, a, b, c and the
  // CSR arrays) on a GPU beside the NTT domain and the MSM scratch floor:
  // a, b, c are then kept on the devices, never in host memory
  // (partition_bytes does not count them), and the witness map runs there.
  bool rows_on_device() const;
  // The memory plan cannot hold the CSR arrays beside a partition but
  // holds w, a, b, c: the witness map in pieces writes a, b, c on the GPU,
  // where the H phase reads them (spmv_dev). Their home buffers stay in
  // host memory (rows_on_host_with_gpus holds too), untouched unless
  // StarPU evicts them.
  bool rows_made_on_device() const;
  // The memory plan runs the H phase in passes (ntt_h_passes): a, b, c
  // stay in host memory even when a GPU computes it.
  bool h_phase_in_passes() const;
  // There are GPUs, but the plan cannot hold the witness map's buffers
  // there: a, b, c are counted in host memory, and the witness map is
  // spmv_passes (on a GPU, the matrices copied from host memory piece by
  // piece, or on the CPUs where placed there).
  bool rows_on_host_with_gpus() const;

 private:
  void register_vector(starpu_data_handle_t& h, const void* data, size_t count, size_t elem);
  std::vector<const sparse_matrix_t*> spmv_matrices() const;
  void register_device_domain();
  void plan_device_memory();
  void pin_for_devices();
  void prefetch_to_devices();
  static std::vector<unsigned> cuda_nodes();
  void pin_matrices();
  void pin(const void* p, size_t bytes);
  void unpin_all() noexcept;

  std::string name_;
  std::shared_ptr<const proving_key_t> pk_;
  std::shared_ptr<const r1cs_t> cs_;
  std::unique_ptr<domain_t> domain_;
  codelets::key_view_t view_;
  starpu_data_handle_t g1_[codelets::msm_query_count] = {};
  starpu_data_handle_t b_g2_ = nullptr;
  std::vector<starpu_data_handle_t> matrices_;
  uninit_vector_t<fr_t> device_domain_;  // empty without CUDA workers; every element written on all cores
  starpu_data_handle_t domain_h_ = nullptr;
  residency_input_t memory_input_;
  residency_plan_t memory_plan_;
  bool h_passes_a_on_device_ = false;  // the knob, read with the plan
  std::vector<std::pair<const void*, size_t>> pinned_;
  struct times_t {
    double domain_seconds = 0, device_domain_seconds = 0, pin_seconds = 0;
    uint64_t pinned_bytes = 0;
  } times_;
  std::vector<starpu_data_handle_t> all_;
  mutable device_hold_t hold_;                 // released before all_ is unregistered
  alignas(64) unsigned char dummy_[256] = {};  // home of empty arrays' one-element handles
};

}  // namespace starzk::dag
