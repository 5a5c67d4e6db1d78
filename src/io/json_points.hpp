// Points and scalars in snarkjs JSON (verification_key.json, proof.json,
// public.json), shared by vkey_json and proof_json.
//
// snarkjs prints every number as a decimal string in standard form and
// every point in projective-looking affine form:
//   G1: [x, y, "1"]                                 (infinity: ["0", "1", "0"])
//   G2: [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]    (infinity: z = ["0", "0"])
// `snarkjs groth16 verify` also accepts [x, y] without z, and so do we.
// Parsing checks the value range (< q, < r), then the point: on the curve,
// in the subgroup, and not infinity unless the caller allows it. Errors are
// io_error "FILE: FIELD: problem".
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "ec/affine.hpp"
#include "ff/fr.hpp"

namespace starzk::json_io {

using ordered_json = nlohmann::ordered_json;

// The largest JSON file read by default, and the largest proof.json: the
// size is checked before the file is read, since a parsed document takes
// several times its text in memory (a verification key for 10^5 public
// inputs is 20 MB of text; a proof is 1.5 KB).
inline constexpr uint64_t json_max_bytes = uint64_t(64) << 20;
inline constexpr uint64_t proof_json_max_bytes = uint64_t(64) << 10;

// Reads and parses a whole JSON file (io_error on a missing file, a file
// larger than max_bytes, or a syntax error, with the parser's position).
nlohmann::json read_json_file(const std::filesystem::path& file, uint64_t max_bytes = json_max_bytes);
// JSON as snarkjs prints it: one-space indent, trailing newline.
std::string json_text(const ordered_json& j);
// Writes json_text(j) atomically.
void write_json_file(const std::filesystem::path& file, const ordered_json& j);

struct context_t {
  const std::filesystem::path& file;
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const;
};

const nlohmann::json& member(const context_t& ctx, const nlohmann::json& obj, const char* key);

fp_t parse_fp(const context_t& ctx, const nlohmann::json& v, const std::string& field);
fr_t parse_fr(const context_t& ctx, const nlohmann::json& v, const std::string& field);

g1_affine_t parse_g1(const context_t& ctx, const nlohmann::json& v, const std::string& field, bool allow_infinity);
g2_affine_t parse_g2(const context_t& ctx, const nlohmann::json& v, const std::string& field, bool allow_infinity);

ordered_json g1_to_json(const g1_affine_t& p);
ordered_json g2_to_json(const g2_affine_t& p);

}  // namespace starzk::json_io
