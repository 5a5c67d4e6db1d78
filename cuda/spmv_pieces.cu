// The witness map with the circuit's matrices and a, b, c in host memory
// (starzk_cuda.hpp, witness_map_pieces): the form for a GPU that cannot
// hold the CSR arrays beside a, b, c (a 2^27 partition: ~7.7 GB of coded
// CSR and 12 GiB of a, b, c against a 16-24 GB card; docs/gpu.md, Memory
// plan). Only w lives on the device for the whole call.
//
// The rows go piece_rows at a time. For piece k, rows [r0, r0 + len):
//   1. per matrix, the rows of the piece it has, [lo, hi) with
//      lo = min(r0, n_rows), hi = min(r0 + len, n_rows): their hi − lo + 1
//      row_ptr entries and their terms [row_ptr[lo], row_ptr[hi]) of col
//      and val (plain) or code (coded) are copied in;
//   2. the kernel of cuda/spmv.cu over the piece (row0 = r0, nnz_base =
//      row_ptr[lo], bellman's input rows in whole-vector indices); snarkjs
//      in two launches, c = a∘b fused into b's, as qap_rows_snarkjs;
//   3. bellman: the R1CS check of the piece's constraint rows into word k;
//   4. the piece's a, b, c are copied out into the host rows (a row with
//      out_on_device was mapped into its device vector in place: no
//      output buffer in the scratch, nothing copied out).
// Piece k runs on stream k % 2 with buffer set k % 2: one piece's copies
// in overlap the other's copies out (PCIe carries both directions at
// once), and a buffer set is reused only after the piece before it on the
// same stream is done. The dictionaries (coded matrices, at most 2 MiB
// each) are copied once. PCIe traffic: the CSR once and the host rows once.
#include <algorithm>
#include <vector>

#include "cuda/spmv_launch.cuh"

namespace starzk::gpu {
namespace {

using namespace spmv_detail;

size_t align256(size_t x) { return (x + 255) & ~size_t(255); }

// The call's shape, from the job's host arrays: pieces, and per matrix the
// largest piece's term count (the size of its buffers).
struct shape_t {
  unsigned mats = 0;
  uint64_t piece = 0, pieces = 0;
  uint64_t nnz_cap[3] = {};
  bool ok = false;
};

bool coded(const csr_view_t& m) { return m.dict != nullptr; }
size_t term_value_bytes(const csr_view_t& m) { return coded(m) ? sizeof(uint16_t) : sizeof(fr_t); }

// The arguments qap_rows_bellman / qap_rows_snarkjs accept, with host
// arrays in place of device ones (col and the values needed only where a
// matrix has terms), and row_ptr non-decreasing at the pieces' ends.
shape_t shape_of(const witness_map_host_t& j) {
  shape_t s;
  const bool bellman = j.conv == root_convention_t::bellman;
  s.mats = bellman ? 3 : 2;
  if (bellman && (j.n_constraints > j.n || j.n_public >= j.n - j.n_constraints)) return s;
  if (j.n == 0 || j.piece_rows == 0) return s;
  for (unsigned m = 0; m < s.mats; ++m) {
    if (!view_ok(j.m[m], j.n) || !out_ok(j.out[m])) return s;
    const csr_view_t& v = j.m[m];
    if (v.n_rows == 0 || v.row_ptr[v.n_rows] == v.row_ptr[0]) continue;  // no terms
    if (v.row_ptr[v.n_rows] < v.row_ptr[0]) return s;
    if (v.col == nullptr || (coded(v) ? v.code == nullptr : v.val == nullptr)) return s;
    if (coded(v) && (v.dict_size == 0 || v.dict_size > (uint64_t(1) << 16))) return s;
  }
  if (!out_ok(j.out[2])) return s;
  s.piece = std::min(j.piece_rows, j.n);
  s.pieces = (j.n + s.piece - 1) / s.piece;
  for (unsigned m = 0; m < s.mats; ++m) {
    const csr_view_t& v = j.m[m];
    for (uint64_t k = 0; k < s.pieces; ++k) {
      const uint64_t lo = std::min(k * s.piece, v.n_rows), hi = std::min(k * s.piece + s.piece, v.n_rows);
      if (hi == lo) break;
      if (v.row_ptr[hi] < v.row_ptr[lo]) return s;
      s.nnz_cap[m] = std::max(s.nnz_cap[m], v.row_ptr[hi] - v.row_ptr[lo]);
    }
  }
  s.ok = true;
  return s;
}

// Byte offsets in the scratch: per buffer set and matrix the row_ptr, col
// and value slices and the output piece; the dictionaries; one check word
// per piece.
struct layout_t {
  size_t rp[2][3] = {}, col[2][3] = {}, val[2][3] = {}, out[2][3] = {}, dict[3] = {}, words = 0, total = 0;
};

layout_t layout_of(const witness_map_host_t& j, const shape_t& s) {
  layout_t l;
  size_t at = 0;
  auto take = [&](size_t bytes) {
    const size_t here = at;
    at += align256(bytes);
    return here;
  };
  for (int set = 0; set < 2; ++set) {
    for (unsigned m = 0; m < s.mats; ++m) {
      l.rp[set][m] = take((s.piece + 1) * sizeof(uint64_t));
      l.col[set][m] = take(s.nnz_cap[m] * sizeof(uint32_t));
      l.val[set][m] = take(s.nnz_cap[m] * term_value_bytes(j.m[m]));
    }
    for (int r = 0; r < 3; ++r) l.out[set][r] = take(j.out_on_device[r] ? 0 : s.piece * sizeof(fr_t));
  }
  for (unsigned m = 0; m < s.mats; ++m) l.dict[m] = take(coded(j.m[m]) ? j.m[m].dict_size * sizeof(fr_t) : 0);
  l.words = take(s.pieces * sizeof(uint64_t));
  l.total = at;
  return l;
}

// The second stream and its two events; waits for the stream when it goes,
// so the scratch outlives every copy it enqueued, errors included.
struct side_stream_t {
  cudaStream_t s = nullptr;
  cudaEvent_t start = nullptr, done = nullptr;
  ~side_stream_t() {
    if (s) cudaStreamSynchronize(s);  // errors here have no one to go to
    for (cudaEvent_t e : {start, done})
      if (e) cudaEventDestroy(e);
    if (s) cudaStreamDestroy(s);
  }
  cudaError_t init(cudaStream_t main) {
    SZK_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    SZK_TRY(cudaEventCreateWithFlags(&start, cudaEventDisableTiming));
    SZK_TRY(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    SZK_TRY(cudaEventRecord(start, main));  // after the dictionaries, and whatever held the scratch before
    return cudaStreamWaitEvent(s, start, 0);
  }
};

}  // namespace

size_t witness_map_pieces_scratch_bytes(const witness_map_host_t& job) {
  const shape_t s = shape_of(job);
  return s.ok ? layout_of(job, s).total : 0;
}

cudaError_t witness_map_pieces(const witness_map_host_t& job, const fr_t* d_w, void* d_scratch, size_t scratch_bytes,
                               cudaStream_t stream, uint64_t* first_unsatisfied, const spmv_tuning_t& tune) {
  const shape_t s = shape_of(job);
  if (!s.ok || first_unsatisfied == nullptr || d_scratch == nullptr || d_w == nullptr || !aligned16(d_w))
    return cudaErrorInvalidValue;
  const layout_t l = layout_of(job, s);
  if (scratch_bytes < l.total) return cudaErrorInvalidValue;
  *first_unsatisfied = UINT64_MAX;
  const bool bellman = job.conv == root_convention_t::bellman;
  auto* base = static_cast<unsigned char*>(d_scratch);
  auto at = [&](size_t offset) { return static_cast<void*>(base + offset); };
  for (unsigned m = 0; m < s.mats; ++m)
    if (coded(job.m[m]) && job.m[m].dict_size > 0)
      SZK_TRY(cudaMemcpyAsync(at(l.dict[m]), job.m[m].dict, job.m[m].dict_size * sizeof(fr_t), cudaMemcpyHostToDevice,
                              stream));
  side_stream_t side;
  SZK_TRY(side.init(stream));
  auto* words = static_cast<uint64_t*>(at(l.words));
  for (uint64_t k = 0; k < s.pieces; ++k) {
    const int set = int(k % 2);
    const cudaStream_t st = set == 0 ? stream : side.s;
    const uint64_t r0 = k * s.piece, len = std::min(s.piece, job.n - r0);
    spmv_launch_t launch_p = make_launch(d_w, len, tune);
    launch_p.row0 = r0;
    auto out = [&](int r) { return job.out_on_device[r] ? job.out[r] + r0 : static_cast<fr_t*>(at(l.out[set][r])); };
    for (unsigned m = 0; m < s.mats; ++m) {
      const csr_view_t& v = job.m[m];
      const uint64_t lo = std::min(r0, v.n_rows), hi = std::min(r0 + len, v.n_rows);
      csr_view_t dv{static_cast<const uint64_t*>(at(l.rp[set][m])), static_cast<const uint32_t*>(at(l.col[set][m])),
                    nullptr, hi - lo};
      if (coded(v)) {
        dv.code = static_cast<const uint16_t*>(at(l.val[set][m]));
        dv.dict = static_cast<const fr_t*>(at(l.dict[m]));
      } else {
        dv.val = static_cast<const fr_t*>(at(l.val[set][m]));
      }
      if (hi > lo) {
        const uint64_t t0 = v.row_ptr[lo], terms = v.row_ptr[hi] - t0;
        SZK_TRY(cudaMemcpyAsync(at(l.rp[set][m]), v.row_ptr + lo, (hi - lo + 1) * sizeof(uint64_t),
                                cudaMemcpyHostToDevice, st));
        if (terms > 0) {  // col and the values may be null where a matrix has no terms
          SZK_TRY(cudaMemcpyAsync(at(l.col[set][m]), v.col + t0, terms * sizeof(uint32_t), cudaMemcpyHostToDevice, st));
          const void* values = coded(v) ? static_cast<const void*>(v.code + t0) : static_cast<const void*>(v.val + t0);
          SZK_TRY(cudaMemcpyAsync(at(l.val[set][m]), values, terms * term_value_bytes(v), cudaMemcpyHostToDevice, st));
        }
      }
      launch_p.job[m] = make_job(dv, out(int(m)));
      launch_p.job[m].nnz_base = hi > lo ? v.row_ptr[lo] : 0;
    }
    if (bellman) {
      launch_p.job[0].in_begin = job.n_constraints;  // a[n_constraints + s] = w[s], s = 0..n_public
      launch_p.job[0].in_end = job.n_constraints + job.n_public + 1;
      SZK_TRY(launch(launch_p, 3, st));
      const uint64_t checked = job.n_constraints > r0 ? std::min(len, job.n_constraints - r0) : 0;
      SZK_TRY(first_unsatisfied_row(out(0), out(1), out(2), checked, words + k, st));
    } else {
      // a = A·w; then b = B·w and c = a∘b in one pass (qap_rows_snarkjs).
      spmv_launch_t b_pass = launch_p;
      b_pass.job[0] = launch_p.job[1];
      b_pass.job[0].prod_out = reinterpret_cast<dev_fr_t*>(out(2));
      b_pass.job[0].prod_with = reinterpret_cast<const dev_fr_t*>(out(0));
      SZK_TRY(launch(launch_p, 1, st));
      SZK_TRY(launch(b_pass, 1, st));
    }
    for (int r = 0; r < 3; ++r)
      if (!job.out_on_device[r])
        SZK_TRY(cudaMemcpyAsync(job.out[r] + r0, out(r), len * sizeof(fr_t), cudaMemcpyDeviceToHost, st));
  }
  SZK_TRY(cudaEventRecord(side.done, side.s));
  SZK_TRY(cudaStreamWaitEvent(stream, side.done, 0));
  if (!bellman) return cudaStreamSynchronize(stream);
  std::vector<uint64_t> first(s.pieces);
  SZK_TRY(cudaMemcpyAsync(first.data(), words, s.pieces * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream));
  SZK_TRY(cudaStreamSynchronize(stream));
  for (uint64_t k = 0; k < s.pieces; ++k)
    if (first[k] != UINT64_MAX) *first_unsatisfied = std::min(*first_unsatisfied, k * s.piece + first[k]);
  return cudaSuccess;
}

}  // namespace starzk::gpu
