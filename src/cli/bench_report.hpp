// bench_report.hpp: what `starzk bench` makes of its rows: the ratios
// against the baseline and against eager, the aligned table printed on
// stdout, and the CSV and JSON files.
//
// Ratios (> 1: this row is faster), within one size:
//   speedup_vs_baseline = s/proof of the one-proof-at-a-time row ÷ this row's
//   speedup_vs_eager    = s/proof of eager at the same (c, j) ÷ this row's
// With repetitions (bench --repeat) a row's s/proof is the mean of its runs,
// printed as "mean ±ci95", and the CSV adds repeats, sd and ci95.
// CSV: one header line (bench_csv_columns()), one line per row; per-worker
// busy fractions joined by ';' in one field; one <phase>_ms column per DAG
// phase = that phase's summed task time per proof, in ms; last, `models`:
// whether the run started from calibrated performance models
// (bench_models.hpp).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/bench_run.hpp"

namespace starzk::cli {

// Where and when the sweep ran (for the JSON and the docs).
struct bench_machine_t {
  std::string date;        // UTC, ISO 8601
  std::string command;     // the command line
  unsigned nproc = 0;      // online CPUs
  std::string cpu_model;   // /proc/cpuinfo "model name"
  std::string load_start;  // /proc/loadavg at start and at the end
  std::string load_end;
};

bench_machine_t describe_machine(const std::string& command);
std::string read_loadavg();

// Fills speedup_vs_baseline and speedup_vs_eager of every row that has a
// row to compare with (failed rows compare with nothing).
void compute_ratios(std::vector<bench_result_t>& rows);

// The phases with a CSV column, in DAG order.
const std::vector<std::string>& bench_phases();
// A phase's task time per proof in ms (0 without proofs): the tasks of that
// name and of its form for small GPUs ("spmv" with "spmv_passes", "ntt_h"
// with "ntt_h_passes"), so a row's columns do not depend on the memory
// plan.
double phase_ms_per_proof(const bench_result_t& r, const std::string& phase);
std::vector<std::string> bench_csv_columns();

void print_bench_table(const std::vector<bench_result_t>& rows, std::ostream& out);
std::string bench_csv(const std::vector<bench_result_t>& rows);
nlohmann::json bench_json(const std::vector<bench_result_t>& rows, const bench_machine_t& machine);

}  // namespace starzk::cli
