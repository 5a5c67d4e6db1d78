// The resident key cache (".szkc"): a proving key as it lies in memory, so
// that loading it is an mmap and a pointer cast.
//
// Parsing a Filecoin .params (47 GiB, zcash big-endian encoding, every
// point checked for subgroup membership) takes minutes of CPU; cuzk's first
// lesson was to keep the key resident. The cache is made once from a key
// that was fully validated when it was read (.params, .zkey, or setup), and
// afterwards opened in milliseconds: the points are our g1_affine_t /
// g2_affine_t bytes (x‖y, Montgomery limbs, O = all zero), the sections are
// page-aligned, and key_cache_view_t exposes them as spans over the mapping
// without copying, ready to be registered as StarPU handles.
//
// Container: page_container.hpp (magic "szkc", version 1, header checksum,
// per-section xxh64 block checksums). Metadata (920 bytes):
//   0    u32 convention (0 = bellman, 1 = snarkjs)
//   4    u32 n_vars
//   8    u32 n_public
//   12   u32 zero
//   16   u64 domain_size
//   24   u64 zkey_a.n_rows, 32 u64 zkey_a.n_cols,
//   40   u64 zkey_b.n_rows, 48 u64 zkey_b.n_cols
//   56   alpha_g1, beta_g1, delta_g1 (96 bytes each),
//   344  beta_g2, delta_g2, gamma_g2 (192 bytes each)   ends at 920
// Sections (in this order):
//   0 ic (G1, n_public + 1)     1 h (G1, n − 1 bellman / n snarkjs)
//   2 l (G1, aux wires)         3 a (G1, n_vars)   4 b_g1 (G1, n_vars)
//   5 b_g2 (G2, n_vars)         6-8 zkey_a row_ptr/col/val
//   9-11 zkey_b row_ptr/col/val (empty for bellman keys)
// The .zkey matrices are stored with plain values (32 bytes per term, as the
// .zkey itself holds them): write_key_cache expands coded matrices
// (groth16/r1cs.hpp; setup codes them when the circuit is coded) and the
// reader returns plain ones, which compare equal. They are snarkjs-only and
// small next to the key's points (a term is 36 bytes, an H point 96 per row).
//
// Trust: opening checks the whole header (sizes against the file, section
// lengths against n_vars / n_public / domain_size, alignment, the header
// checksum) and samples a few points of each section for being on the curve
// (which catches a file of another layout); it does not re-validate every
// point: that was done when the key was read from its original format. For
// a cache of unknown origin, check_key_cache (CLI: --check) decodes every
// point (canonical coordinates, on the curve, in the subgroup, O only where
// a wire can legitimately be unused) and every matrix index.
#pragma once

#include <filesystem>
#include <memory>
#include <span>

#include "groth16/keys.hpp"
#include "io/matrix_view.hpp"
#include "io/page_container.hpp"

namespace starzk {

inline constexpr uint32_t key_cache_version = 1;

// How much an open checks beyond the header (always checked in full).
enum class cache_check_t {
  header,     // header + sampled on-curve test of a few points per section
  checksums,  // + every section's checksum (reads the whole file, in parallel)
  on_curve,   // + every point canonical, on the curve, O only where allowed,
              //   and every matrix entry: all but the subgroup tests
  full,       // + every point in its subgroup (check_key_cache)
};

class key_cache_view_t {
 public:
  explicit key_cache_view_t(const std::filesystem::path& file, cache_check_t check = cache_check_t::header,
                            unsigned threads = 0);

  root_convention_t convention = root_convention_t::bellman;
  uint32_t n_vars = 0, n_public = 0;
  uint64_t domain_size = 0;
  g1_affine_t alpha_g1, beta_g1, delta_g1;
  g2_affine_t beta_g2, delta_g2, gamma_g2;

  // Views into the mapping: valid while this object lives.
  std::span<const g1_affine_t> ic, h, l, a, b_g1;
  std::span<const g2_affine_t> b_g2;
  sparse_matrix_view_t zkey_a, zkey_b;

  verifying_key_t vk() const;
  proving_key_t to_proving_key() const;  // copies everything
  // The same with the queries borrowed from the mapping `keeper` (this
  // view, shared) keeps alive.
  proving_key_t to_proving_key(std::shared_ptr<const key_cache_view_t> keeper) const;

  void verify_checksums(unsigned threads = 0) const { c_.verify_checksums(threads); }
  // Every point and matrix entry (see the file comment); throws io_error.
  // subgroup = false leaves out the subgroup tests (cache_check_t::on_curve).
  void validate(unsigned threads = 0, bool subgroup = true) const;

  const page_container_t& container() const { return c_; }

 private:
  page_container_t c_;
};

void write_key_cache(const std::filesystem::path& file, const proving_key_t& key, unsigned threads = 0);
// The key, its queries copied, or with map_points borrowed from the
// mapping (mappable_vector_t: no copy; the mapping lives as long as the
// key and its copies). The matrices are copied either way.
proving_key_t read_key_cache(const std::filesystem::path& file, cache_check_t check = cache_check_t::checksums,
                             unsigned threads = 0, bool map_points = false);
// The --check: header, checksums, then every point and index.
void check_key_cache(const std::filesystem::path& file, unsigned threads = 0);

}  // namespace starzk
