// witness_map_into.hpp: the witness map of groth16/witness_map.hpp writing
// into caller-owned rows (the buffers of a StarPU task) instead of
// returning fresh vectors. A thin overload: the SpMV is groth16's spmv(),
// and the two conventions' extra rules are the ones witness_map_r1cs /
// witness_map_zkey document:
//   bellman key (rows from the circuit):
//     a = A·w, b = B·w, c = C·w on the n_constraints rows, then the input
//     rows a[n_constraints + s] = w[s] for s = 0..n_public, zeros after;
//     a witness whose rows break a_i·b_i = c_i on a constraint row is
//     refused here (bad_input_error naming the constraint, the same words
//     as the CUDA body's device check), so a bad witness fails its
//     partition at the first task;
//   snarkjs key (rows from the key's own matrices, which already hold the
//     input rows): a = zkey_A·w, b = zkey_B·w, c = a∘b row by row.
// Cost: one product per term whose wire is neither 0 nor 1 (spmv's
// shortcut), plus n_constraints products for the check (bellman) or n for
// c (snarkjs). tests/codelets checks it against
// witness_map() value for value.
#pragma once

#include <span>

#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace starzk::codelets {

// a, b, c must each be pk.domain_size long; cs is required for a bellman
// key. Throws std::invalid_argument naming the mismatch.
void witness_map_into(const proving_key_t& pk, const r1cs_t* cs, std::span<const fr_t> w, std::span<fr_t> a,
                      std::span<fr_t> b, std::span<fr_t> c, unsigned threads = 1);

// The bad_input_error for a witness that breaks constraint `row`.
[[noreturn]] void throw_unsatisfied(uint64_t row);

}  // namespace starzk::codelets
