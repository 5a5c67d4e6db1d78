// Content digests: BLAKE2b (RFC 7693) and the file digest built on it.
//
// A key that passed validation is remembered by the digest of its bytes
// (io/validation_record.hpp), so the digest must be collision-resistant
// (an edited key must not pass for a validated one) and fast enough that
// hashing a 48 GiB key costs seconds on all cores, not minutes. BLAKE2b
// (Aumasson, Neves, Wilcox-O'Hearn, Winnerlein; RFC 7693) is both: a
// cryptographic hash at several hundred MB/s per core in portable C++.
//
// blake2b_t is the RFC's hash with an output length of 1..64 bytes and no
// key (the parameter block is digest length, key length 0, fanout 1,
// depth 1, everything else zero). blake2b_256 is the 32-byte form.
//
// file_digest hashes a file as a two-level tree so that every core can
// work on it (docs/formats.md, "File digest"):
//   leaf_i = BLAKE2b-256(bytes [i·L, min((i+1)·L, size)))   i = 0..k-1
//   root   = BLAKE2b-256("starzk file digest v1" (21 bytes, no terminator)
//                        ‖ u64le size ‖ u64le L ‖ leaf_0 ‖ … ‖ leaf_{k-1})
// with L = 64 MiB and k = ceil(size / L) (k = 0 for an empty file). The
// size and the leaf size are hashed into the root, so the tree shape is
// fixed by the inputs and no two files share a leaf sequence by accident.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace starzk {

using digest_t = std::array<uint8_t, 32>;

// Lower-case hex of the 32 bytes (64 characters).
std::string to_hex(const digest_t& d);

class blake2b_t {
 public:
  // out_bytes in 1..64 (throws std::invalid_argument otherwise).
  explicit blake2b_t(size_t out_bytes = 32);

  void update(const void* data, size_t n);
  void update(std::span<const uint8_t> bytes) { update(bytes.data(), bytes.size()); }
  // Writes out_bytes bytes; the object may not be updated afterwards.
  void final(uint8_t* out);

 private:
  void compress(const uint8_t* block, bool last);

  uint64_t h_[8];
  uint64_t t_[2] = {0, 0};  // bytes hashed so far, 128-bit counter
  uint8_t buf_[128];
  size_t fill_ = 0;  // bytes waiting in buf_ (the last block is held back)
  size_t out_bytes_;
};

digest_t blake2b_256(std::span<const uint8_t> bytes);

inline constexpr size_t file_digest_leaf = size_t(64) << 20;

// The tree digest of a file's bytes (threads as in util/parallel.hpp: 0 is
// every hardware thread). Throws io_error naming the file when it cannot be
// opened or mapped.
digest_t file_digest(const std::filesystem::path& file, unsigned threads = 0);

namespace digest_detail {
// The same tree with another leaf size (tests use small leaves so that a
// small file has several). leaf_bytes > 0.
digest_t tree_digest(std::span<const uint8_t> data, size_t leaf_bytes, unsigned threads);
}  // namespace digest_detail

}  // namespace starzk
