// batch_run.hpp: the options of `starzk prove --manifest` (cmd_batch.cpp),
// shared with cmd_prove.cpp, which parses them.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "groth16/prover.hpp"

namespace starzk::cli {

struct batch_run_options_t {
  std::string manifest;
  std::string policy;         // empty: STARPU_SCHED, else "starzk"
  std::string policy_plugin;  // policy plug-in to load (policies/starzk_plugin.h); empty: $STARZK_POLICY_PLUGIN
  std::string trace;          // Chrome trace JSON to write; empty: none
  std::string mem_budget = "auto";
  int cpus = -1;                  // StarPU CPU workers; -1: StarPU's default
  int gpus = -1;                  // StarPU CUDA workers; -1: StarPU's default (every GPU)
  std::string place;              // codelet placement, codelets::set_placement syntax
  unsigned threads_per_task = 1;  // threads a codelet body may fork
  bool quiet = false;
  bool json = false;                   // the summary as one JSON object on stdout, progress lines on stderr
  bool revalidate = false;             // validate every key even if it passed before (cli/inputs.hpp)
  bool fresh = false;                  // ignore the journals: prove every partition (cli/batch_outputs.hpp)
  bool mpi = false;                    // --mpi: one StarPU-MPI rank per node (cli/mpi_run.hpp)
  std::optional<blinding_t> fixed_rs;  // TEST ONLY (--test-fixed-rs R,S): the same r, s for every proof
  // TEST ONLY (--test-inject-fault PHASE:INDEX): dag::batch_options_t::inject_fault
  std::optional<std::pair<std::string, uint32_t>> inject_fault;
  // TEST ONLY (--test-mpi-stop signal|await, with --mpi): a stop at a known
  // point of the run (cli/mpi_run.hpp); empty: none
  std::string test_mpi_stop;
};

// "R,S" (two decimal elements of F_r) for --test-fixed-rs; throws
// std::invalid_argument naming the option.
inline blinding_t parse_test_fixed_rs(const std::string& text) {
  const size_t comma = text.find(',');
  try {
    if (comma == std::string::npos) throw std::invalid_argument("expected R,S");
    return blinding_t{fr_t::from_decimal(text.substr(0, comma)), fr_t::from_decimal(text.substr(comma + 1))};
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--test-fixed-rs: ") + e.what());
  }
}

// Runs the manifest; returns the exit status (0: every proof written).
int run_manifest(const batch_run_options_t& options);

}  // namespace starzk::cli
