// The device half of setup(): the fixed-base products of the query scalars
// by G1 and G2 on a CUDA device (cuda/fixed_base.cu), streamed in chunks so
// the key never has to fit in device memory.
//
// Pipeline: the queries are cut into pieces of at most `chunk` scalars (a
// piece never spans two queries) and fed through two slots, each with its
// own stream, pinned host staging (scalars in, points out) and device
// buffers. For piece p in slot p mod 2: wait for the slot's previous piece
// and convert its XYZZ points from pinned staging to affine in the key's
// vector (host threads, one batched inversion per chunk), copy the new
// scalars into pinned staging, then enqueue
// upload -> fixed_base -> download on the slot's stream. So the host copies
// of one piece overlap the device work of the other, and the device runs
// one slot's kernel while the other slot's transfers are in flight.
// Device and pinned host memory per slot: chunk·(32 + 192) B for G1,
// chunk·(32 + 384) B for G2 (1.6 GiB per slot at the default chunk of
// 2^22, G2 pass).
//
// Part of the GPU backend of starzk_groth16 (gpu_backend.cpp installs it).
#include <cuda_runtime_api.h>

#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

#include "cuda/starzk_cuda.hpp"
#include "cuda/starzk_cuda_host.hpp"
#include "ec/comb_table.hpp"
#include "ec/xyzz.hpp"
#include "keys/gpu_backend_parts.hpp"
#include "util/parallel.hpp"

namespace starzk::keys::gpu_backend_detail {

using setup_detail::point_sink_fn;
using setup_detail::query_scalars_t;
using setup_detail::query_sinks_t;

namespace {

void check(cudaError_t e, const char* call) { gpu_backend_detail::check(e, "setup", call); }

// Page-locked host memory (cudaMallocHost / cudaFreeHost).
class pinned_t {
 public:
  explicit pinned_t(size_t bytes) {
    if (bytes) check(cudaMallocHost(&p_, bytes), "cudaMallocHost (staging)");
  }
  ~pinned_t() {
    if (p_) (void)cudaFreeHost(p_);
  }
  pinned_t(const pinned_t&) = delete;
  pinned_t& operator=(const pinned_t&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// memcpy split over host threads (a 400 MiB piece copies at memory speed,
// not at one core's).
void copy_parallel(void* dst, const void* src, size_t bytes, unsigned threads) {
  parallel_for(
      bytes, threads,
      [&](size_t b, size_t e) { std::memcpy(static_cast<char*>(dst) + b, static_cast<const char*>(src) + b, e - b); },
      size_t(8) << 20);
}

// One query: n scalars in, n points out: into host memory (out) or, when
// out is null, to a sink.
template <class Aff>
struct query_t {
  const fr_t* k;
  size_t n;
  Aff* out;
  point_sink_fn<Aff> sink;  // empty where not given
};

// XYZZ points (device output) -> affine, on all cores: one batched
// inversion per chunk (xyzz_t::batch_to_affine).
template <class P>
void to_affine_parallel(affine_t<P>* out, const xyzz_t<P>* in, size_t n, unsigned threads) {
  parallel_for(
      n, threads,
      [&](size_t b, size_t e) {
        xyzz_t<P>::batch_to_affine(std::span<const xyzz_t<P> >(in + b, e - b), std::span<affine_t<P> >(out + b, e - b));
      },
      size_t(1) << 12);
}

template <class P>
struct slot_t {
  gpu::stream_t stream;
  gpu::device_buffer_t d_k, d_out;
  pinned_t h_k, h_out;
  affine_t<P>* pending_out = nullptr;                         // where the piece in flight goes
  const point_sink_fn<affine_t<P> >* pending_sink = nullptr;  // or to whom
  size_t pending_first = 0, pending_n = 0;

  explicit slot_t(size_t cap)
      : d_k(cap * sizeof(fr_t)),
        d_out(cap * sizeof(xyzz_t<P>)),
        h_k(cap * sizeof(fr_t)),
        h_out(cap * sizeof(xyzz_t<P>)) {}

  // Waits for the piece in flight (if any) and converts its points home.
  void drain(unsigned threads) {
    if (!pending_out && !pending_sink) return;
    check(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize (fixed-base piece)");
    const auto* in = static_cast<const xyzz_t<P>*>(h_out.get());
    if (pending_out) {
      to_affine_parallel<P>(pending_out, in, pending_n, threads);
    } else {
      // Each thread converts its range and hands it on.
      parallel_for(
          pending_n, threads,
          [&](size_t b, size_t e) {
            std::vector<affine_t<P> > aff(e - b);
            xyzz_t<P>::batch_to_affine(std::span<const xyzz_t<P> >(in + b, e - b), std::span<affine_t<P> >(aff));
            (*pending_sink)(pending_first + b, std::span<const affine_t<P> >(aff));
          },
          size_t(1) << 12);
    }
    pending_out = nullptr;
    pending_sink = nullptr;
  }
};

// out = k·G for every query, through the two-slot pipeline (file comment).
template <class P>
void run_group(const affine_t<P>& g, const std::vector<query_t<affine_t<P> > >& queries, size_t chunk,
               unsigned threads) {
  size_t cap = 0;
  for (const auto& q : queries) cap = std::max(cap, std::min(q.n, chunk));
  if (cap == 0) return;
  slot_t<P> slots[2] = {slot_t<P>(cap), slot_t<P>(cap)};
  // The comb table is built on the host (ec/comb_table.hpp, the CPU path's
  // own table) and uploaded: 8192 points, a few milliseconds.
  const size_t table_bytes = gpu::fixed_base_table_bytes<P>();
  gpu::device_buffer_t d_table(table_bytes);
  const std::vector<affine_t<P> > table = comb_table(g);
  if (table.size() * sizeof(affine_t<P>) != table_bytes) throw std::logic_error("fixed-base table sizes differ");
  // upload() waits for the copy to land: the slots' streams do not wait
  // for the legacy stream, and a pageable cudaMemcpy may return before its
  // DMA is done (a first piece read a half-copied table).
  d_table.upload(table.data(), table_bytes);

  size_t piece = 0;
  for (const auto& q : queries) {
    for (size_t off = 0; off < q.n; off += chunk, ++piece) {
      const size_t len = std::min(chunk, q.n - off);
      slot_t<P>& s = slots[piece % 2];
      s.drain(threads);
      copy_parallel(s.h_k.get(), q.k + off, len * sizeof(fr_t), threads);
      const cudaStream_t st = s.stream.get();
      check(cudaMemcpyAsync(s.d_k.get(), s.h_k.get(), len * sizeof(fr_t), cudaMemcpyHostToDevice, st),
            "cudaMemcpyAsync (scalars to device)");
      check(
          gpu::fixed_base<P>(s.d_out.template as<xyzz_t<P> >(), s.d_k.template as<fr_t>(), len, d_table.get(), st, {}),
          "fixed_base kernel launch");
      check(cudaMemcpyAsync(s.h_out.get(), s.d_out.get(), len * sizeof(xyzz_t<P>), cudaMemcpyDeviceToHost, st),
            "cudaMemcpyAsync (points to host)");
      s.pending_out = q.out ? q.out + off : nullptr;
      s.pending_sink = q.out ? nullptr : &q.sink;
      s.pending_first = off;
      s.pending_n = len;
    }
  }
  slots[piece % 2].drain(threads);  // the older piece first
  slots[(piece + 1) % 2].drain(threads);
}

}  // namespace

bool cuda_device_present(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    if (why) *why = std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")";
    return false;
  }
  if (n == 0) {
    if (why) *why = "no CUDA device (cudaGetDeviceCount found 0)";
    return false;
  }
  return true;
}

namespace {

// Every query through the pipeline on device 0; each query's points go to
// its out pointer, or to its sink where out is null. Returns the device.
std::string run_queries(const std::vector<query_t<g1_affine_t> >& g1_queries, const query_t<g2_affine_t>& b_g2,
                        uint64_t chunk, unsigned threads) {
  const size_t piece = chunk ? size_t(chunk) : size_t(1) << 22;
  check(cudaSetDevice(0), "cudaSetDevice(0)");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  run_group<g1_params>(g1_affine_t::generator(), g1_queries, piece, threads);
  run_group<g2_params>(g2_affine_t::generator(), {b_g2}, piece, threads);
  return std::string("GPU 0: ") + prop.name;
}

}  // namespace

std::string fixed_base_queries(proving_key_t& pk, const query_scalars_t& s, uint64_t chunk, unsigned threads) {
  pk.a.assign(s.u.size(), g1_affine_t{});
  pk.b_g1.assign(s.v.size(), g1_affine_t{});
  pk.l.assign(s.l.size(), g1_affine_t{});
  pk.h.assign(s.h.size(), g1_affine_t{});
  pk.vk.ic.assign(s.ic.size(), g1_affine_t{});
  pk.b_g2.assign(s.v.size(), g2_affine_t{});
  return run_queries({{s.u.data(), s.u.size(), pk.a.data(), {}},
                      {s.v.data(), s.v.size(), pk.b_g1.data(), {}},
                      {s.l.data(), s.l.size(), pk.l.data(), {}},
                      {s.h.data(), s.h.size(), pk.h.data(), {}},
                      {s.ic.data(), s.ic.size(), pk.vk.ic.data(), {}}},
                     {s.v.data(), s.v.size(), pk.b_g2.data(), {}}, chunk, threads);
}

std::string fixed_base_stream(const query_scalars_t& s, const query_sinks_t& sinks, uint64_t chunk, unsigned threads) {
  return run_queries({{s.u.data(), s.u.size(), nullptr, sinks.a},
                      {s.v.data(), s.v.size(), nullptr, sinks.b_g1},
                      {s.l.data(), s.l.size(), nullptr, sinks.l},
                      {s.h.data(), s.h.size(), nullptr, sinks.h},
                      {s.ic.data(), s.ic.size(), nullptr, sinks.ic}},
                     {s.v.data(), s.v.size(), nullptr, sinks.b_g2}, chunk, threads);
}

}  // namespace starzk::keys::gpu_backend_detail
