// Checksums for the mapped starzk formats (key cache, CSR circuit).
//
// xxh64 is XXH64 of the xxHash specification (Yann Collet,
// github.com/Cyan4973/xxHash doc/xxhash_spec.md): four 64-bit lanes over
// 32-byte stripes, acc = rotl(acc + lane·P2, 31)·P1, then a merge of the
// lanes, the tail in 8/4/1-byte steps and a final avalanche. It runs at
// memory speed on one core (several GB/s) and catches torn writes, bit rot
// and files truncated or padded by a copy tool; it is not a cryptographic
// hash and does not defend against an attacker (the cache is a local file
// made by the user from a key that was validated when the cache was made).
//
// block_checksum splits the data into 64 MiB blocks, hashes the blocks in
// parallel and returns xxh64 of the concatenated little-endian block
// hashes, so that a 47 GiB key is checked by all cores. Its value depends
// on the block size, which is part of the format (block_checksum_block).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace starzk {

uint64_t xxh64(const void* data, size_t n, uint64_t seed = 0);

inline constexpr size_t block_checksum_block = size_t(64) << 20;

// threads as in util/parallel.hpp (0: every hardware thread).
uint64_t block_checksum(std::span<const uint8_t> data, unsigned threads = 0);

}  // namespace starzk
