// Synthetic circuits and witnesses with the shape of a Filecoin PoRep C2
// partition, for benchmarks and tests at any size from 2^10 to 2^27.
//
// The real circuit (docs/prover.md, The workload) has 130,278,869 constraints, 328 public
// inputs, nnz per row 2.37 / 1.00 / 2.17 for A / B / C, and a witness that
// is ~99% bits (SHA-256). What the prover's cost depends on is exactly
// that: the domain size, the sparsity of the three matrices, and the share
// of 0 / 1 scalars (prep_msm turns those into plain additions). So we build
// a circuit of SHA-256-like gadgets (gadgets.hpp: booleans, xor, and,
// 32-bit additions with carries and constants, bit packing, a few
// full-field multiplications) with
//   - exactly 2^k − n_public − 1 constraints, so that the constraints and
//     the n_public + 1 input rows (witness_map.hpp) fill the domain 2^k
//     exactly: the largest circuit a 2^k domain holds, the worst case for
//     the SpMV at a given NTT size;
//   - nnz per row ≈ 2.38 / 1.00 / 2.18;
//   - ≥ 98% of the aux values in {0, 1} (98.7% at 2^10, 98.6% at 2^27);
//   - aux densities a_aux ≈ 87%, b_aux ≈ 64% (Filecoin: 99.7%, 25.4%).
// The circuit is a function of (k, n_public, seed) only: one key serves every
// partition of a job. Each partition's witness draws its free input words
// from (seed, partition), so witnesses differ and all satisfy the circuit.
//
// The work is split into units of 866 rows (one per schedule, gadgets.hpp)
// whose rows, wires and nnz offsets are known up front, so generation runs
// in parallel over units straight into the final CSR arrays (no copies) and
// gives the same bytes for every thread count. The matrices come out coded
// (groth16/r1cs.hpp): the coefficients (powers of two, ±1, 2 and the
// circuit's constant tables, gadgets.hpp coeffs_t) form a dictionary of at
// most 449 values built before the rows, whose u16 codes the units write.
// At 2^27 the circuit takes ~7.7 GB: 746M nonzeros × 6 bytes (col 4, code
// 2) = 4.5 GB plus 3 × 2^27 row pointers × 8 bytes = 3.2 GB (the plain
// form, 32-byte values, was ~30 GB); at 2^20, 10.3 bytes per nonzero
// against 40.3. A witness takes 4.3 GB at 2^27. Generation took 5.6 s on 16
// cores with the plain form (0.7 s at 2^24), the witness 0.9 s (0.1 s).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ff/fr.hpp"
#include "groth16/r1cs.hpp"

namespace starzk {

struct gen_params_t {
  unsigned log2_constraints = 10;  // k: the domain is 2^k, k in [10, 27]
  uint32_t n_public = 328;         // clamped for tiny k (3 per 866-row unit)
  uint64_t seed = 0;
};

// Where everything goes; a pure function of the parameters.
struct gen_layout_t {
  unsigned log2_domain = 0;
  uint32_t n_public = 0;       // after clamping
  uint64_t n_constraints = 0;  // 2^k − n_public − 1
  uint32_t n_vars = 0;         // 1 + n_public + aux
  uint64_t n_full_units = 0;   // units of width 32
  unsigned tail_width = 0;     // 0: no tail unit
  uint64_t n_pad_rows = 0;     // xor rows after the tail that fill the count
  uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
};

// Throws std::runtime_error for k outside [10, 27].
gen_layout_t plan_layout(const gen_params_t& params);

// The circuit, with coded matrices sharing the circuit's dictionary (the
// same bytes for every thread count). threads = 0: all cores.
r1cs_t generate_circuit(const gen_params_t& params, unsigned threads = 0);

// A satisfying witness for `partition` (w[0] = 1, then the publics, then
// aux). `cs` must be generate_circuit(params) (its counts are checked).
std::vector<fr_t> generate_witness(const gen_params_t& params, const r1cs_t& cs, uint64_t partition,
                                   unsigned threads = 0);

}  // namespace starzk
