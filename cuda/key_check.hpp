// Key points checked and decompressed on a CUDA device.
//
// A sector-scale key holds ~5·10^8 points. On the CPU the subgroup test
// alone costs ~0.1-0.2 ms per point and core (hours for such a key); on an
// H200 it is a few hundred Fp products per point, spread over ~10^5 threads.
// These calls take host arrays, stream them through device `device` in pieces
// sized from the memory it has free (or a caller's cap), and give back the
// index of the first point that fails and why, so the caller can name the
// query and the index in its error. They are host-level conveniences (they
// allocate, copy and synchronise), like starzk_cuda_host.hpp's, and never
// throw: every CUDA error is returned.
//
// What is checked, per point P (host layout: affine, Montgomery limbs,
// O = all-zero limbs; see starzk_cuda.hpp):
//   1. coordinates canonical (limbs < p);
//   2. P on the curve (y^2 = x^3 + 4, resp. + 4(1 + u) on the twist);
//   3. with `subgroup`: P in the order-r subgroup, by the endomorphism tests
//      of src/ec/subgroup.hpp (G1: phi(P) = [-x^2] P; G2: psi(P) = [x] P);
//   4. O only where `allow_infinity`.
// Decompression reads the zcash compressed encoding (48 / 96 bytes, big
// endian, flag bits 0x80 compressed, 0x40 infinity, 0x20 larger root; see
// src/ec/encoding.hpp), recovers y = sqrt(x^3 + b) choosing the root the
// sort flag names, writes the host-layout point and applies checks 1-4
// (a missing square root means "not on the curve").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <cuda_runtime_api.h>

#include "ec/affine.hpp"

namespace starzk::gpu {

enum class point_fault_t : uint32_t {
  none = 0,
  non_canonical,    // a coordinate (or the compressed x) is >= p
  bad_flags,        // compressed: flag bits inconsistent (not compressed, infinity with other bits set, ...)
  not_on_curve,     // uncompressed: off the curve; compressed: x^3 + b has no square root
  not_in_subgroup,  // on the curve, not of order r
  infinity,         // O where the caller forbids it
};

// "ok", "a coordinate is not below p", ...
const char* describe(point_fault_t f);

// The first failing point of a scan (first_bad = UINT64_MAX: none failed).
struct point_scan_t {
  uint64_t first_bad = UINT64_MAX;
  point_fault_t fault = point_fault_t::none;
  bool ok() const { return first_bad == UINT64_MAX; }
};

struct key_check_options_t {
  int device = 0;  // CUDA device ordinal
  // Device memory the call may use; 0: half of what is free. Two pieces are
  // in flight, each point taking its input and output bytes, so a piece is
  // device_bytes / (2·(in + out)) points (check: in = 96 / 192, out = 0;
  // decompress: in = 48 / 96, out = 96 / 192), at most 256 MiB of them;
  // too small for one point: cudaErrorMemoryAllocation.
  size_t device_bytes = 0;
  bool subgroup = true;        // check 3 (skip it for keys already validated)
  bool allow_infinity = true;  // check 4
};

// Staging kept from one call to the next: the two slots' streams, device
// buffers and page-locked host buffers. Page-locking hundreds of MB costs
// more than checking them on some hosts (virtual machines above all), and a
// key is unpacked in dozens of calls, so a caller making many calls keeps
// one context (one thread at a time). Buffers grow to the largest piece
// asked for and are freed with the context. Without one, each call makes
// and frees its own.
class key_check_context_t {
 public:
  key_check_context_t();
  ~key_check_context_t();
  key_check_context_t(const key_check_context_t&) = delete;
  key_check_context_t& operator=(const key_check_context_t&) = delete;
  struct state_t;
  state_t* state() const { return state_.get(); }

 private:
  std::unique_ptr<state_t> state_;
};

// Checks n host points. *out gets the lowest failing index.
cudaError_t check_g1(const g1_affine_t* points, size_t n, const key_check_options_t& opt, point_scan_t* out,
                     key_check_context_t* ctx = nullptr);
cudaError_t check_g2(const g2_affine_t* points, size_t n, const key_check_options_t& opt, point_scan_t* out,
                     key_check_context_t* ctx = nullptr);

// Decompresses n zcash-compressed points (48 / 96 bytes each, back to back)
// into out[0..n) and checks them. On a failure *out reports the lowest
// failing index; the contents of `out` are then unspecified.
cudaError_t decompress_g1(const uint8_t* in, size_t n, g1_affine_t* out, const key_check_options_t& opt,
                          point_scan_t* scan, key_check_context_t* ctx = nullptr);
cudaError_t decompress_g2(const uint8_t* in, size_t n, g2_affine_t* out, const key_check_options_t& opt,
                          point_scan_t* scan, key_check_context_t* ctx = nullptr);

}  // namespace starzk::gpu
