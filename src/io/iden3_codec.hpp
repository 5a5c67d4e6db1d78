// Field elements and points as the iden3 files (.r1cs, .wtns, .zkey) store
// them, with the validation every reader shares.
//
// - Primes: a field header is u32 n8 then the prime in n8 little-endian
//   bytes. We accept only BLS12-381's r (n8 = 32) and q (n8 = 48); a file
//   made for bn128 (circom's default prime) is named as such, since that is
//   the usual mistake ("compiled without --prime bls12381").
// - Fr values in .r1cs/.wtns: standard form (the integer), 32 bytes LE,
//   which must be < r (no silent reduction: one encoding per value).
// - Points in .zkey: affine, each Fq coordinate in Montgomery form
//   (x·2^384 mod q, 48 bytes LE, < q); G1 = x‖y (96 bytes),
//   G2 = x.c0‖x.c1‖y.c0‖y.c1 (192 bytes); infinity = all-zero bytes, no
//   flags. Readers check every point is on the curve and in the order-r
//   subgroup, and refuse infinity where the caller says it cannot occur.
//   The byte format itself is ec/encoding.hpp's (decode_g1_snarkjs, ...);
//   this file adds the io wording of each decode_status (problem_text) and
//   the infinity rule.
#pragma once

#include <cstdint>
#include <string>

#include "ec/affine.hpp"
#include "ec/encoding.hpp"
#include "ff/fr.hpp"
#include "io/binfile.hpp"

namespace starzk::iden3 {

enum class prime_t { r, q };

// Reads u32 n8 and the prime; throws unless it is BLS12-381's r or q.
void read_prime(bin_cursor_t& c, prime_t which);
void write_prime(bin_writer_t& w, prime_t which);

// Standard-form Fr (32 bytes); `what` names the value in the error
// ("constraint 7, A term 2: coefficient").
fr_t read_fr(bin_cursor_t& c, const std::string& what);
void write_fr(bin_writer_t& w, const fr_t& v);
void put_fr(uint8_t* out, const fr_t& v);

enum class infinity_t { allowed, forbidden };

// check: full (on the curve and in the subgroup) or on_curve (the
// subgroup left to the caller); none counts as on_curve.
g1_affine_t read_g1(bin_cursor_t& c, const std::string& what, infinity_t inf, decode_check check = decode_check::full);
g2_affine_t read_g2(bin_cursor_t& c, const std::string& what, infinity_t inf, decode_check check = decode_check::full);
void write_g1(bin_writer_t& w, const g1_affine_t& p);
void write_g2(bin_writer_t& w, const g2_affine_t& p);

// Decoding without the checks (curve, subgroup), for callers that check a
// whole vector at once; returns false when a coordinate is >= q.
bool decode_g1(const uint8_t* in, g1_affine_t& out);
bool decode_g2(const uint8_t* in, g2_affine_t& out);
// io's wording of a decode failure, appended to the point's name:
// " is not on the curve", ": a coordinate is not below q", or ": " and
// ec's describe() for the other statuses ("" for ok).
std::string problem_text(decode_status s);
// Curve and subgroup membership plus the infinity rule, as a problem text
// ("" when the point is fine); curve_problem leaves out the subgroup.
std::string point_problem(const g1_affine_t& p, infinity_t inf);
std::string point_problem(const g2_affine_t& p, infinity_t inf);
const char* curve_problem(const g1_affine_t& p, infinity_t inf);
const char* curve_problem(const g2_affine_t& p, infinity_t inf);
inline constexpr const char* subgroup_problem = "is not in the prime-order subgroup";

}  // namespace starzk::iden3
