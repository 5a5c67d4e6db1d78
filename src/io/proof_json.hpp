// snarkjs proof.json and public.json.
//
// proof.json: {pi_a: G1, pi_b: G2, pi_c: G1, protocol: "groth16",
// curve: "bls12381"} (point syntax in json_points.hpp; [x, y] without z is
// accepted, as snarkjs does). Unlike snarkjs, the reader checks that every
// point is in the prime-order subgroup, and refuses the point at infinity
// (no honest proof has one). protocol and curve are checked when present.
// public.json: the public wires 1..n_public (outputs first, then public
// inputs) as decimal strings, each < r.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "groth16/keys.hpp"

namespace starzk {

proof_t read_proof_json(const std::filesystem::path& file);
void write_proof_json(const std::filesystem::path& file, const proof_t& proof);
std::string proof_json_text(const proof_t& proof);  // the file's content

std::vector<fr_t> read_public_json(const std::filesystem::path& file);
void write_public_json(const std::filesystem::path& file, std::span<const fr_t> inputs);
std::string public_json_text(std::span<const fr_t> inputs);  // the file's content

// A proof with its public inputs, and its 192-byte form, written together:
// proof_files.hpp.

}  // namespace starzk
