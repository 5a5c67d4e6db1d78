// perfmodel_history.hpp: what StarPU's history-based performance models
// hold, read from their files: per worker architecture and footprint, the
// number of measured samples and their mean.
//
// StarPU trusts a history entry once it holds STARPU_CALIBRATE_MINIMUM
// samples (10 by default); until then its model-driven policies (dmda,
// dmdas, ...) force the task onto the uncalibrated architecture to measure
// it, which is why a cold model makes them look slow (docs/policies.md,
// "Comparing policies fairly"). `starzk bench` reads these counts to say
// whether a row was measured with calibrated models, and heteroprio's
// buckets take their slow factors from the means (dag/heteroprio.hpp).
//
// The files are StarPU 1.3's text format, version 45 (docs/formats.md
// §10): after the version, the number of architecture combinations;
// per combination its devices (type, device id, cores) and per
// implementation the number of entries, the regression parameters (9
// values), the non-linear ones (3), the multiple-regression coefficients
// (a count, then that many values) and one line per entry: footprint (hex),
// size, flops, mean (µs), deviation, sum, sum of squares, samples (older
// files lack the flops). Lines starting with '#' are comments.
//
// The reader is ours rather than StarPU's starpu_perfmodel_load_symbol:
// StarPU's parser asserts (aborts the process) on a malformed file, and its
// architecture table cannot be rebuilt once a StarPU session of the same
// process has shut down (the next load writes through a freed table), while
// starzk reads the models between runs and in tests that start StarPU many
// times. Every count is bounded and every error names the file and line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace starzk::runtime {

struct history_entry_t {
  std::string arch;             // "cpu", "cuda", "opencl", "mic", "mpi_ms"
  int device = 0;               // the device id StarPU recorded
  unsigned impl = 0;            // the codelet implementation
  std::uint32_t footprint = 0;  // StarPU's footprint of the task (the history key)
  std::uint64_t size = 0;       // the model's size_base of the task
  double mean_us = 0;           // mean measured time
  double dev_us = 0;            // its standard deviation
  unsigned nsample = 0;         // measurements behind the mean
};

// Every entry of a model file, for combinations of one device (StarPU's
// per-worker models; combined workers are left out). Throws
// std::runtime_error("FILE: line N: ...") on a malformed or unreadable
// file, or one of another format version.
std::vector<history_entry_t> read_history_file(const std::filesystem::path& file);

// Write `entries` as one model file in StarPU 1.3's format (version 45):
// one combination per architecture among them ("cpu", "cuda"; one device,
// id 0, one core, implementation 0, as StarPU writes a single-device
// worker's model), no regression, each entry with its sum and sum of
// squares rebuilt from the mean, deviation and samples. Through a
// temporary and a rename. Throws std::invalid_argument on another
// architecture or implementation, std::runtime_error when the file cannot
// be written. The one writer of the format: `starzk trace replay
// --models-from-trace` gives a simulation the times a trace recorded.
void write_history_file(const std::filesystem::path& file, const std::vector<history_entry_t>& entries);

// This host's model of `symbol` (perfmodel_codelet_dir()/symbol.hostname,
// perfmodels.hpp); empty when StarPU has none yet.
std::vector<history_entry_t> read_history(const std::string& symbol);

// The samples StarPU wants per entry before it trusts it:
// STARPU_CALIBRATE_MINIMUM, else 10 (StarPU 1.3's default). Throws
// std::runtime_error naming the variable when it is not a number.
unsigned calibration_minimum();

}  // namespace starzk::runtime
