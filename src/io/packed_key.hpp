// The packed key (".szpk"): a proving key at half the bytes, for keys that
// must fit a disk beside their circuit and witnesses.
//
// A 2^27 Filecoin-shaped key holds ~4.6·10^8 G1 and ~0.9·10^8 G2 points:
// 77 GB as in-memory points (96 / 192 bytes, .szkc), ~62 GB as bellman's
// .params (uncompressed, points at infinity of A and B dropped). Here every
// point is stored compressed (zcash encoding, 48 / 96 bytes: x and three
// flag bits, src/ec/encoding.hpp) and A, B_g1, B_g2 keep only the points of
// the wires whose polynomial is not zero, with a bitmap saying which: ~31 GB.
// The price is a square root per point when the key is read (y from x),
// which the GPU does at ~10^8 points per second (cuda/key_check.hpp) and
// the CPU at ~3·10^4 per core: packed keys are for machines with a GPU.
//
// Container: page_container.hpp (magic "szpk", version 1, header checksum,
// per-section xxh64 block checksums). Metadata (456 bytes):
//   0    u32 convention (0 = bellman, 1 = snarkjs)
//   4    u32 n_vars        8  u32 n_public        12  u32 zero
//   16   u64 domain_size
//   24   alpha_g1, beta_g1, delta_g1 (48 bytes each, compressed)
//   168  beta_g2, delta_g2, gamma_g2 (96 bytes each, compressed)   ends at 456
// Sections (in this order; G1 48-byte elements, G2 96-byte, bitmaps u64):
//   0 ic      n_public + 1            1 h   n − 1 (bellman) / n (snarkjs)
//   2 l       n_vars − n_public − 1   3 a   popcount(a_density)
//   4 b_g1    popcount(b_density)     5 b_g2 popcount(b_density)
//   6 a_density, 7 b_density          ⌈n_vars / 64⌉ words each; bit j of
//                                     word j/64 set = wire j has a point
// The k-th point of a, b_g1, b_g2 belongs to the k-th set bit. B_g1 and B_g2
// share one bitmap: B_j(τ)·G1 and B_j(τ)·G2 are both O or both not.
// The QAP matrices are not here: a packed key is always read with its
// circuit (for a snarkjs-convention key the prover's A and B rows are the
// circuit's plus the input rows, as in setup).
//
// Trust: opening checks the header, the section lengths against the shape
// and the bitmaps' popcounts, and decodes the six single points fully. The
// queries are decoded (and, unless the key was validated before, checked
// for subgroup membership) by whoever unpacks them: unpack_packed_key (CPU,
// here) or the GPU path of src/keys.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ec/encoding.hpp"
#include "groth16/keys.hpp"
#include "io/page_container.hpp"

namespace starzk {

inline constexpr uint32_t packed_key_version = 1;

enum class packed_section_t : size_t { ic, h, l, a, b_g1, b_g2, a_density, b_density };

// Everything fixed before the first point is made.
struct packed_key_shape_t {
  root_convention_t convention = root_convention_t::bellman;
  uint32_t n_vars = 0;
  uint32_t n_public = 0;
  uint64_t domain_size = 0;
  uint64_t n_a = 0;  // wires with an A point
  uint64_t n_b = 0;  // wires with B points

  uint64_t n_aux() const { return uint64_t(n_vars) - n_public - 1; }
  uint64_t h_count() const { return convention == root_convention_t::bellman ? domain_size - 1 : domain_size; }
  uint64_t density_words() const { return (uint64_t(n_vars) + 63) / 64; }
  // Points in a section (bitmap words for the two density sections).
  uint64_t count(packed_section_t s) const;
  uint64_t file_bytes() const;  // the whole file, for disk planning
};

// Written in place: sizes first, then the points from any threads (disjoint
// ranges), then commit. Nothing is left behind unless commit() returns.
class packed_key_writer_t {
 public:
  packed_key_writer_t(const std::filesystem::path& file, const packed_key_shape_t& shape);

  // Compresses pts into section s at point index `first` (a G1 section for
  // g1_affine_t, b_g2 for g2_affine_t). O is written as the infinity
  // encoding; which queries may hold it is the key's business.
  void put(packed_section_t s, uint64_t first, std::span<const g1_affine_t> pts);
  void put(packed_section_t s, uint64_t first, std::span<const g2_affine_t> pts);
  std::span<uint64_t> density(packed_section_t s);  // a_density or b_density
  void set_head(const key_head_t& head);

  // Checks the bitmaps' popcounts against the shape, then writes the header.
  void commit(unsigned threads = 0);
  const packed_key_shape_t& shape() const { return shape_; }

 private:
  packed_key_shape_t shape_;
  page_container_writer_t w_;
};

// A whole in-memory key (full-length queries, O where a wire has no point).
void write_packed_key(const std::filesystem::path& file, const proving_key_t& key, unsigned threads = 0);

// A packed key opened for reading: the mapping, its shape and head.
class packed_key_view_t {
 public:
  explicit packed_key_view_t(const std::filesystem::path& file);

  const packed_key_shape_t& shape() const { return shape_; }
  const key_head_t& head() const { return head_; }
  // The compressed points of a query section (48 or 96 bytes each).
  std::span<const uint8_t> points(packed_section_t s) const;
  std::span<const uint64_t> density(packed_section_t s) const;
  void verify_checksums(unsigned threads = 0) const { c_.verify_checksums(threads); }
  const std::filesystem::path& path() const { return c_.path(); }
  [[noreturn]] void fail(const std::string& problem) const { c_.fail(problem); }

 private:
  page_container_t c_;
  packed_key_shape_t shape_;
  key_head_t head_;
};

// What turns compressed points into affine ones: the CPU (cpu_point_decoder)
// or a device (src/keys wraps cuda/key_check.hpp). Each call decodes n
// consecutive points into out[0..n), checking them canonical and on the
// curve, in the subgroup when `subgroup`, and not O unless `allow_infinity`;
// it returns "" or the problem of the lowest failing point, whose index it
// puts in *bad. A failure of the device itself (not of a point) throws.
class point_decoder_t {
 public:
  virtual ~point_decoder_t() = default;
  virtual std::string g1(const uint8_t* in, uint64_t n, g1_affine_t* out, bool subgroup, bool allow_infinity,
                         uint64_t* bad) = 0;
  virtual std::string g2(const uint8_t* in, uint64_t n, g2_affine_t* out, bool subgroup, bool allow_infinity,
                         uint64_t* bad) = 0;
};

// The CPU decoder (threads: 0 = all cores).
std::unique_ptr<point_decoder_t> cpu_point_decoder(unsigned threads = 0);

// Where an unpack spent its time, per query: points decoded, seconds in
// the decoder's calls, seconds in everything else (allocating and filling
// the full-length query, scattering dense points onto their wires).
struct unpack_stats_t {
  struct query_t {
    const char* name;
    uint64_t points;
    double decode_seconds;
    double other_seconds;
  };
  std::vector<query_t> queries;
  // "h 134.2M in 40.1 s (+1.2 s), l ..."
  std::string line() const;
};

// Decodes a view into a proving key with full-length queries (O on the
// wires without a point): in the subgroup unless `subgroup` is false (a key
// validated before), O only in l. Errors name the file, the query and the
// point (io_error). `stats`, when given, receives the time per query.
proving_key_t unpack_packed_key(const packed_key_view_t& view, bool subgroup, point_decoder_t& decoder,
                                unsigned threads = 0, unpack_stats_t* stats = nullptr);

// The verifying key alone (the head's points and IC), without unpacking
// the queries.
verifying_key_t unpack_packed_vk(const packed_key_view_t& view, point_decoder_t& decoder);

// The section name used in messages ("h", "b_g2", ...).
const char* packed_section_name(packed_section_t s);

}  // namespace starzk
