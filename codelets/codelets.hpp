// codelets.hpp: the StarPU codelets of one Groth16 proof (docs/dag.md), one
// per file, each with a CPU body calling the reference prover's functions,
// a performance model keyed by problem size, a name, a color and a
// resource class (policies/resource_class.h):
//
//   codelet    buffers (mode)                                   class
//   spmv       w (R), a b c (W), circuit/key CSR arrays (R)     memory_heavy
//   spmv_passes  w (R), a b c (W, main memory); CSR from the key  memory_heavy
//   spmv_dev   w (R), a b c (W, where it runs); CSR from the key   memory_heavy
//   ntt_h      a b c (RW): h left in a                          gpu_chain
//   prep_msm   w (R), prep (W)                                  memory_heavy
//   msm        query bases (R), h or prep (R), result (W)       gpu_chain
//              (one codelet for the H, L, A and B_g1 queries)
//   b_g2_msm   B_g2 bases (R), prep (R), result (W)             memory_heavy
//   assemble   the five MSM results (R), proof (W)              light
//   free       w a b c prep (W): releases their memory          dealloc
//
// cl_arg is the partition's codelets::partition_state_t (msm: an
// msm_task_arg_t naming the query). spmv, ntt_h, msm and b_g2_msm also
// have CUDA bodies (cuda_support.hpp) when built with the kernels; StarPU
// (or set_placement) picks the body per task.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codelets/partition_state.hpp"

struct starpu_codelet;

namespace starzk::codelets {

starpu_codelet* spmv_codelet();
// The witness map with a, b, c kept in main memory and the matrices read
// from the key's host arrays (a GPU streams them): the memory plan's choice
// for a device that cannot hold the CSR arrays beside a, b, c.
starpu_codelet* spmv_passes_codelet();
// The same map with a, b, c written where the task runs (on a GPU: kept
// there for ntt_h, nothing copied out): the memory plan's choice for a
// device that holds w, a, b, c but not the CSR arrays beside them. Its
// tasks are named spmv_passes.
starpu_codelet* spmv_dev_codelet();
// Device scratch of spmv_dev's CUDA body in its largest pieces (what the
// memory plan sets aside for it beside w, a, b, c); 0 without CUDA bodies
// or for matrices the map refuses.
uint64_t spmv_dev_scratch_bytes(const key_view_t& key);
starpu_codelet* ntt_h_codelet();
// The H phase with a, b, c kept in main memory (a GPU streams them): the
// memory plan's choice for a device that cannot hold the three at once.
starpu_codelet* ntt_h_passes_codelet();
// Where ntt_h_passes' tasks find a: in main memory (false, the default) or
// on the device where the task runs (true: spmv_passes writes it there and
// h stays there for msm_h). Set on both codelets, so for the whole process
// (the key bundle sets it from STARZK_H_PASSES_A_ON_DEVICE), between
// batches only; h_passes_a_on_device says which.
void set_h_passes_a_on_device(bool on);
bool h_passes_a_on_device();
// How many of ntt_h_passes' CUDA bodies so far (in this process) ran in
// each form: through two device vectors, through one vector and two
// chunks, or on the host for want of either (codelets/ntt_h_passes.cpp).
struct h_passes_forms_t {
  unsigned long long two = 0, one = 0, host = 0;
};
h_passes_forms_t h_passes_forms();
// Device bytes ntt_h_passes' two-vector form takes for a domain of 2^log_n
// elements (two vectors of scratch, or a's copy on the device and one of
// scratch: the same); 0 without CUDA bodies.
uint64_t ntt_h_passes_two_vector_bytes(unsigned log_n);
starpu_codelet* prep_msm_codelet();
starpu_codelet* msm_codelet();
starpu_codelet* b_g2_msm_codelet();
starpu_codelet* assemble_codelet();
starpu_codelet* free_codelet();

// All ten, in DAG order (tests, docs, the trace plot's legend).
std::vector<starpu_codelet*> all_codelets();

// Where each codelet may run, for the whole process: "name=cpu|cuda|any,..."
// (names as above: spmv, spmv_passes, spmv_dev, ntt_h, ntt_h_passes, prep_msm, msm,
// b_g2_msm, assemble, free).
// Applies to tasks submitted afterwards. Throws std::invalid_argument for
// an unknown codelet or kind, or a body this build lacks. placement()
// prints the current masks in the same syntax.
void set_placement(const std::string& spec);
std::string placement();
// The kinds of worker a codelet may run on now: its `where` mask once set
// (by set_placement, or by StarPU at its first task's submission), else
// the kinds it has bodies for (STARPU_CPU | STARPU_CUDA).
uint32_t codelet_where(const starpu_codelet* cl);

// spmv's buffers after w, a, b, c: for each matrix the witness map reads
// (the circuit's A, B, C for a bellman key, the .zkey's A and B for a
// snarkjs key), row_ptr and col, then val for a plain matrix or code and
// dict for a coded one (groth16/r1cs.hpp). The count of one matrix, used by
// the key registration (dag/key_bundle.cpp) and the codelet's bodies.
inline unsigned spmv_matrix_buffers(const sparse_matrix_t& m) { return m.coded() ? 4 : 3; }

// Estimated work of one task, for STARPU_FLOPS (unit: F_r multiplications,
// or curve additions for the MSMs; see each codelet's file).
double spmv_flops(const partition_state_t& p);
double ntt_h_flops(const partition_state_t& p);
double prep_msm_flops(const partition_state_t& p);
double msm_flops(const partition_state_t& p, msm_query_t q);
double b_g2_msm_flops(const partition_state_t& p);

// The key's device NTT domain, ntt_h's buffer 3 (ntt_h.cpp), for a
// 2^log_n domain with the full twiddle tables or lean: its bytes, 0 where
// no CUDA body takes that size (no CUDA in the build, or log_n outside the
// kernels' 1..27); and its contents, built on the host into `out` of
// exactly that many bytes (throws std::runtime_error where the size is 0
// or wrong, or the build fails). The key registration (dag/key_bundle.cpp)
// and its memory plan use them.
uint64_t ntt_h_domain_bytes(unsigned log_n, bool lean);
void build_ntt_h_domain(std::span<fr_t> out, unsigned log_n, root_convention_t conv, bool lean);

// Bytes the prep_msm result may hold at most (bitmaps + full tails): what
// the memory budget reserves before prep_msm runs.
uint64_t prep_msm_max_bytes(uint64_t n_vars, uint64_t n_public);
// Bytes a prep_msm_t holds.
uint64_t prep_msm_bytes(const prep_msm_t& p);

}  // namespace starzk::codelets
