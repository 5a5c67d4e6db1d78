// spmv_launch.cuh: the witness-map kernel's launch description, shared by
// its two drivers: cuda/spmv.cu (the whole matrices in device memory) and
// cuda/spmv_pieces.cu (the matrices in host memory, copied to the device a
// range of rows at a time). Internal to cuda/.
//
// A launch covers n_out consecutive output rows starting at row0 of the
// whole vector. Each job (one per blockIdx.y, at most three) is one matrix
// and one output: out[i] = M_i·w for local row i < n_rows (the matrix's
// rows inside the range), 0 for n_rows <= i < n_out, and
// out[i] = w[row0 + i − in_begin] where in_begin <= row0 + i < in_end
// (bellman's input rows of a, in whole-vector indices: they replace
// whatever M gives there). row_ptr is indexed by local row; its entries
// are the matrix's own term indices, and term k lies at k − nnz_base of
// col and val / code (0 for a whole matrix; a piece's first term
// otherwise). With prod_out set, also prod_out[i] = out[i]·prod_with[i]
// (snarkjs c = a∘b).
#pragma once

#include "cuda/field.cuh"
#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {

struct spmv_job_t {
  const uint64_t* row_ptr;
  const uint32_t* col;
  const dev_fr_t* val;   // plain form (dict == nullptr)
  const uint16_t* code;  // coded form: the value is dict[code[k]]
  const dev_fr_t* dict;
  uint64_t n_rows;
  uint64_t nnz_base;
  dev_fr_t* out;
  uint64_t in_begin, in_end;
  dev_fr_t* prod_out;
  const dev_fr_t* prod_with;
};

struct spmv_launch_t {
  spmv_job_t job[3];
  const dev_fr_t* w;
  uint64_t row0, n_out;
  unsigned short_max, warp_max;
};

namespace spmv_detail {

bool aligned16(const void* ptr);
bool aligned2(const void* ptr);
// A matrix that can write into n_out rows: at most n_out rows, a row_ptr
// when it has rows, 16-byte aligned values (plain) or dictionary and
// 2-byte aligned codes (coded).
bool view_ok(const csr_view_t& m, uint64_t n_out);
bool out_ok(const fr_t* d);
// A job of matrix m into d_out (nnz_base 0, no input rows, no product).
spmv_job_t make_job(const csr_view_t& m, fr_t* d_out);
// A launch of n_out rows from row 0, no jobs yet.
spmv_launch_t make_launch(const fr_t* d_w, uint64_t n_out, const spmv_tuning_t& tune);
// Enqueues the kernel for the first n_jobs jobs of p.
cudaError_t launch(const spmv_launch_t& p, unsigned n_jobs, cudaStream_t stream);

}  // namespace spmv_detail

}  // namespace starzk::gpu
