// perfmodels.hpp: calibrated StarPU performance models shipped with the
// repository, installed where StarPU looks for them.
//
// The dm* policies (and the starzk policies' prefetch) predict a task's time
// from STARPU_HISTORY_BASED models that StarPU fills as tasks run and keeps
// per host in <dir>/codelets/45/<symbol>.<hostname>, dir being
// $STARPU_PERF_MODEL_DIR or $STARPU_HOME/.starpu/sampling (STARPU_HOME
// defaults to HOME) and hostname $STARPU_HOSTNAME or the short host name.
// Without history, a fresh node runs its first jobs in "calibration" with
// poor placements. bench/perfmodels/<machine>/ holds models calibrated on
// that machine (docs/benchmarks.md says how they were made); seeding copies
// each <symbol>.<anyhost> file of such a folder to <symbol>.<thishost>
// when this host has no model of that symbol yet, or only one that measured
// nothing (StarPU writes an empty file for each model a run loaded), so
// what StarPU learned on the spot is never overwritten.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace starzk::runtime {

// The folder StarPU 1.3 reads codelet models from (…/codelets/45).
std::filesystem::path perfmodel_codelet_dir();
// The host name StarPU files models under.
std::string perfmodel_hostname();

// Copies the models of `from` (a folder holding codelets/45/<symbol>.<host>
// files, or those files directly) that this host lacks or holds empty.
// Returns how many were copied. Throws std::runtime_error naming the folder
// when it does not exist or a copy fails. Call before starpu_init.
size_t seed_perfmodels(const std::filesystem::path& from);

}  // namespace starzk::runtime
