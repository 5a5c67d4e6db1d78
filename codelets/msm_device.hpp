// msm_device.hpp: the device memory of the MSM codelets (msm for the G1
// queries, b_g2_msm for B_g2): how much scratch an MSM needs in pieces
// (for the memory plan made when a key is registered, dag/key_residency.hpp),
// whether a CUDA worker may take an MSM task at all (the codelets'
// can_execute), and how a CUDA body runs one MSM in the memory its device
// has free.
//
// A CUDA body (run_device_msm) asks StarPU what is free on its memory node
// (starpu_memory_get_available, which honours STARPU_LIMIT_CUDA_MEM), adds
// the scratch its worker already holds, takes the smaller of that and the
// key's scratch_max (the operators' cap STARZK_GPU_SCRATCH_MAX and what the
// memory plan leaves for scratch), and plans pieces of consecutive terms
// that fit (src/msm/msm_pieces.hpp): one piece when the whole MSM fits, as
// before. If the allocation still fails it halves its budget and plans
// again; when even the smallest pieces cannot get memory it enqueues
// nothing and returns false, and the body computes the MSM on the host
// (the proof still completes; one line on stderr says so, once).
//
// can_execute: a CUDA worker refuses an MSM task whose smallest pieces
// exceed scratch_max, or whose smallest pieces plus the task's buffers
// exceed its device's memory (starpu_memory_get_total); StarPU and the
// starzk policies then place the task on another GPU or a CPU worker. A
// codelet pinned to CUDA alone (--place msm=cuda) is never refused: there
// the body's host fallback is the way out.
#pragma once

#include <starpu.h>

#include <cstddef>
#include <cstdint>

#include "codelets/cuda_support.hpp"
#include "codelets/partition_state.hpp"
#include "ec/jacobian.hpp"

#if STARZK_CODELETS_CUDA
namespace starzk::gpu {
struct msm_profile_t;  // cuda/starzk_cuda.hpp
}
#endif

namespace starzk::codelets {

// Pieces the memory plan keeps scratch for at least (src/msm/msm_pieces.hpp
// for the smallest pieces a body accepts, msm_min_piece): at 2^22 terms a
// piece's fixed costs are a few percent of its additions.
inline constexpr size_t msm_plan_piece = size_t(1) << 22;

// What an MSM looks like to the device: its curve, its number of terms,
// whether it runs the prep_msm split.
struct msm_shape_t {
  bool g2 = false;
  size_t n = 0;
  bool split = false;
};

// The shape of the key's MSM q: the four G1 queries in msm_query_t order
// (H over h, L over the aux wires, A and B_g1 over w), then
// q = msm_query_count for B_g2 (over w), as the CUDA bodies run them: all
// plain, no split (msm.cpp says why).
msm_shape_t msm_query_shape(const proving_key_t& pk, int q);

// Device scratch of the MSM in pieces of `piece` terms (its last, shorter
// piece included), in the lean form (no batch-affine levels) or the
// default one, with the two staging buffers of streamed bases. 0 without
// the CUDA kernels.
uint64_t msm_scratch_bytes(const msm_shape_t& m, size_t piece, bool streamed, bool lean);
// The scratch of its smallest pieces (msm_smallest_piece(n, msm_min_piece),
// lean): what a CUDA body needs at least.
uint64_t msm_min_scratch_bytes(const msm_shape_t& m, bool streamed);

namespace detail {

// can_execute of the MSM codelets (file comment); true for CPU workers.
bool cuda_worker_can_hold(unsigned worker, const starpu_task* task, const msm_device_t& d, uint64_t scratch_max);

#if STARZK_CODELETS_CUDA
// One MSM of a CUDA body, in the task's device memory.
template <class P>
struct device_msm_t {
  jacobian_t<P>* d_out = nullptr;
  const affine_t<P>* bases = nullptr;  // device memory, or the key's host array when streamed
  bool streamed = false;
  const fr_t* d_scalars = nullptr;
  size_t n = 0;
  size_t split_from = SIZE_MAX;  // gpu::msm_no_split: a plain Pippenger
  bool dense = false;            // scalars mostly not 0 or 1 (h): the batch-affine levels pay
  const char* phase = "msm";     // for the plan's note (the codelet's name for the query)
  // STARZK_MSM_PROFILE: the phases timed (gpu::msm_tuning_t::profile) and
  // one line per MSM on stderr naming `label` (the partition).
  bool profile = false;
  const char* label = "";
  // STARZK_MSM_PIECE_WAIT: the host waits for the stream after each piece
  // (gpu::msm_pieces_t::wait_each; for msm_g1, m[0]'s holds for all four).
  bool wait_each_piece = false;
  // STARZK_MSM_SHARED_BUCKETS: the pieces share one set of buckets
  // (gpu::msm_pieces_t::shared_buckets; the plan's scratch counts it).
  bool shared_buckets = true;
  // STARZK_MSM_REGROUP: dense scalars in pieces take wider digit groups in
  // more pieces where that makes fewer passes (msm_pieces_regroup).
  bool regroup = true;
  // Terms per piece at most (plan_msm_pieces): set for streamed queries
  // of mostly 0/1 scalars, whose time is the copy of their bases
  // (stream_piece_terms).
  size_t max_piece = SIZE_MAX;
  // A second scalar vector over the same bases, n terms (a pair: the same
  // query of another partition of the key, dag/partition_pair.hpp), and
  // its result: every piece of bases is staged once for both vectors
  // (gpu::msm_pieces_sets), so streamed bases cross PCIe once for two
  // proofs. Null: one vector.
  const fr_t* d_scalars2 = nullptr;
  jacobian_t<P>* d_out2 = nullptr;
  unsigned sets() const { return d_scalars2 != nullptr ? 2 : 1; }
};

// The longest piece of a streamed query of mostly 0/1 scalars: the bases
// of `piece_bytes` (key_view_t::stream_piece_bytes; 0: no cap). Such an
// MSM is bound by the copy of its bases, which its pieces overlap with
// their work, all but the first: long pieces leave a long first copy
// unhidden. Dense MSMs (h) are bound by their additions and take the
// fewest pieces.
template <class P>
size_t stream_piece_terms(const device_msm_t<P>& m, uint64_t piece_bytes) {
  if (!m.streamed || m.dense || piece_bytes == 0) return SIZE_MAX;
  return std::max<size_t>(size_t(piece_bytes / sizeof(affine_t<P>)), 1);
}

// Runs the MSM (of one or two scalar vectors) on the calling CUDA
// worker's stream in pieces that fit (file comment) and waits for it: the
// MSM launchers wait for their stream once per piece (the live-term count
// sizes the sorts), so the msm and
// b_g2_msm codelets are synchronous CUDA codelets (no STARPU_CUDA_ASYNC),
// and StarPU neither pipelines the next task's body into theirs nor marks
// the task before them done late. False, with nothing enqueued, when the
// device cannot give even the smallest pieces their scratch. Throws on a
// CUDA error.
template <class P>
bool run_device_msm(const device_msm_t<P>& m, uint64_t scratch_max);

// The four G1 MSMs of msm_g1 (msm.cpp; m in msm_query_t order, every one
// streamed) in one gpu::msm_beside call (cuda/msm_streamed.hpp): L, A and
// B_g1 one after the other on a second stream beside H's pieces, without
// batch-affine levels and with one window per digit group, at the
// device's greatest stream priority, in pieces of an eighth of their
// terms, halved while their scratch takes more than half the budget
// run_device_msm would take; H: the fewest pieces that fit the rest, in
// the form run_device_msm would choose. False, with
// nothing enqueued, where that does not fit; the body then runs them one
// by one. Waits for the stream; throws on a CUDA error. Profiled
// (device_msm_t::profile of m[0]): one note_msm_profile line per query,
// its own phases against the whole call's wall.
bool run_device_msms_together(const device_msm_t<g1_params> (&m)[msm_query_count], uint64_t scratch_max);
// Says once per process and phase how the first MSM of that phase was cut
// (pieces, form, scratch against its budget and the device's free room):
// the one line that tells a slow streamed query from a fast one.
void note_pieces_plan(const char* phase, size_t n, size_t piece, size_t count, const char* form, uint64_t bytes,
                      uint64_t budget, uint64_t room, bool streamed);

// One line on stderr for a profiled MSM (STARZK_MSM_PROFILE): its wall
// time in the body, its phases summed over its pieces, and what the phases
// leave of the wall (copies of streamed bases waited for, host waits,
// launches).
void note_msm_profile(const char* phase, const char* label, size_t n, size_t pieces, double wall_ms,
                      const gpu::msm_profile_t& prof);

// Says once per process, on stderr, that an MSM of `label` ran on the host
// for want of device memory.
void note_host_fallback(const std::string& label, const char* phase, size_t n);
#endif

}  // namespace detail
}  // namespace starzk::codelets
