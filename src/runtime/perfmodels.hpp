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
// nothing (StarPU writes an empty file for each model a run loaded). Where
// this host has measured the symbol, its file gains the shipped entries
// (per architecture and footprint) it lacks, and a shipped entry replaces
// one of the host's only where the host's has fewer samples than StarPU's
// calibration minimum and the shipped one has not: what StarPU learned on
// the spot and trusts is never overwritten, and a warm host (one whose
// files hold other sizes) still starts the shipped sizes calibrated.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace starzk::runtime {

// The folder StarPU 1.3 reads codelet models from (…/codelets/45).
std::filesystem::path perfmodel_codelet_dir();
// The host name StarPU files models under.
std::string perfmodel_hostname();

// Installs the models of `from` (a folder holding codelets/45/<symbol>.<host>
// files, or those files directly) as above. Returns how many of this host's
// files it wrote (copied or merged). Throws std::runtime_error naming the folder
// when it does not exist or a copy fails. Call before starpu_init.
size_t seed_perfmodels(const std::filesystem::path& from);

}  // namespace starzk::runtime
