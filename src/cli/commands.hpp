// The starzk command line: one binary, one file per subcommand. Each
// add_*_command registers its options on the CLI11 app and a callback that
// does the work; errors travel as exceptions to main(), which prints one
// line "starzk: <reason>" on stderr and exits with the status of its kind
// (docs/usage.md, "Exit status"):
//   0 success; 1 the answer is no (a proof INVALID, a witness unsatisfied,
//   a partition of a batch failed); 2 usage (CLI11 parse errors,
//   std::invalid_argument); 3 bad input file (io_error, a named file that
//   does not exist); 4 resources (resource_error, std::bad_alloc); 5 a
//   batch stopped on request (SIGUSR1) with partitions left to prove.
#pragma once

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace starzk::cli {

void add_prove_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_setup_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_cache_command(CLI::App& app);
void add_trace_command(CLI::App& app);
void add_trace_replay_command(CLI::App& trace_cmd);  // starzk trace replay (cmd_trace_replay.cpp)
void add_gen_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_vk_command(CLI::App& app);

enum exit_code_t : int {
  exit_ok = 0,
  exit_no = 1,
  exit_usage = 2,
  exit_bad_input = 3,
  exit_resources = 4,
  exit_stopped = 5
};

// Exit status of a subcommand that ran but reports "no" (verify of a bad
// proof), or another chosen status: main() returns it as is.
struct exit_status {
  int code;
};

// What the machine lacks (no GPU where one was required, StarPU could not
// start): exit status 4.
struct resource_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Set by a command's --json flag: main() then also writes an error as one
// JSON object {"command", "error", "exit"} on stdout, so a monitor reading
// stdout sees every outcome.
inline std::string json_command;

}  // namespace starzk::cli
