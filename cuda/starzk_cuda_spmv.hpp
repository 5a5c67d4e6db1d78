// starzk_cuda_spmv: the witness-map part of the device API
// (cuda/starzk_cuda.hpp includes it; the same conventions: device
// pointers, a stream, cudaError_t, no throw). Kept apart because the SpMV
// launchers share nothing with the field, NTT and MSM ones but the field
// element type and the root convention.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

#include "ff/fr.hpp"
#include "ntt/convention.hpp"

namespace starzk::gpu {

// ------------------------------------------------------------------ SpMV --
// The witness map (docs/prover.md step 1) on the device; cuda/spmv.cu.
// A CSR matrix in device memory, the layout of src/groth16/r1cs.hpp
// sparse_matrix_t: row_ptr (n_rows + 1 entries, row_ptr[0] = 0), col (nnz
// entries), and the values in one of two forms:
//   plain (dict == nullptr): val, nnz Montgomery fr_t, 16-byte aligned;
//   coded (dict != nullptr): code, nnz u16 indices into dict (Montgomery
//     fr_t, 16-byte aligned, at most 65536 entries); val is ignored.
// Every col must index into the witness the launcher is given, and every
// code into dict (neither is checked on the device: src/io validates files).
struct csr_view_t {
  const uint64_t* row_ptr;
  const uint32_t* col;
  const fr_t* val;
  uint64_t n_rows;
  const uint16_t* code = nullptr;
  const fr_t* dict = nullptr;
  uint64_t dict_size = 0;  // dict's entries (witness_map_pieces copies them)
};
// Rows of at most short_max terms are summed by one thread, rows of at most
// warp_max terms by one warp, longer rows by a whole block of 256 threads.
struct spmv_tuning_t {
  unsigned short_max = 8;
  unsigned warp_max = 1024;
};
// out[i] = sum_k val[k]·w[col[k]] for i < m.n_rows, 0 for m.n_rows <= i < n_out.
// cudaErrorInvalidValue if m.n_rows > n_out, or a pointer is null / misaligned.
cudaError_t spmv_fr(fr_t* d_out, size_t n_out, const csr_view_t& m, const fr_t* d_w, cudaStream_t stream,
                    const spmv_tuning_t& tune = {});
// Bellman / Filecoin witness map, identical to codelets/witness_map_into:
// a = A·w, b = B·w, c = C·w, then a[n_constraints + s] = w[s] for
// s = 0..n_public (the input rows), every other entry up to n zero. One launch.
// cudaErrorInvalidValue unless n_constraints + n_public + 1 <= n and every
// matrix has at most n rows. d_a, d_b, d_c are n entries each, distinct.
cudaError_t qap_rows_bellman(fr_t* d_a, fr_t* d_b, fr_t* d_c, size_t n, const csr_view_t& A, const csr_view_t& B,
                             const csr_view_t& C, uint64_t n_constraints, uint64_t n_public, const fr_t* d_w,
                             cudaStream_t stream, const spmv_tuning_t& tune = {});
// The R1CS check of a bellman witness map's rows: the lowest i < rows with
// a_i·b_i != c_i, into *d_first (UINT64_MAX when every row holds). Sets
// *d_first first, then one Fr product per row on `stream`; the caller reads
// the word back. cudaErrorInvalidValue for a null d_first or rows > 0 with
// a null vector.
cudaError_t first_unsatisfied_row(const fr_t* d_a, const fr_t* d_b, const fr_t* d_c, uint64_t rows, uint64_t* d_first,
                                  cudaStream_t stream);
// snarkjs witness map: a = A·w, b = B·w (the .zkey matrices, input rows
// included), c = a∘b, zero beyond the rows. Two launches (c fused into b's).
// cudaErrorInvalidValue if a matrix has more than n rows.
cudaError_t qap_rows_snarkjs(fr_t* d_a, fr_t* d_b, fr_t* d_c, size_t n, const csr_view_t& A, const csr_view_t& B,
                             const fr_t* d_w, cudaStream_t stream, const spmv_tuning_t& tune = {});
// The same witness maps with the matrices and a, b, c in host memory and
// only w on the device (cuda/spmv_pieces.cu): for a GPU that cannot hold
// the CSR arrays beside a, b, c. The rows are done piece_rows at a time:
// each piece's CSR slice is copied in, mapped, checked (bellman) and its
// a, b, c copied out, two pieces in flight on two streams. m holds host
// arrays (bellman A, B, C; snarkjs A, B, m[2] unused); out the host a, b,
// c of n entries each, or, for a row with out_on_device[r], a device
// vector the pieces are mapped straight into (a GPU that holds w, a, b, c
// but not the CSR, or a kept there for the H phase: nothing of that row is
// copied out). Host arrays that are page-locked copy by DMA.
struct witness_map_host_t {
  root_convention_t conv = root_convention_t::bellman;
  csr_view_t m[3] = {};
  uint64_t n = 0;
  uint64_t n_constraints = 0, n_public = 0;  // bellman
  fr_t* out[3] = {};
  bool out_on_device[3] = {};
  uint64_t piece_rows = 0;
};
// Device scratch the call needs (0 for arguments it would refuse).
size_t witness_map_pieces_scratch_bytes(const witness_map_host_t& job);
// Enqueues the map on `stream` and a second stream of its own, then waits
// for both: *first_unsatisfied is the lowest constraint row i with
// a_i·b_i != c_i (bellman), UINT64_MAX when every row holds (and always for
// snarkjs). cudaErrorInvalidValue for the arguments qap_rows_bellman /
// qap_rows_snarkjs refuse, row_ptr entries that decrease, or scratch
// smaller than witness_map_pieces_scratch_bytes(job).
cudaError_t witness_map_pieces(const witness_map_host_t& job, const fr_t* d_w, void* d_scratch, size_t scratch_bytes,
                               cudaStream_t stream, uint64_t* first_unsatisfied, const spmv_tuning_t& tune = {});

}  // namespace starzk::gpu
