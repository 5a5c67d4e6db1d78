// The Groth16 prover on the CPU, one function per phase (docs/prover.md), so
// that the same steps can run as one call here or as StarPU codelets in
// dag/ (which call these functions from their CPU bodies):
//
//   1. witness map      a, b, c = A·w, B·w, C·w            (witness_map.hpp)
//   2. H phase          h = coefficients/evaluations of (a·b − c)/Z,
//                       in the convention of the key        compute_h
//   3. prep_msm         split each query's scalars into 0 / 1 / other
//   4. MSMs             H, L, A, B_g1 (G1) and B_g2 (G2)    compute_msms
//   5. assembly         with fresh r, s                      assemble
//
//   A  = α + Σ w_j·A_j + r·δ₁
//   B  = β₂ + Σ w_j·B2_j + s·δ₂
//   B1 = β₁ + Σ w_j·B1_j + s·δ₁          (B in G1, only for C)
//   C  = Σ_aux w_j·L_j + Σ h_i·H_i + s·A + r·B1 − r·s·δ₁
//
// r and s come from the OS CSPRNG for every proof; a fixed pair can be
// passed only through prove_with_blinding (tests and the DAG's
// byte-identity check). Before a proof is returned it is verified against
// the key's own verifying key, so an unsatisfied witness (which snarkjs
// would silently turn into a bad proof) is refused with an error instead.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ec/jacobian.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/witness_map.hpp"

namespace starzk {

// Why a proof that was made does not verify. The prover cannot tell a
// witness that does not satisfy the circuit from a key whose points do not
// match its constraints (a corrupt key) unless it has the circuit: with it,
// the witness is checked row by row first (check_prover_inputs), so a
// failure then is the key's.
inline constexpr const char* proof_fails_without_circuit =
    "the proof does not verify: the witness does not satisfy the key's circuit, or the key is corrupt (its "
    "points do not match its constraints); give the circuit (--circuit) to tell which";
inline constexpr const char* proof_fails_with_circuit =
    "the proof does not verify although the witness satisfies the circuit: the key is corrupt or was made "
    "for another circuit";
inline constexpr const char* proof_fails_in_batch_with_circuit =
    "the proof does not verify: the key is corrupt or was made for another circuit, or the witness does not "
    "satisfy the circuit";

// Which input a prove_error is about, so that a caller that knows the
// files can name the right one ("w.wtns: witness does not satisfy ...").
enum class prove_input_t { key, circuit, witness };

// A proof could not be made from these inputs (the message says why).
struct prove_error : std::runtime_error {
  explicit prove_error(const std::string& what, prove_input_t about_ = prove_input_t::witness)
      : std::runtime_error(what), about(about_) {}
  prove_input_t about;
};

// "witness does not satisfy constraint <row> of the circuit".
prove_error unsatisfied_error(uint64_t row);

struct blinding_t {
  fr_t r, s;
};

struct msm_results_t {
  g1_jacobian_t h, l, a, b_g1;
  g2_jacobian_t b_g2;
};

// Checks that key, circuit and witness fit together (counts, w[0] = 1; for a
// snarkjs key with a circuit, that the circuit is satisfied; a bellman key's
// rows are checked by prove_with_blinding on the witness map's output).
// Throws prove_error.
void check_prover_inputs(const proving_key_t& pk, const r1cs_t* cs, std::span<const fr_t> w, unsigned threads = 0);

// Step 1 for either convention: snarkjs keys use their own matrices; bellman
// keys need the circuit.
qap_rows_t witness_map(const proving_key_t& pk, const r1cs_t* cs, std::span<const fr_t> w, unsigned threads = 0);

// Step 2: the scalars of the H query (n − 1 of them for bellman keys, n for
// snarkjs keys). Consumes the rows.
std::vector<fr_t> compute_h(const proving_key_t& pk, qap_rows_t&& rows, unsigned threads = 0);

// Where one proof's time went: wall seconds of each step, in the order
// they ran ("check", "witness map", "h", "msm h", "prep_msm", "msm l",
// "msm a", "msm b_g1", "msm b_g2", "assemble", "verify"), for `starzk
// prove --verbose`. Timing costs a clock read per step.
struct prove_phase_t {
  const char* name;
  double seconds;
};
using prove_phases_t = std::vector<prove_phase_t>;

// Steps 3-4 (their times appended to *phases when given).
msm_results_t compute_msms(const proving_key_t& pk, std::span<const fr_t> w, std::span<const fr_t> h,
                           unsigned threads = 0, prove_phases_t* phases = nullptr);

// Step 5.
proof_t assemble(const proving_key_t& pk, const msm_results_t& m, const blinding_t& rs);

// The whole proof with fresh r, s from the OS CSPRNG. cs may be null for a
// snarkjs key (the key carries the matrices); then the witness is checked
// only through the final self-verification.
proof_t prove(const proving_key_t& pk, const r1cs_t* cs, std::span<const fr_t> w, unsigned threads = 0,
              prove_phases_t* phases = nullptr);

// The same with given r, s: for tests that compare provers byte for byte.
proof_t prove_with_blinding(const proving_key_t& pk, const r1cs_t* cs, std::span<const fr_t> w, const blinding_t& rs,
                            unsigned threads = 0, prove_phases_t* phases = nullptr);

// The public inputs of a witness: w[1..n_public].
std::vector<fr_t> public_inputs(const proving_key_t& pk, std::span<const fr_t> w);

}  // namespace starzk
