// Loading what the subcommands read, with the file named in every error:
// keys (.zkey or .params), circuits (.r1cs) and witnesses (.wtns).
#pragma once

#include <string>
#include <vector>

#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace starzk::cli {

struct loaded_key_t {
  std::string path;
  proving_key_t pk;
};

// Exactly one of zkey / params is non-empty. A .params file that omits the
// points at infinity of its A and B queries (as bellman writes them) needs
// its circuit to place the remaining points on their wires.
loaded_key_t load_key(const std::string& zkey, const std::string& params, const r1cs_t* circuit = nullptr);

// The verifying key alone, from a .zkey, a .params or a snarkjs JSON file.
verifying_key_t load_verifying_key(const std::string& vkey_json, const std::string& zkey, const std::string& params);
r1cs_t load_circuit(const std::string& path);
std::vector<fr_t> load_witness(const std::string& path, uint32_t n_vars);

}  // namespace starzk::cli
