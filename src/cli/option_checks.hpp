// Checks of the numeric and placement options, so that an absurd value is
// a clear error naming the option and a non-zero exit, never a crash.
//
// Without them `--threads 100000` forked threads until memory ran out,
// `--place spmv=cuda` on a machine without a GPU reached a StarPU assertion
// (SIGABRT), `--mem-budget 0` meant "no limit", and `--cpus -1` or
// `--gpus -5` were taken as "StarPU's default". The rules:
//   --threads N            0 (every core) .. the CPUs this process may use
//   --threads-per-task N   1 .. the same
//   --cpus N               0 .. the CPUs this process may use
//   --gpus N               0 .. 64 on the command line; after StarPU starts,
//                          at most the CUDA workers it found
//   --mem-budget B         auto, none, or a size of at least 1 MiB
//   --place C=W,...        each codelet pinned to cuda needs a CUDA worker,
//                          each pinned to cpu a CPU worker (checked once
//                          StarPU has started, before any task)
// CLI11 reports a failed validator as "OPTION: problem" and exits with its
// parse-error status (non-zero); the checks made after StarPU starts throw
// std::invalid_argument with the same form, which main() prints.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace starzk::cli {

// The CPUs this process may run on (its affinity at start; all cores if
// the platform cannot tell).
unsigned usable_cpus();

// Validators for CLI11 ->check(...).
CLI::Validator thread_count(bool zero_means_all);  // --threads (true), --threads-per-task (false)
CLI::Validator cpu_worker_count();                 // --cpus
CLI::Validator gpu_worker_count();                 // --gpus
CLI::Validator memory_budget();                    // --mem-budget

// --log-format, --quiet and --verbose, which every command has
// (cli/log_lines.hpp). --verbose also prints the settings in force: the
// environment variables starzk reads that are set (event "settings").
void add_log_options(CLI::App* cmd);

// After StarPU started with these workers: --gpus asked for more CUDA
// workers than exist, or --place pins a codelet to a kind of worker that
// is absent. requested_gpus < 0: not given.
void check_workers(int requested_gpus, const std::string& place, unsigned cpu_workers, unsigned cuda_workers);

}  // namespace starzk::cli
