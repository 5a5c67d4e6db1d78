// Reading and writing iden3 .r1cs files (circom's circuit output).
//
// Format (v1, iden3 r1csfile; all integers little-endian):
//   section 1, header: u32 n8 (= 32), prime r (n8 bytes), u32 nWires,
//     u32 nOutputs, u32 nPubInputs, u32 nPrvInputs, u64 nLabels,
//     u32 nConstraints;
//   section 2, constraints: nConstraints × (A, B, C), each a linear
//     combination u32 nTerms then nTerms × (u32 wire, 32-byte coefficient in
//     standard form, < r);
//   section 3, wire → label map: nWires × u64 (optional here);
//   sections 4 and 5 (circom custom gates, PLONK only) are refused.
// Wire order: 0 = the constant 1, outputs, public inputs, private inputs,
// internal wires; so r1cs_t::n_public = nOutputs + nPubInputs.
//
// read_r1cs validates everything (magic, version, prime, counts against
// section lengths, wire indices < nWires, coefficients < r) and throws
// io_error "FILE: problem". It returns coded matrices (groth16/r1cs.hpp:
// u16 codes into a dictionary of distinct values), each matrix plain only
// when it has more than 65536 distinct coefficients; write_r1cs takes
// either form. write_r1cs emits the same format through an
// atomic write; as r1cs_t does not keep the outputs / public-inputs /
// private-inputs split nor labels, it writes nOutputs = n_public,
// nPubInputs = nPrvInputs = 0 and the identity label map, which every
// consumer we know (snarkjs setup, our reader) reads identically.
#pragma once

#include <filesystem>

#include "groth16/r1cs.hpp"

namespace starzk {

r1cs_t read_r1cs(const std::filesystem::path& file);
void write_r1cs(const std::filesystem::path& file, const r1cs_t& r1cs);

// Throws io_error naming `file` unless the structure is self-consistent
// (matrix shapes, row_ptr monotone and ending at nnz, columns < n_vars,
// 1 + n_public <= n_vars). Used by the writers; handy for producers too.
void check_r1cs_shape(const std::filesystem::path& file, const r1cs_t& r1cs);

}  // namespace starzk
