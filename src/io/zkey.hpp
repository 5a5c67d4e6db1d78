// Reading and writing snarkjs Groth16 .zkey files (BLS12-381 only).
//
// Format (magic "zkey", v1; iden3 snarkjs zkey_utils; docs/oracles.md):
//   1  u32 protocol (1 = groth16; 2 plonk and 10 fflonk are refused)
//   2  u32 n8q (48), q, u32 n8r (32), r, u32 nVars, u32 nPublic,
//      u32 domainSize, then α1, β1 (G1), β2, γ2 (G2), δ1 (G1), δ2 (G2)
//   3  IC: nPublic + 1 G1 points
//   4  u32 nCoefs, then nCoefs × (u32 matrix 0=A/1=B, u32 row, u32 wire,
//      32-byte value v·R² mod r, R = 2^256, standard form)
//   5  A, 6  B1 (G1), 7  B2 (G2): nVars points each
//   8  C (our l): nVars − nPublic − 1 G1 points
//   9  H: domainSize G1 points, L_{2i+1}(τ)/δ (keys.hpp)
//   10 the MPC transcript (circuit hash, contributions); the prover never
//      reads it.
// Points are affine Montgomery-form coordinates, infinity = zero bytes
// (iden3_codec.hpp). snarkjs writes sections in the order 1..10.
//
// read_zkey checks everything: container, protocol, both primes, counts
// against section lengths, domainSize a power of two holding nPublic + 1
// rows, matrix entries (matrix id, row < domainSize, wire < nVars, value
// < r), and every point (on the curve, in the subgroup unless asked not
// to, zkey_read_options_t; infinity only in
// the A, B1, B2 and C queries, where a wire absent from a matrix makes it
// legitimate). The vk part of the result (vk.alpha_g1, beta_g2, gamma_g2,
// delta_g2, ic) is filled from sections 2 and 3.
//
// write_zkey writes sections 1..9 byte-for-byte as snarkjs does (section 4
// entries in row order, A terms then B terms within a row, which is
// snarkjs's order since its rows come from the .r1cs in order), and as
// section 10 either the transcript given (e.g. read_zkey_transcript of the
// source key) or an empty one (a zero circuit hash, no contributions):
// snarkjs `groth16 prove` and `zkey export verificationkey` accept it;
// `zkey verify` cannot, since nothing ties it to a ceremony.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <vector>

#include "ec/encoding.hpp"
#include "groth16/keys.hpp"

namespace starzk {

// How much read_zkey checks of the points: decode_check::full (default: on
// the curve and in the subgroup) or on_curve (the subgroup is left to the
// caller, groth16/key_validation.hpp; none counts as on_curve). Everything
// else is always checked.
//
// on_query, when set, is called on the reading thread as each point query
// is decoded and checked (ic, then a, b_g1, b_g2, l, h: the file's order),
// with the key being filled. The query's vector is final from then on (its
// storage stays where it is, also when the key is returned), so a
// validator may read it while the rest is decoded; the other fields are
// not final until read_zkey returns. An exception from on_query ends the
// read with that exception.
//
// vouched, when set, is asked before each of the large queries (a, b_g1,
// b_g2, l, h; so after on_query of ic): true means the caller vouches for
// the file's points (its digest is that of a key validated before), and
// the query is decoded with coordinates checked below q but no curve,
// infinity or subgroup check.
//
// map_points: a query the caller vouches for is not decoded at all where
// its section's bytes can serve as the points themselves: snarkjs stores a
// point as x‖y in little-endian Montgomery limbs (R = 2^384), which is our
// affine_t's layout, so on a little-endian machine the key borrows the
// section from the file's mapping (mappable_vector_t) when the section
// starts at an offset aligned for its limbs. Sections follow 12-byte
// section headers, so about every other point section is aligned; the
// others are decoded as above. The mapping lives as long as the key.
//
// vk_only: the verifying key alone (the header's points and IC, with the
// bellman extras beta_g1 and delta_g1); the sections' lengths are still
// checked against the header's counts, but the coefficients and the five
// queries are neither read nor checked, so a verifier does not pay for a
// proving key's points (their subgroup checks above all).
struct zkey_read_options_t {
  decode_check check = decode_check::full;
  std::function<void(key_query_t, const proving_key_t&)> on_query;
  std::function<bool()> vouched = nullptr;
  bool map_points = false;
  bool vk_only = false;

  // A read for the verifying key alone (vk_only), every other option at its
  // default.
  static zkey_read_options_t verifying_key_only() {
    zkey_read_options_t o;
    o.vk_only = true;
    return o;
  }
};

proving_key_t read_zkey(const std::filesystem::path& file);
proving_key_t read_zkey(const std::filesystem::path& file, const zkey_read_options_t& options);
// The same, filling `out` (cleared first): a caller whose validator reads
// the queries during the read keeps the key alive beyond it, also when the
// read throws.
void read_zkey(const std::filesystem::path& file, const zkey_read_options_t& options, proving_key_t& out);

// The raw bytes of section 10 (the MPC transcript), for write_zkey.
std::vector<uint8_t> read_zkey_transcript(const std::filesystem::path& file);

void write_zkey(const std::filesystem::path& file, const proving_key_t& key, std::span<const uint8_t> transcript = {});

// Throws io_error naming `file` unless the key's vectors have the sizes the
// .zkey layout needs (see the section list above).
void check_zkey_shape(const std::filesystem::path& file, const proving_key_t& key);

}  // namespace starzk
