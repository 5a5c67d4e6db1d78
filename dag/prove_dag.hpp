// prove_dag.hpp: one proof through the DAG in one call (a batch of one
// partition): the DAG's counterpart of groth16's prove / prove_with_blinding,
// for tests and simple callers. StarPU must be running.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "dag/batch.hpp"

namespace starzk::dag {

// Throws prove_error with the partition's message when the DAG fails (an
// unsatisfied witness: the proof does not verify) and std::runtime_error for
// a witness that does not fit the key. fixed_rs: TEST ONLY (see batch.hpp).
proof_t prove_dag(std::shared_ptr<const key_bundle_t> key, std::vector<fr_t> witness,
                  std::optional<blinding_t> fixed_rs = std::nullopt, const batch_options_t& options = {});

}  // namespace starzk::dag
