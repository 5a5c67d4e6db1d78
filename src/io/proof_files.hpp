// The files a proof is written to, and the 192-byte-per-proof .bin file.
//
// One proof's outputs are any of public.json, a 192-byte proof.bin and
// proof.json (snarkjs forms in proof_json.hpp, the byte form in
// groth16/proof_bytes.hpp). They are one output set (output_set.hpp):
// written together or not at all, in the order public.json, proof.bin,
// proof.json, so the last one given is the commit mark. A reader that finds
// the mark finds the public inputs that belong to it; clean_proof_outputs
// removes a set left without its mark by a kill. `starzk prove` and both
// batch paths write through write_proof_outputs only.
//
// A proofs .bin file (a batch job's `proofs_bin`, `starzk verify --proof
// X.bin`) is N proofs of 192 bytes back to back, partition order. The
// reader checks the file's size against the count the caller expects before
// it reads a byte, so a wrong file (a key passed as proofs) is refused at
// once, never loaded.
#pragma once

#include <filesystem>
#include <span>
#include <vector>

#include "groth16/keys.hpp"

namespace starzk {

struct proof_outputs_t {
  std::filesystem::path public_json;  // any may be empty (not written)
  std::filesystem::path proof_bin;
  std::filesystem::path proof_json;

  // The non-empty paths in commit order (the mark last).
  std::vector<std::filesystem::path> members() const;
};

// Writes every non-empty output of `o` as one output set; throws io_error.
void write_proof_outputs(const proof_outputs_t& o, const proof_t& proof, std::span<const fr_t> publics);
// Stale temporaries, and an incomplete set (clean_output_set).
size_t clean_proof_outputs(const proof_outputs_t& o);

// N proofs of 192 bytes. read_proofs_bin throws io_error unless the file
// holds exactly `expected` proofs, each valid (decode_proof).
std::vector<proof_t> read_proofs_bin(const std::filesystem::path& file, size_t expected);
void write_proofs_bin(const std::filesystem::path& file, std::span<const proof_t> proofs);

}  // namespace starzk
