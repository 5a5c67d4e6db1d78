// test_inputs.hpp: keys, circuits and witnesses shared by the codelet and
// DAG tests, built once per test binary:
//   - the snarkjs fixtures (tests/fixtures/<name>: circuit.zkey,
//     circuit.r1cs, witness.wtns): multiplier, bits, mimc;
//   - a generated Filecoin-shaped circuit (src/gen, k = 10) with our own
//     development keys in both conventions and 4 partition witnesses.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "groth16/keys.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"

namespace starzk::test {

struct prove_case_t {
  std::string name;
  std::shared_ptr<const proving_key_t> pk;
  std::shared_ptr<const r1cs_t> cs;
  std::vector<std::vector<fr_t>> witnesses;  // each satisfies the circuit
};

// "multiplier", "bits", "mimc": a fixture; "gen-bellman", "gen-snarkjs": the
// generated circuit with a development key of that convention.
const prove_case_t& prove_case(const std::string& name);
std::vector<std::string> prove_case_names();

// A deterministic blinding pair from a seed (tests only).
blinding_t test_blinding(uint64_t seed);

}  // namespace starzk::test
