// XXH64 and its block-parallel use (checksum.hpp). Written from the xxHash
// specification (doc/xxhash_spec.md, "XXH64 algorithm description").
#include "io/checksum.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "util/parallel.hpp"

namespace starzk {

namespace {

constexpr uint64_t p1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t p2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t p3 = 0x165667B19E3779F9ull;
constexpr uint64_t p4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t p5 = 0x27D4EB2F165667C5ull;

constexpr uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Little-endian loads (the spec reads lanes as little-endian words; the
// formats that use this are little-endian-only, see the static_assert).
static_assert(std::endian::native == std::endian::little, "starzk's mapped formats assume a little-endian host");
uint64_t read64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t read32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// One lane step: acc = rotl(acc + input·P2, 31)·P1.
uint64_t round64(uint64_t acc, uint64_t input) { return rotl(acc + input * p2, 31) * p1; }
// Folding a lane into the converged accumulator.
uint64_t merge(uint64_t acc, uint64_t lane) { return (acc ^ round64(0, lane)) * p1 + p4; }

}  // namespace

uint64_t xxh64(const void* data, size_t n, uint64_t seed) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  const uint8_t* const end = p + n;
  uint64_t acc;
  if (n >= 32) {
    // Step 1-2: four lanes, initialised from the seed, one 8-byte word each
    // per 32-byte stripe.
    uint64_t v1 = seed + p1 + p2, v2 = seed + p2, v3 = seed, v4 = seed - p1;
    const uint8_t* const last_stripe = end - 32;
    do {
      v1 = round64(v1, read64(p));
      v2 = round64(v2, read64(p + 8));
      v3 = round64(v3, read64(p + 16));
      v4 = round64(v4, read64(p + 24));
      p += 32;
    } while (p <= last_stripe);
    // Step 3: convergence.
    acc = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    acc = merge(acc, v1);
    acc = merge(acc, v2);
    acc = merge(acc, v3);
    acc = merge(acc, v4);
  } else {
    acc = seed + p5;  // Step 1 for short inputs.
  }
  acc += uint64_t(n);  // Step 4: the length.
  // Step 5: the remaining 0..31 bytes, in 8-, 4- and 1-byte pieces
  // (counted, never compared as p + 8 <= end: a pointer may not be moved
  // past the end of its buffer, nor off a null one for n = 0).
  size_t left = size_t(end - p);
  for (; left >= 8; p += 8, left -= 8) {
    acc ^= round64(0, read64(p));
    acc = rotl(acc, 27) * p1 + p4;
  }
  if (left >= 4) {
    acc ^= uint64_t(read32(p)) * p1;
    acc = rotl(acc, 23) * p2 + p3;
    p += 4;
    left -= 4;
  }
  for (; left > 0; ++p, --left) {
    acc ^= uint64_t(*p) * p5;
    acc = rotl(acc, 11) * p1;
  }
  // Step 6: avalanche.
  acc ^= acc >> 33;
  acc *= p2;
  acc ^= acc >> 29;
  acc *= p3;
  acc ^= acc >> 32;
  return acc;
}

uint64_t block_checksum(std::span<const uint8_t> data, unsigned threads) {
  const size_t n_blocks = (data.size() + block_checksum_block - 1) / block_checksum_block;
  std::vector<uint8_t> hashes(n_blocks * 8);
  parallel_tasks(n_blocks, threads, [&](size_t b) {
    const size_t begin = b * block_checksum_block;
    const size_t len = std::min(block_checksum_block, data.size() - begin);
    const uint64_t h = xxh64(data.data() + begin, len);
    for (int i = 0; i < 8; ++i) hashes[b * 8 + i] = uint8_t(h >> (8 * i));
  });
  return xxh64(hashes.data(), hashes.size());
}

}  // namespace starzk
