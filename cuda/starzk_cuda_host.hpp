// Host-pointer conveniences over the device API of starzk_cuda.hpp, for tests,
// benchmarks and simple callers: each call allocates device memory with RAII
// owners, copies the inputs in, runs the launcher on a private stream, copies
// the result out and synchronises that stream. Errors throw
// std::runtime_error naming the call and the CUDA error. Not for the prover's
// hot path (StarPU codelets use the device API with their own stream).
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {

// Throws std::runtime_error("starzk_cuda: <what>: <cuda error>") on failure.
void check_cuda(cudaError_t e, const char* what);

// True when at least one CUDA device is usable (tests skip otherwise).
bool device_available();

// Owner of one device allocation (cudaMalloc / cudaFree).
class device_buffer_t {
 public:
  device_buffer_t() = default;
  explicit device_buffer_t(size_t bytes);
  ~device_buffer_t();
  device_buffer_t(const device_buffer_t&) = delete;
  device_buffer_t& operator=(const device_buffer_t&) = delete;
  device_buffer_t(device_buffer_t&& o) noexcept;
  device_buffer_t& operator=(device_buffer_t&& o) noexcept;
  void* get() const { return ptr_; }
  size_t size() const { return bytes_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  void upload(const void* h, size_t bytes, size_t offset = 0);
  void download(void* h, size_t bytes, size_t offset = 0) const;

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// Owner of a non-blocking stream.
class stream_t {
 public:
  stream_t();
  ~stream_t();
  stream_t(const stream_t&) = delete;
  stream_t& operator=(const stream_t&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const;

 private:
  cudaStream_t s_ = nullptr;
};

std::vector<fp_t> fp_elementwise_host(field_op_t op, std::span<const fp_t> a, std::span<const fp_t> b);
std::vector<fr_t> fr_elementwise_host(field_op_t op, std::span<const fr_t> a, std::span<const fr_t> b);
std::vector<fp2_t> fp2_elementwise_host(field_op_t op, std::span<const fp2_t> a, std::span<const fp2_t> b);

// data.size() must be 2^log_n with 1 <= log_n <= 27.
void ntt_host(std::span<fr_t> data, ntt_dir_t dir, ntt_order_t order, ntt_coset_t coset, root_convention_t conv,
              ntt_tables_t tables = ntt_tables_t::full);
// Returns h (natural order); a, b, c of equal power-of-two length.
std::vector<fr_t> ntt_h_host(std::span<const fr_t> a, std::span<const fr_t> b, std::span<const fr_t> c,
                             root_convention_t conv, ntt_tables_t tables = ntt_tables_t::full);
// The same through ntt_h_passes (host vectors; `vectors` device vectors,
// with staging chunks of `chunk` elements in the one-vector form), or with
// a_on_device through ntt_h_passes_a_on_device (a uploaded first, h read
// back from the device).
std::vector<fr_t> ntt_h_passes_host(std::span<const fr_t> a, std::span<const fr_t> b, std::span<const fr_t> c,
                                    root_convention_t conv, ntt_tables_t tables, size_t chunk, unsigned vectors = 1,
                                    bool a_on_device = false);

// The MSM conveniences are templates over the curve as the launchers are
// (P = g1_params or g2_params, named at the call: msm_host<g2_params>(b, s)),
// instantiated for both in host_api.cpp.
template <class P>
xyzz_t<P> msm_host(std::span<const affine_t<P>> bases, std::span<const fr_t> scalars, const msm_tuning_t& tune = {});
// bitmap: bit i of word i/32 selects bases[i]; size >= ceil(n/32).
template <class P>
xyzz_t<P> batch_add_host(std::span<const affine_t<P>> bases, std::span<const uint32_t> bitmap);
// {ones, tail} of the prep_msm split.
template <class P>
std::pair<xyzz_t<P>, xyzz_t<P>> msm_split_host(std::span<const affine_t<P>> bases, std::span<const fr_t> scalars,
                                               std::span<const uint32_t> ones_bitmap, const msm_tuning_t& tune = {});
template <class P>
jacobian_t<P> xyzz_to_jacobian_host(const xyzz_t<P>& p);

// The one-call Jacobian MSM (msm_jacobian), with exactly the scratch its
// query asks for; split_from as there.
template <class P>
jacobian_t<P> msm_jacobian_host(std::span<const affine_t<P>> bases, std::span<const fr_t> scalars,
                                size_t split_from = msm_no_split, const msm_tuning_t& tune = {});
// The MSM in pieces (msm_pieces) with exactly the scratch its query asks
// for; with pieces.bases_on_host the host bases are page-locked for the
// call and copied piece by piece.
template <class P>
jacobian_t<P> msm_pieces_host(std::span<const affine_t<P>> bases, std::span<const fr_t> scalars, size_t split_from,
                              const msm_pieces_t& pieces, const msm_tuning_t& tune = {});
// Several calls of the MSM in pieces over the same bases, enqueued back to
// back on one stream into one scratch with no host wait between them (as a
// CUDA worker runs consecutive MSM tasks): call c takes pieces[c] and the
// next pieces[c].sets scalar vectors (msm_pieces_sets); one result per
// vector, in order.
template <class P>
std::vector<jacobian_t<P>> msm_pieces_sequence_host(std::span<const affine_t<P>> bases,
                                                    std::span<const std::vector<fr_t>> scalars, size_t split_from,
                                                    std::span<const msm_pieces_t> pieces,
                                                    const msm_tuning_t& tune = {});
// The device ones bitmap, (n+31)/32 words.
std::vector<uint32_t> ones_bitmap_host(std::span<const fr_t> scalars, size_t split_from);

}  // namespace starzk::gpu
