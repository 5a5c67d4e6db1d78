// Byte and text encodings of G1 and G2 points, as the formats starzk reads
// and writes use them.
//
// 1. zcash / Filecoin (bellman .params, Filecoin and bellman proofs; the
//    encoding of the zcash BLS12-381 spec, also IETF
//    draft-irtf-cfrg-pairing-friendly-curves appendix C):
//    big-endian coordinates; G2 coordinates c1 first, then c0. The three top
//    bits of the first byte (free since p < 2^381) are flags:
//      bit 7 (0x80) compression: 1 for the x-only forms;
//      bit 6 (0x40) infinity: the point is O, every other bit is zero;
//      bit 5 (0x20) sort (compressed only): y is the lexicographically
//        largest of the two roots (Fp: y > (p-1)/2; Fp2: compare c1, then
//        c0 when c1 = 0).
//    G1: compressed 48 bytes, uncompressed 96; G2: 96 and 192.
// 2. iden3 / snarkjs binary (.zkey sections): affine, each Fp coordinate 48
//    bytes little-endian in Montgomery form (a 2^384 mod p), i.e. our own
//    limbs; G1 = x || y, G2 = x.c0 || x.c1 || y.c0 || y.c1; O = all zeros.
// 3. snarkjs JSON (proof.json, verification_key.json): decimal strings,
//    projective with z = 1; O is written ["0", "1", "0"] (G1) and
//    [["0","0"], ["1","0"], ["0","0"]] (G2).
//
// Decoders return a decode_status (describe() turns it into a sentence) and
// never throw on bad bytes. decode_check picks how much to verify beyond the
// format: full (default: on the curve and in the order-r subgroup),
// on_curve (skip the subgroup test, for keys already validated), none
// (format and coordinate range only, as bellman's unchecked reads).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ec/affine.hpp"

namespace starzk {

enum class decode_check { full, on_curve, none };

enum class decode_status {
  ok,
  wrong_length,               // span decoders: input is not exactly the encoding size
  wrong_compression_flag,     // compression bit does not match the decoder called
  bad_infinity_encoding,      // infinity flag set but other bits are non-zero
  sort_flag_on_infinity,      // sort flag set together with the infinity flag
  sort_flag_on_uncompressed,  // sort flag set on an uncompressed encoding
  non_canonical_coordinate,   // a coordinate is >= p
  no_square_root,             // compressed x: x^3 + b has no square root
  not_on_curve,               // (x, y) does not satisfy the curve equation
  not_in_subgroup,            // on the curve but not of order r
  bad_decimal,                // a decimal string is empty, not digits, or >= p
  bad_projective,             // z is neither 1 nor the snarkjs infinity form
};

// A sentence saying what went wrong ("ok" for decode_status::ok).
const char* describe(decode_status s);

// Throws std::runtime_error("<what>: <describe(s)>") unless s is ok.
void throw_if_failed(decode_status s, std::string_view what);

// ---- zcash / Filecoin -------------------------------------------------------
inline constexpr size_t g1_compressed_size = 48;
inline constexpr size_t g1_uncompressed_size = 96;
inline constexpr size_t g2_compressed_size = 96;
inline constexpr size_t g2_uncompressed_size = 192;

void encode_g1_compressed(const g1_affine_t& p, uint8_t out[g1_compressed_size]);
void encode_g1_uncompressed(const g1_affine_t& p, uint8_t out[g1_uncompressed_size]);
void encode_g2_compressed(const g2_affine_t& p, uint8_t out[g2_compressed_size]);
void encode_g2_uncompressed(const g2_affine_t& p, uint8_t out[g2_uncompressed_size]);

// Pointer forms read exactly the encoding size; span forms check the length
// first (wrong_length). On failure `out` is left unchanged.
decode_status decode_g1_compressed(const uint8_t* in, g1_affine_t& out, decode_check check = decode_check::full);
decode_status decode_g1_uncompressed(const uint8_t* in, g1_affine_t& out, decode_check check = decode_check::full);
decode_status decode_g2_compressed(const uint8_t* in, g2_affine_t& out, decode_check check = decode_check::full);
decode_status decode_g2_uncompressed(const uint8_t* in, g2_affine_t& out, decode_check check = decode_check::full);
decode_status decode_g1_compressed(std::span<const uint8_t> in, g1_affine_t& out,
                                   decode_check check = decode_check::full);
decode_status decode_g1_uncompressed(std::span<const uint8_t> in, g1_affine_t& out,
                                     decode_check check = decode_check::full);
decode_status decode_g2_compressed(std::span<const uint8_t> in, g2_affine_t& out,
                                   decode_check check = decode_check::full);
decode_status decode_g2_uncompressed(std::span<const uint8_t> in, g2_affine_t& out,
                                     decode_check check = decode_check::full);

// ---- iden3 / snarkjs binary (Montgomery, little-endian) ----------------------
inline constexpr size_t g1_snarkjs_size = 96;
inline constexpr size_t g2_snarkjs_size = 192;

void encode_g1_snarkjs(const g1_affine_t& p, uint8_t out[g1_snarkjs_size]);
void encode_g2_snarkjs(const g2_affine_t& p, uint8_t out[g2_snarkjs_size]);
decode_status decode_g1_snarkjs(const uint8_t* in, g1_affine_t& out, decode_check check = decode_check::full);
decode_status decode_g2_snarkjs(const uint8_t* in, g2_affine_t& out, decode_check check = decode_check::full);

// ---- snarkjs JSON decimal strings --------------------------------------------
using g1_decimal_t = std::array<std::string, 3>;                 // [x, y, z]
using g2_decimal_t = std::array<std::array<std::string, 2>, 3>;  // [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]

g1_decimal_t g1_to_decimal(const g1_affine_t& p);
g2_decimal_t g2_to_decimal(const g2_affine_t& p);
decode_status g1_from_decimal(const g1_decimal_t& in, g1_affine_t& out, decode_check check = decode_check::full);
decode_status g2_from_decimal(const g2_decimal_t& in, g2_affine_t& out, decode_check check = decode_check::full);

}  // namespace starzk
