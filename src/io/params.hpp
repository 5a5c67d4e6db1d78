// Reading and writing bellman / Filecoin Groth16 parameters (.params).
//
// This is the byte form of bellman's `groth16::Parameters` (zkcrypto
// bellman src/groth16/mod.rs, `VerifyingKey::write` and `Parameters::write`;
// bellperson, which Filecoin's published .params come from, keeps it). There
// is no magic and no version: the file is
//
//   offset  size        field
//   0       96          vk.alpha_g1    G1 uncompressed
//   96      96          vk.beta_g1     G1
//   192     192         vk.beta_g2     G2 uncompressed
//   384     192         vk.gamma_g2    G2
//   576     96          vk.delta_g1    G1
//   672     192         vk.delta_g2    G2
//   864     4           n_ic           u32 big-endian
//   868     96·n_ic     vk.ic          G1 (n_public + 1 points)
//   then five queries, each a u32 big-endian count and that many points:
//           h    G1, n − 1 points τ^i·Z(τ)/δ (n = domain size)
//           l    G1, one per aux wire
//           a    G1, the wires whose A_j(τ) ≠ 0 only
//           b_g1 G1, the wires whose B_j(τ) ≠ 0 only
//           b_g2 G2, same wires as b_g1
//   and nothing after the last point.
// Points use the zcash encoding (ec/encoding.hpp): big-endian coordinates,
// G2 as x.c1‖x.c0‖y.c1‖y.c0, flag bits in the first byte (uncompressed:
// 0x40 = infinity, all other bits zero).
//
// Densities. bellman's generator drops the points at infinity from a, b_g1
// and b_g2; its prover walks them with density bitmaps taken from the
// circuit: wire j is dense in A if it is an input (j ≤ n_public: the extra
// input rows put every input in A) or appears in any A row, and dense in B
// if it appears in any B row. A .params file alone therefore does not say
// which wire the k-th a point belongs to. Our proving_key_t holds
// full-length queries, so:
//   - write_params writes exactly what bellman writes (no infinity points in
//     a, b_g1, b_g2);
//   - read_params(file, circuit) restores full-length queries by placing the
//     points on the dense wires in order (O elsewhere), after checking that
//     the counts match the circuit;
//   - read_params(file) works when no point was dropped (every count equals
//     n_vars, as for any key whose wires all appear in A and in B) and
//     otherwise throws an io_error saying the circuit is needed.
// Derived values: n_public = n_ic − 1, n_vars = n_public + 1 + |l|,
// domain_size = |h| + 1 (must be a power of two), convention bellman.
//
// Validation: the counts are checked against the file size before anything
// is allocated (a lying count or a truncated file is an io_error with the
// offset), every point is decoded with decode_check (default full: on the
// curve and in the order-r subgroup), and O is refused everywhere bellman's
// reader refuses it, except in l, where a wire used by no constraint
// legitimately gives O (bellman itself would refuse such a file). Decoding
// runs in parallel over the mapped file (subgroup checks cost ~40 µs per G1
// point on one core, docs/benchmarks.md: a 47 GiB Filecoin key needs all
// cores or a GPU; the CLI reads with decode_check::on_curve and validates
// once per key content, groth16/key_validation.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "ec/encoding.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace starzk {

struct params_read_options_t {
  decode_check check = decode_check::full;
  unsigned threads = 0;  // 0: every hardware thread
};

// A file that needs no circuit (no point dropped from a, b_g1, b_g2).
proving_key_t read_params(const std::filesystem::path& file);
proving_key_t read_params(const std::filesystem::path& file, const params_read_options_t& options);
// Any bellman file: the circuit gives the densities of A and B.
proving_key_t read_params(const std::filesystem::path& file, const r1cs_t& circuit);
proving_key_t read_params(const std::filesystem::path& file, const r1cs_t& circuit,
                          const params_read_options_t& options);

// Only the verifying key (what `starzk verify --params` needs).
verifying_key_t read_params_vk(const std::filesystem::path& file);

// Writes a bellman-convention key as bellman does (throws io_error naming
// `file` for a snarkjs-convention key or vectors of the wrong sizes).
void write_params(const std::filesystem::path& file, const proving_key_t& key);
void write_params(const std::filesystem::path& file, const proving_key_t& key, unsigned threads);

// Where everything lies in a .params file, from the counts alone (no point
// decoded): for `starzk info` and for tests. Throws io_error on a truncated
// file, lying counts or trailing bytes.
struct params_query_t {
  uint64_t offset = 0;  // of the first point (just after the u32 count)
  uint32_t count = 0;
};
struct params_layout_t {
  uint64_t file_size = 0;
  params_query_t ic, h, l, a, b_g1, b_g2;
};
params_layout_t scan_params(const std::filesystem::path& file);

// bellman's densities for a circuit: dense[j] = 1 when wire j gets a point
// in the .params A (resp. B) query.
std::vector<uint8_t> params_density_a(const r1cs_t& circuit);
std::vector<uint8_t> params_density_b(const r1cs_t& circuit);

}  // namespace starzk
