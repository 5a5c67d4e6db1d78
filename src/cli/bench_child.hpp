// bench_child.hpp: one `starzk bench` configuration run in a child process
// (the hidden `starzk bench-one` subcommand, cmd_bench.cpp), so that every
// configuration gets a fresh StarPU with its policy and its own peak RSS,
// and a policy that stalls cannot take the whole sweep with it.
#pragma once

#include <filesystem>

#include "cli/bench_run.hpp"

namespace starzk::cli {

// How long past its timeout a child may take to report before it is killed.
inline constexpr unsigned k_bench_kill_grace_s = 300;

// Runs `starzk bench-one` for cfg (this executable, /proc/self/exe) and
// reads the result it writes to result_file. With timeout_s the child stops
// proving after that many seconds and reports what finished (bench-one
// --deadline); one that has not exited k_bench_kill_grace_s later (stuck
// loading, say) is killed. A child that leaves no result gives a result
// whose error says how it ended; the peak RSS falls back to the child's
// rusage. Throws std::runtime_error when fork or wait fails.
bench_result_t run_child(const bench_config_t& cfg, const std::filesystem::path& result_file, unsigned timeout_s);

}  // namespace starzk::cli
