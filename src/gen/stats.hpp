// The figures that make a circuit "Filecoin-shaped" (docs/prover.md, The workload), measured
// on any R1CS and witness: nonzeros per row of A, B and C; how the aux
// values split into 0, 1 and other (prep_msm sends only "other" to a real
// MSM); and the aux densities, the share of aux wires that appear at all in
// A (a_aux) or in B (b_aux), which sizes the A and B queries of the key.
// Filecoin PoRep C2 for reference: 2.37 / 1.00 / 2.17 per row, ~99% of aux
// values in {0, 1}, a_aux 99.7%, b_aux 25.4%.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ff/fr.hpp"
#include "groth16/r1cs.hpp"

namespace starzk {

struct circuit_stats_t {
  uint64_t n_constraints = 0;
  uint32_t n_vars = 0, n_public = 0;
  uint64_t n_aux = 0;        // n_vars − n_public − 1
  uint64_t domain_size = 0;  // smallest 2^k ≥ constraints + n_public + 1
  uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  double a_per_row = 0, b_per_row = 0, c_per_row = 0;
  double a_aux_density = 0, b_aux_density = 0;      // fractions of aux wires
  bool has_witness = false;                         // the fractions below are 0 without one
  double aux_zero = 0, aux_one = 0, aux_other = 0;  // fractions of aux values
};

// w may be empty (circuit figures only); otherwise it must hold n_vars
// values (std::runtime_error if not).
circuit_stats_t describe(const r1cs_t& cs, std::span<const fr_t> w = {}, unsigned threads = 0);

// A few human-readable lines (for the CLI and benchmark logs).
std::string format_stats(const circuit_stats_t& s);

}  // namespace starzk
