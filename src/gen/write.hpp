// Writing a generated job to disk, for `starzk gen` and for benchmarks that
// want files: one circuit (iden3 .r1cs) and one witness (.wtns) per
// partition, all through src/io's validating, atomic writers.
//
//   DIR/circuit.r1cs          generate_circuit(params)
//   DIR/witness-<i>.wtns      generate_witness(params, circuit, i), i < partitions
//
// DIR is created if missing. Witnesses are generated and written one at a
// time, so peak memory is the circuit plus one witness.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "gen/filecoin_shape.hpp"

namespace starzk {

// Called after each file is written (for progress output); may be empty.
using gen_progress_fn = std::function<void(const std::filesystem::path& written)>;

// Throws std::runtime_error (io_error for file problems, naming the file).
void write_generated(const gen_params_t& params, const std::filesystem::path& dir, uint32_t partitions,
                     unsigned threads = 0, const gen_progress_fn& progress = {});

// "witness-<i>.wtns": the name write_generated gives partition i's witness.
std::string generated_witness_name(uint64_t partition);

}  // namespace starzk
