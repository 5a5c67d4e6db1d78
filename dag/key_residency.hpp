// key_residency.hpp: the memory plan of a key on a GPU, made once when the
// key is registered (dag/key_bundle.cpp): which of the five MSM queries
// (H, L, A, B_g1 in G1, 96 bytes per point; B_g2, 192) stay resident as
// StarPU handles, which stream per partition from page-locked host memory
// (no StarPU buffer; the MSM's CUDA body copies the bases piece by piece,
// codelets/msm_device.hpp), and how much device scratch the MSM bodies may
// take. Pure functions over sizes, so the CI tests the rules alone
// (tests/dag/test_key_residency.cpp); docs/gpu.md ("Memory plan") works
// them out at 2^24 and 2^27.
//
// The rules, in bytes of one GPU as StarPU counts it (the smallest CUDA
// memory node; STARPU_LIMIT_CUDA_MEM applies):
//   1. fixed: the bytes outside the queries and the MSM scratch. With
//      the witness map on the device (spmv reads the CSR arrays there):
//      the NTT domain + the CSR + the running chain's device data (w, a,
//      b, c: spmv heads its chain, dag/partition_dag.cpp) + three more
//      witnesses: the next chain's, which the policy stages while this
//      one runs; the chain before's, held until its b_g2_msm and free
//      tasks (its H evaluations went back to StarPU after msm_h); and one
//      of slack. The slack is for StarPU's allocator: a buffer it must
//      allocate for a task (a witness the policy could not stage) and
//      cannot fit makes it free twice that buffer's size, its cache of
//      freed buffers first, then whatever was least recently used,
//      resident queries included, which the next MSM copies back (12 GiB
//      each at 2^27). a, b, c exist only inside a chain, one chain per
//      device, so a staged partition costs its w alone (4 GiB at 2^27,
//      where w, a, b, c are 16). The plan then limits the policy's
//      run-ahead to 1 (run_ahead() below): every further staged partition
//      would hold another witness that StarPU finds room for only by
//      evicting resident queries. If that form does not fit beside the
//      scratch floor, the witness map runs in pieces (codelets/
//      spmv_passes.cpp: the CSR stays in host memory, a piece of rows at
//      a time crosses the device), in the first of these forms that fits:
//        r. a, b, c written on the device and kept there for the H phase
//           (spmv_dev, rows_stay), where the device holds the larger of
//           its two phases beside the domain (full, else lean): the
//           witness map's and H phase's w, a, b, c and the map's scratch,
//           or the MSMs' w and h and the scratch floor. fixed = the MSMs'
//           data + the domain, and the queries' room leaves the larger
//           phase; the MSM bodies may take all the rest, because the
//           scratch a CUDA worker holds goes back when it takes the next
//           spmv_dev task (codelets::detail::release_scratch_on_pop);
//      else a GPU never holds w, a, b, c at once (a, b, c in host memory,
//      spmv_passes): its phases are the H phase (a, b, c and
//      the domain) and the MSMs (w and h), so fixed = the larger of the
//      two + the domain, in the first of these forms that leaves the
//      scratch floor:
//        a. the full domain;
//        b. the lean domain (no full twiddle tables, cuda/starzk_cuda.hpp
//           ntt_tables_t: ~4 GiB less at 2^27, one Fr product more per
//           butterfly above 2^17);
//        c. the H phase in passes (codelets/ntt_h_passes.cpp: a, b, c stay
//           in host memory and cross the device one at a time through the
//           MSM scratch), lean domain: fixed = the MSMs' w and h + the
//           domain. That is what lets a 16 GB card run a 2^27 partition
//           (12 GiB of a, b, c; 15.6 GiB of device).
//      The headroom (what StarPU, CUB and the driver take beside the plan)
//      is added to fixed.
//   2. room = device - fixed - scratch_floor: the queries' share, after
//      scratch for MSM pieces of msm_plan_piece terms (lean form, staging
//      included) is set aside (in form r, the larger of that floor and
//      what the witness map's phase holds beyond the MSMs' data).
//   3. All queries resident if they fit in room. Otherwise they stream in
//      the order h, b_g2, l, b_g1, a until the rest fits; then each
//      streamed query, the last streamed first, comes back if it still
//      fits (so whatever fits stays resident). Order: H's MSM is the only
//      dense one (a full Pippenger over n terms, 194 ms at 2^25 against
//      23-44 ms for the split G1 MSMs on the H200, docs/benchmarks.md), so
//      its copy (96 B per point) hides best behind its own compute; B_g2
//      is the largest query and its MSM costs ~2.8x a G1 one per point;
//      L, B_g1 and A are equal in size and their MSMs the shortest.
//   4. scratch_budget = device - fixed - resident, and at least the
//      scratch floor where the device holds fixed + floor: the MSM bodies
//      never take what the resident queries and the next partition need,
//      so StarPU never has to evict a resident query for them.
// STARZK_KEY_STREAM forces the streamed set (tests, operators); rule 4
// still sizes the scratch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace starzk::dag {

// The five queries in the plan's index order.
inline constexpr int key_query_count = 5;
enum class key_query_t : int { h = 0, l = 1, a = 2, b_g1 = 3, b_g2 = 4 };
const char* key_query_name(int q);  // "h", "l", "a", "b_g1", "b_g2"
inline constexpr uint32_t key_query_all = (1u << key_query_count) - 1;

// Rule 3's order.
inline constexpr int key_stream_order[key_query_count] = {0, 4, 1, 3, 2};

struct residency_input_t {
  uint64_t device = 0;          // bytes of one GPU
  uint64_t key_fixed = 0;       // the key's other arrays on the device (NTT domain)
  uint64_t key_fixed_lean = 0;  // the same without the full twiddle tables (0: no lean form)
  uint64_t key_optional = 0;    // arrays kept on the device only if they fit (CSR)
  uint64_t partition = 0;       // one partition's device data (w, a, b, c)
  uint64_t witness = 0;         // its w alone (rule 1 counts three beside the partition)
  uint64_t rows = 0;            // its a, b, c: the H phase's buffers beside the domain
  uint64_t headroom = 0;        // left to the runtime and the driver
  uint64_t overlap = 0;         // what a partition holds in its MSM phase (w, H evaluations)
  uint64_t map_scratch = 0;     // the witness map's scratch writing a, b, c on the device (0: no such form)
  uint64_t scratch_floor = 0;   // MSM scratch set aside before the queries
  uint64_t query[key_query_count] = {};
  std::optional<uint32_t> forced;  // the streamed set (bit q: query q); nullopt: the rules
};

struct residency_plan_t {
  uint64_t fixed = 0;           // rule 1's bytes (key_optional counted or not)
  bool optional_fits = false;   // key_optional counted in fixed: the witness map can run on the device
  bool lean_domain = false;     // key_fixed_lean counted instead of key_fixed
  bool h_passes = false;        // the H phase in passes: a, b, c never on the device
  bool rows_stay = false;       // the witness map in pieces writes a, b, c on the device (spmv_dev)
  uint32_t streamed = 0;        // bit q: query q streams
  uint64_t resident = 0;        // bytes of the resident queries
  uint64_t scratch_budget = 0;  // device scratch the MSM bodies may take
  bool streams(int q) const { return (streamed >> q) & 1u; }
  // The policy's GPU run-ahead the plan counts (one staged witness): 1 with
  // the witness map on the device, else 0 (no limit needed).
  int run_ahead() const { return optional_fits ? 1 : 0; }
};

residency_plan_t plan_key_residency(const residency_input_t& in);

// "resident h l a b_g1 (6.00 GiB), streamed b_g2 (3.00 GiB), MSM scratch
// up to 9.80 GiB of 22.89 GiB" (the plan, for a log line).
std::string describe(const residency_plan_t& plan, const residency_input_t& in);

// The knobs of the plan (docs/usage.md), read when a key is registered:
//   STARZK_GPU_SCRATCH_MAX   bytes of device scratch an MSM body may take
//                            (parse_byte_size: 512M, 2G, ...); unset: no cap
//   STARZK_KEY_STREAM        auto (the rules), none, all, or queries
//                            separated by commas (h,l,a,b_g1,b_g2): those
//                            stream, the others stay resident
//   STARZK_ROWS_ON_DEVICE    0/off: no form r (a, b, c in host memory
//                            wherever the CSR does not fit; comparisons)
//   STARZK_MSM_STREAM_PIECE  bytes of bases one piece of a streamed MSM of
//                            mostly 0/1 scalars copies at most
//                            (parse_byte_size; 0 or none: no cap)
//   STARZK_H_PASSES_VECTORS  device vectors the H phase in passes may take
//                            (1 or 2; codelets/ntt_h_passes.cpp)
//   STARZK_H_PASSES_A_ON_DEVICE  the H phase in passes finds a on the
//                            device and leaves h there (switch, on)
//   STARZK_MSM_TOGETHER      off, auto (where the plan streams the four
//                            G1 queries) or on: a partition's four G1
//                            MSMs as one task (key_view_t::g1_msms_together)
//   STARZK_MSM_PAIRS         auto, off, b_g2 or on: two partitions of a
//                            batch share one task per witness MSM: b_g2_msm
//                            (b_g2; auto where the plan streams B_g2), and
//                            msm_l, msm_a, msm_b1 (on; auto where the plan
//                            streams L, A and B_g1): key_view_t::b_g2_pairs,
//                            g1_pairs
// A bad value throws std::runtime_error naming the variable.
inline constexpr uint64_t default_stream_piece_bytes = uint64_t(768) << 20;
inline constexpr unsigned msm_pairs_b_g2 = 1u, msm_pairs_g1 = 2u;
struct gpu_memory_knobs_t {
  uint64_t scratch_max = UINT64_MAX;
  std::optional<uint32_t> stream;
  bool rows_on_device = true;
  uint64_t stream_piece_bytes = default_stream_piece_bytes;
  unsigned h_passes_vectors = 2;
  bool h_passes_a_on_device = true;
  std::optional<bool> msms_together = false;  // nullopt: auto
  // Pairs (STARZK_MSM_PAIRS): msm_pairs_b_g2 | msm_pairs_g1; nullopt: auto.
  std::optional<unsigned> msm_pairs = std::nullopt;
};
gpu_memory_knobs_t gpu_memory_knobs_from_env();
// STARZK_KEY_STREAM's value (nullopt for auto); `what` names it in errors.
std::optional<uint32_t> parse_key_stream(std::string_view text, const std::string& what);

}  // namespace starzk::dag
