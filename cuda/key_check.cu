// Key points checked and decompressed on the device (interface and rules:
// key_check.hpp; the math of one point: key_check_math.cuh).
//
// Kernels: one thread per point of a piece (grid-stride). A failing point
// records key = (index << 3) | fault in a 64-bit device word by atomicMin, so
// the lowest failing index wins and carries its fault in the low bits.
//
// Streaming, as the GPU setup does it (src/keys/gpu_setup.cpp): the n points
// are cut into pieces of `piece` points, fed through two slots, each with its
// own stream, pinned host staging, device buffers and failure word. For
// piece k in slot k mod 2: wait for the slot's previous piece (k - 2), copy
// its decompressed points from staging to the caller's array and read its
// failure word; copy piece k into pinned staging; enqueue upload -> kernel ->
// (decompress: download) -> failure word download on the slot's stream. So
// the host copies of one piece overlap the device work of the other, and one
// slot's transfers overlap the other's kernel. Once a completed piece has a
// failure, no later piece is issued: it could only fail at a higher index.
// The answer is the minimum over both slots' words after both are drained.
// With a key_check_context_t the slots (streams, device and pinned buffers)
// outlive the call and serve the next one; each call starts by waiting for
// what an earlier one left queued on them.
//
// Piece size: two slots hold 2·piece·(in + out) device bytes, at most
// opt.device_bytes, else half of what cudaMemGetInfo reports free; and a
// piece stays below 256 MiB of staging, so pinned host memory stays small
// (the kernels, ~10^3 Fp products per point, are far slower than the copies).
// Every CUDA call is checked and its error returned; the owners below
// release everything on every path (streams are synchronised before the
// memory they use is freed).
#include <algorithm>
#include <new>
#include <cstring>

#include "cuda/key_check_math.cuh"
#include "util/parallel.hpp"

namespace starzk::gpu {
namespace key_check_detail {

constexpr uint64_t no_fault = UINT64_MAX;  // the failure word when no point failed

// The work of one call: bytes per point in and out (out 0: a check) and the
// launcher of its kernel on one piece.
struct job_t {
  size_t in_bytes, out_bytes;
  cudaError_t (*launch)(const void* d_in, void* d_out, size_t count, uint64_t base, key_check::rules_t rules,
                        unsigned long long* d_first, cudaStream_t s);
};

// A piece's host copies (up to 256 MiB in and twice that out) on up to 8
// threads: one thread copies a few GB/s, which would leave the GPU waiting.
// Never throws: if threads cannot be started it copies on this one.
inline void copy_host(void* dst, const void* src, size_t bytes) {
  constexpr size_t chunk = size_t(8) << 20;
  if (bytes > 2 * chunk) {
    try {
      parallel_for(
          bytes, 8,
          [&](size_t b, size_t e) {
            std::memcpy(static_cast<char*>(dst) + b, static_cast<const char*>(src) + b, e - b);
          },
          chunk);
      return;
    } catch (...) {
    }
  }
  std::memcpy(dst, src, bytes);
}

// ---- owners that never throw: each acquisition returns its CUDA error ----
struct device_mem_t {
  void* p = nullptr;
  cudaError_t alloc(size_t bytes) {
    free();
    return bytes ? cudaMalloc(&p, bytes) : cudaSuccess;
  }
  void free() {
    if (p) (void)cudaFree(p);
    p = nullptr;
  }
  ~device_mem_t() { free(); }
};
struct pinned_mem_t {
  void* p = nullptr;
  cudaError_t alloc(size_t bytes) {
    free();
    return bytes ? cudaHostAlloc(&p, bytes, cudaHostAllocDefault) : cudaSuccess;
  }
  void free() {
    if (p) (void)cudaFreeHost(p);
    p = nullptr;
  }
  ~pinned_mem_t() { free(); }
};
// Synchronised before destruction: an early return must not free memory
// that queued copies still use.
struct stream_owner_t {
  cudaStream_t s = nullptr;
  cudaError_t create() { return cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); }
  ~stream_owner_t() {
    if (s) {
      (void)cudaStreamSynchronize(s);
      (void)cudaStreamDestroy(s);
    }
  }
};
// Makes opt.device current and gives the caller's device back on exit.
struct device_scope_t {
  int prev = -1;
  cudaError_t enter(int device) {
    SZK_TRY(cudaGetDevice(&prev));
    return cudaSetDevice(device);
  }
  ~device_scope_t() {
    if (prev >= 0) (void)cudaSetDevice(prev);
  }
};

// One slot of the pipeline. The stream is declared last so that it is
// destroyed (after a synchronisation) first. Its buffers are kept while
// they are large enough (a context reuses slots across calls).
struct slot_t {
  device_mem_t d_in, d_out, d_first;
  pinned_mem_t h_in, h_out, h_first;
  size_t in_cap = 0, out_cap = 0;  // bytes of d_in / h_in and d_out / h_out
  stream_owner_t stream;
  size_t pending_begin = 0, pending_count = 0;  // the piece in flight
  uint64_t seen = no_fault;                     // failure word after its last drained piece

  // Ready for a call whose pieces hold `piece` points of `job`.
  cudaError_t prepare(const job_t& job, size_t piece) {
    if (stream.s) SZK_TRY(cudaStreamSynchronize(stream.s));  // an earlier call's pieces are done with the buffers
    if (!stream.s) {
      SZK_TRY(stream.create());
      SZK_TRY(d_first.alloc(sizeof(uint64_t)));
      SZK_TRY(h_first.alloc(sizeof(uint64_t)));
    }
    const size_t in = piece * job.in_bytes, out = piece * job.out_bytes;
    if (in > in_cap) {
      in_cap = 0;  // stays 0 if an allocation fails
      SZK_TRY(d_in.alloc(in));
      SZK_TRY(h_in.alloc(in));
      in_cap = in;
    }
    if (out > out_cap) {
      out_cap = 0;
      SZK_TRY(d_out.alloc(out));
      SZK_TRY(h_out.alloc(out));
      out_cap = out;
    }
    pending_count = 0;
    seen = no_fault;
    return cudaMemsetAsync(d_first.p, 0xff, sizeof(uint64_t), stream.s);  // no_fault
  }

  // Waits for the piece in flight, moves its output home, reads its word.
  cudaError_t drain(const job_t& job, uint8_t* out) {
    if (!pending_count) return cudaSuccess;
    SZK_TRY(cudaStreamSynchronize(stream.s));
    if (job.out_bytes) copy_host(out + pending_begin * job.out_bytes, h_out.p, pending_count * job.out_bytes);
    std::memcpy(&seen, h_first.p, sizeof seen);
    pending_count = 0;
    return cudaSuccess;
  }

  // Enqueues points [begin, begin + count) of `in`.
  cudaError_t issue(const job_t& job, const uint8_t* in, size_t begin, size_t count, key_check::rules_t rules) {
    copy_host(h_in.p, in + begin * job.in_bytes, count * job.in_bytes);
    SZK_TRY(cudaMemcpyAsync(d_in.p, h_in.p, count * job.in_bytes, cudaMemcpyHostToDevice, stream.s));
    SZK_TRY(job.launch(d_in.p, d_out.p, count, begin, rules, static_cast<unsigned long long*>(d_first.p), stream.s));
    if (job.out_bytes)
      SZK_TRY(cudaMemcpyAsync(h_out.p, d_out.p, count * job.out_bytes, cudaMemcpyDeviceToHost, stream.s));
    SZK_TRY(cudaMemcpyAsync(h_first.p, d_first.p, sizeof(uint64_t), cudaMemcpyDeviceToHost, stream.s));
    pending_begin = begin;
    pending_count = count;
    return cudaSuccess;
  }
};

}  // namespace key_check_detail

namespace {

using namespace key_check_detail;

using key_check::rules_t;

constexpr unsigned block = 128;
constexpr size_t max_piece_bytes = size_t(256) << 20;
constexpr size_t max_points = size_t(1) << 56;  // index << 3 stays below 2^64 - 1
static_assert(uint32_t(point_fault_t::infinity) < 8, "a fault must fit in the 3 low bits of the key");

SZK_D void record(unsigned long long* first, uint64_t index, point_fault_t f) {
  if (f != point_fault_t::none) atomicMin(first, (unsigned long long)(index << 3 | uint64_t(f)));
}

template <class F>
__global__ void __launch_bounds__(block)
    check_kernel(const dev_affine_t<F>* pts, size_t count, uint64_t base, rules_t rules, unsigned long long* first) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += stride)
    record(first, base + i, key_check::check_point(pts[i], rules));
}

// Compressed points are sizeof(F) bytes (48 / 96), so each starts 16-byte
// aligned in a 256-aligned buffer and is read as uint4 vectors.
template <class F>
__global__ void __launch_bounds__(block) decompress_kernel(const uint4* in, dev_affine_t<F>* out, size_t count,
                                                           uint64_t base, rules_t rules, unsigned long long* first) {
  constexpr unsigned words = sizeof(F) / 4, vecs = words / 4;
  static_assert(words % 4 == 0);
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += stride) {
    uint32_t w[words];
#pragma unroll
    for (unsigned v = 0; v < vecs; ++v) {
      const uint4 q = in[i * vecs + v];
      w[4 * v] = q.x, w[4 * v + 1] = q.y, w[4 * v + 2] = q.z, w[4 * v + 3] = q.w;
    }
    dev_affine_t<F> p;
    const point_fault_t f = key_check::decompress<F>(w, p, rules);
    out[i] = p;
    record(first, base + i, f);
  }
}

unsigned blocks_for(size_t count) { return unsigned(std::min<size_t>(grid_for(count, block), size_t(1) << 20)); }

template <class F>
cudaError_t launch_check(const void* d_in, void*, size_t count, uint64_t base, rules_t rules,
                         unsigned long long* d_first, cudaStream_t s) {
  check_kernel<F>
      <<<blocks_for(count), block, 0, s>>>(static_cast<const dev_affine_t<F>*>(d_in), count, base, rules, d_first);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

template <class F>
cudaError_t launch_decompress(const void* d_in, void* d_out, size_t count, uint64_t base, rules_t rules,
                              unsigned long long* d_first, cudaStream_t s) {
  decompress_kernel<F><<<blocks_for(count), block, 0, s>>>(
      static_cast<const uint4*>(d_in), static_cast<dev_affine_t<F>*>(d_out), count, base, rules, d_first);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

// Points per piece (file comment); 0 if not even one point fits the budget.
cudaError_t piece_size(const job_t& job, size_t n, const key_check_options_t& opt, size_t* piece) {
  size_t budget = opt.device_bytes;
  if (budget == 0) {
    size_t free = 0, total = 0;
    SZK_TRY(cudaMemGetInfo(&free, &total));
    budget = free / 2;
  }
  const size_t per_point = job.in_bytes + job.out_bytes;
  *piece = std::min({n, budget / (2 * per_point), max_piece_bytes / per_point});
  return cudaSuccess;
}

}  // namespace

// The slots a context keeps, and the device they were made on.
struct key_check_context_t::state_t {
  int device = -1;
  slot_t slots[2];
};

key_check_context_t::key_check_context_t() : state_(std::make_unique<state_t>()) {}
key_check_context_t::~key_check_context_t() = default;

namespace {

cudaError_t scan(const job_t& job, const uint8_t* in, uint8_t* out, size_t n, const key_check_options_t& opt,
                 point_scan_t* result, key_check_context_t* ctx) {
  if (!result) return cudaErrorInvalidValue;
  *result = point_scan_t{};
  if (n == 0) return cudaSuccess;
  if (!in || (job.out_bytes && !out) || n >= max_points) return cudaErrorInvalidValue;
  device_scope_t scope;
  SZK_TRY(scope.enter(opt.device));
  size_t piece = 0;
  SZK_TRY(piece_size(job, n, opt, &piece));
  if (piece == 0) return cudaErrorMemoryAllocation;
  const rules_t rules{opt.subgroup, opt.allow_infinity};

  slot_t local[2];
  slot_t* slots = local;
  if (ctx) {
    key_check_context_t::state_t& st = *ctx->state();
    if (st.device != opt.device) {  // buffers of another device: start afresh
      for (slot_t& s : st.slots) s.~slot_t(), new (&s) slot_t();
      st.device = opt.device;
    }
    slots = st.slots;
  }
  const unsigned used = n > piece ? 2 : 1;
  for (unsigned s = 0; s < used; ++s) SZK_TRY(slots[s].prepare(job, piece));
  if (used == 1) slots[1].seen = no_fault, slots[1].pending_count = 0;
  size_t begin = 0;
  for (unsigned k = 0; begin < n; ++k) {
    slot_t& slot = slots[k % used];
    SZK_TRY(slot.drain(job, out));
    if (slots[0].seen != no_fault || slots[1].seen != no_fault) break;
    const size_t count = std::min(piece, n - begin);
    SZK_TRY(slot.issue(job, in, begin, count, rules));
    begin += count;
  }
  for (unsigned s = 0; s < used; ++s) SZK_TRY(slots[s].drain(job, out));
  const uint64_t key = std::min(slots[0].seen, slots[1].seen);
  if (key != no_fault) {
    result->first_bad = key >> 3;
    result->fault = point_fault_t(uint32_t(key & 7));
  }
  return cudaSuccess;
}

template <class F>
constexpr job_t check_job{sizeof(dev_affine_t<F>), 0, launch_check<F>};
template <class F>
constexpr job_t decompress_job{sizeof(F), sizeof(dev_affine_t<F>), launch_decompress<F>};

static_assert(sizeof(dev_g1_affine_t) == sizeof(g1_affine_t) && sizeof(dev_g2_affine_t) == sizeof(g2_affine_t),
              "device and host affine layouts differ");

}  // namespace

const char* describe(point_fault_t f) {
  switch (f) {
    case point_fault_t::none:
      return "ok";
    case point_fault_t::non_canonical:
      return "a coordinate is not below the field modulus p";
    case point_fault_t::bad_flags:
      return "the flag bits of the compressed encoding are inconsistent";
    case point_fault_t::not_on_curve:
      return "the point is not on the curve";
    case point_fault_t::not_in_subgroup:
      return "the point is on the curve but not in the prime-order subgroup";
    case point_fault_t::infinity:
      return "the point at infinity is not allowed here";
  }
  return "unknown point fault";
}

cudaError_t check_g1(const g1_affine_t* points, size_t n, const key_check_options_t& opt, point_scan_t* out,
                     key_check_context_t* ctx) {
  return scan(check_job<dev_fp_t>, reinterpret_cast<const uint8_t*>(points), nullptr, n, opt, out, ctx);
}
cudaError_t check_g2(const g2_affine_t* points, size_t n, const key_check_options_t& opt, point_scan_t* out,
                     key_check_context_t* ctx) {
  return scan(check_job<dev_fp2_t>, reinterpret_cast<const uint8_t*>(points), nullptr, n, opt, out, ctx);
}
cudaError_t decompress_g1(const uint8_t* in, size_t n, g1_affine_t* out, const key_check_options_t& opt,
                          point_scan_t* scan_out, key_check_context_t* ctx) {
  return scan(decompress_job<dev_fp_t>, in, reinterpret_cast<uint8_t*>(out), n, opt, scan_out, ctx);
}
cudaError_t decompress_g2(const uint8_t* in, size_t n, g2_affine_t* out, const key_check_options_t& opt,
                          point_scan_t* scan_out, key_check_context_t* ctx) {
  return scan(decompress_job<dev_fp2_t>, in, reinterpret_cast<uint8_t*>(out), n, opt, scan_out, ctx);
}

}  // namespace starzk::gpu
