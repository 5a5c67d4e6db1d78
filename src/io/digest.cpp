// BLAKE2b and the file digest tree (digest.hpp). BLAKE2b is written from
// RFC 7693 (sections 2 and 3): the constants are those of section 2.6 (IV,
// SHA-512's) and 2.7 (the message schedule SIGMA), the functions G and F
// those of 3.1 and 3.2, and the padding and counter rules those of 3.3.
#include "io/digest.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "io/mapped_file.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

static_assert(std::endian::native == std::endian::little, "BLAKE2b words are read as little-endian loads");

// RFC 7693 section 2.6: the SHA-512 initial values.
constexpr uint64_t iv[8] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
                            0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};

// RFC 7693 section 2.7: the message word permutations; round i uses
// sigma[i mod 10].
constexpr uint8_t sigma[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0}};

// RFC 7693 section 3.1, the mixing function G with BLAKE2b's rotations
// (R1, R2, R3, R4) = (32, 24, 16, 63).
inline void mix(uint64_t* v, int a, int b, int c, int d, uint64_t x, uint64_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = std::rotr(v[d] ^ v[a], 32);
  v[c] = v[c] + v[d];
  v[b] = std::rotr(v[b] ^ v[c], 24);
  v[a] = v[a] + v[b] + y;
  v[d] = std::rotr(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = std::rotr(v[b] ^ v[c], 63);
}

const char tree_prefix[] = "starzk file digest v1";  // 21 bytes hashed, no terminator

void store_u64_le(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}

}  // namespace

std::string to_hex(const digest_t& d) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * d.size());
  for (uint8_t b : d) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

// RFC 7693 section 3.3: h = IV, h[0] ^= 0x0101kknn (kk = key bytes = 0,
// nn = output bytes), i.e. the parameter block of an unkeyed sequential hash.
blake2b_t::blake2b_t(size_t out_bytes) : out_bytes_(out_bytes) {
  if (out_bytes < 1 || out_bytes > 64) throw std::invalid_argument("blake2b: output length must be 1..64 bytes");
  std::memcpy(h_, iv, sizeof h_);
  h_[0] ^= 0x01010000ull ^ uint64_t(out_bytes);
}

// RFC 7693 section 3.2, the compression function F: 12 rounds of G over the
// 16-word work vector (h, IV), the counter t xored into v[12], v[13], and
// v[14] inverted for the last block.
void blake2b_t::compress(const uint8_t* block, bool last) {
  uint64_t m[16];
  std::memcpy(m, block, 128);
  uint64_t v[16];
  for (int i = 0; i < 8; ++i) {
    v[i] = h_[i];
    v[i + 8] = iv[i];
  }
  v[12] ^= t_[0];
  v[13] ^= t_[1];
  if (last) v[14] = ~v[14];
#pragma GCC unroll 12
  for (int r = 0; r < 12; ++r) {  // unrolled: the schedule becomes constant indices
    const uint8_t* s = sigma[r % 10];
    mix(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    mix(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    mix(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    mix(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    mix(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    mix(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    mix(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    mix(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h_[i] ^= v[i] ^ v[i + 8];
}

// Full blocks are compressed as soon as more input follows them; the last
// block (full or not) waits in buf_ for final(), which must flag it.
void blake2b_t::update(const void* data, size_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  auto advance = [this](uint64_t bytes) {
    t_[0] += bytes;
    if (t_[0] < bytes) ++t_[1];
  };
  while (n > 0) {
    if (fill_ == 128) {
      advance(128);
      compress(buf_, false);
      fill_ = 0;
    }
    if (fill_ == 0 && n > 128) {  // whole blocks straight from the input
      advance(128);
      compress(p, false);
      p += 128;
      n -= 128;
      continue;
    }
    const size_t take = std::min(n, 128 - fill_);
    std::memcpy(buf_ + fill_, p, take);
    fill_ += take;
    p += take;
    n -= take;
  }
}

void blake2b_t::final(uint8_t* out) {
  t_[0] += fill_;
  if (t_[0] < fill_) ++t_[1];
  std::memset(buf_ + fill_, 0, 128 - fill_);  // zero padding of the last block
  compress(buf_, true);
  uint8_t bytes[64];
  for (int i = 0; i < 8; ++i) store_u64_le(bytes + 8 * i, h_[i]);
  std::memcpy(out, bytes, out_bytes_);
}

digest_t blake2b_256(std::span<const uint8_t> bytes) {
  blake2b_t h(32);
  h.update(bytes);
  digest_t d;
  h.final(d.data());
  return d;
}

namespace digest_detail {

digest_t tree_digest(std::span<const uint8_t> data, size_t leaf_bytes, unsigned threads) {
  if (leaf_bytes == 0) throw std::invalid_argument("file digest: the leaf size must be positive");
  const size_t leaves = (data.size() + leaf_bytes - 1) / leaf_bytes;
  std::vector<digest_t> leaf(leaves);
  parallel_tasks(leaves, threads, [&](size_t i) {
    const size_t begin = i * leaf_bytes;
    leaf[i] = blake2b_256(data.subspan(begin, std::min(leaf_bytes, data.size() - begin)));
  });
  blake2b_t root(32);
  root.update(tree_prefix, sizeof tree_prefix - 1);
  uint8_t sizes[16];
  store_u64_le(sizes, data.size());
  store_u64_le(sizes + 8, leaf_bytes);
  root.update(sizes, sizeof sizes);
  for (const digest_t& d : leaf) root.update(d.data(), d.size());
  digest_t out;
  root.final(out.data());
  return out;
}

}  // namespace digest_detail

digest_t file_digest(const std::filesystem::path& file, unsigned threads) {
  const mapped_file_t f(file);
  f.advise_sequential();
  return digest_detail::tree_digest(f.bytes(), file_digest_leaf, threads);
}

}  // namespace starzk
