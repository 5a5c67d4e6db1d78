// bench_models.hpp: whether a `starzk bench` row was measured with
// calibrated performance models, and the calibration phase that gets them
// there (docs/policies.md, "Comparing policies fairly").
//
// StarPU's model-driven policies (dmda, dmdas, ...) predict a task's time
// from the history entry of its codelet's model for the worker's kind and
// the task's footprint, and trust it from STARPU_CALIBRATE_MINIMUM samples
// on (runtime/perfmodel_history.hpp). Until then they force the task onto
// the uncalibrated kind to measure it, so a row measured then shows the
// cost of calibrating, not the policy.
//
//   model needs    every (model, footprint) a run's tasks used, with the
//                  kinds of worker that could have run them (from the
//                  run's trace: bench-one records them in its result);
//   model state    for each need and kind, the samples the models held
//                  when the run started (read before it, judged after it,
//                  once the needs are known): "calibrated" when every one
//                  has the minimum, else "uncalibrated:" and the first few
//                  short of it as codelet/kind/footprint (hex, StarPU's);
//                  "unknown" when the run recorded no task;
//   calibration    (--calibrate) before a size's measured rows, runs of
//                  that size with STARPU_CALIBRATE=1: where the rows may
//                  use GPUs, first the CPU workers' side (unless its
//                  entries, known from earlier runs or a short probe, hold
//                  the minimum already), the size under eager on the
//                  cores alone, one run after another until its entries
//                  hold the minimum; then runs under policies
//                  that send tasks to uncalibrated kinds (StarPU's dm*
//                  family: the sweep's own such rows, else dmda), round
//                  after round until no need of theirs is short of
//                  samples; each phase at most --calibrate-rounds runs
//                  (rounds).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "cli/bench_run.hpp"
#include "runtime/trace.hpp"

namespace starzk::cli {

// One per (model, footprint) of the trace's tasks, the kinds merged; in
// (codelet, footprint) order.
std::vector<model_need_t> model_needs(const runtime::trace_t& trace);
nlohmann::json model_needs_to_json(const std::vector<model_need_t>& needs);
// Throws std::runtime_error naming what is malformed.
std::vector<model_need_t> model_needs_from_json(const nlohmann::json& j);

// Samples per (model, kind, footprint), the most any device of the kind
// holds (starzk shares one CUDA history across a node's GPUs), and the
// minimum StarPU wants.
struct model_counts_t {
  unsigned minimum = 10;
  std::map<std::tuple<std::string, std::string, uint32_t>, unsigned> samples;
  unsigned of(const std::string& model, const std::string& arch, uint32_t footprint) const;
};
// The symbols of starzk's codelet models.
std::vector<std::string> codelet_model_symbols();
// This host's models of `symbols` now; throws std::runtime_error naming a
// malformed file.
model_counts_t read_model_counts(const std::vector<std::string>& symbols);

// A need short of samples on one kind.
struct model_gap_t {
  std::string codelet, arch;
  uint32_t footprint = 0;
  unsigned samples = 0;
};
std::vector<model_gap_t> model_gaps(const std::vector<model_need_t>& needs, const model_counts_t& counts);
// "calibrated", "uncalibrated:a/cpu/1f2e3d4c b/cuda/... (+N more)" (the
// first `shown`), or "unknown" without needs.
std::string model_state(const std::vector<model_need_t>& needs, const model_counts_t& counts, size_t shown = 3);
// The gaps for a log line: "msm/cpu/1f2e3d4c (3 of 10 samples), ...".
std::string describe_gaps(const std::vector<model_gap_t>& gaps, unsigned minimum, size_t shown = 6);

// Whether `policy` sends tasks to a kind whose model is uncalibrated to
// measure it (StarPU's dm* policies).
bool calibrates_models(const std::string& policy);
// The runs that calibrate the models of one size: its rows whose policy
// calibrates (baseline rows excepted), else one dmda run shaped like its
// first pipeline row (or first row).
std::vector<bench_config_t> calibration_configs(const std::vector<bench_config_t>& rows);

// The run that measures the CPU workers' side of a size whose rows may use
// GPUs (like.ngpu != 0): `like` under eager on the CPU workers alone
// (ngpu 0), without a trace, every job in flight at once, and jobs enough
// for `proofs` proofs, so that each (model, footprint) a proof uses gets
// that many CPU samples in one run (calibrate_models asks for half again
// the minimum: StarPU leaves out a measurement far off its entry's mean).
// A dm* policy measures the same entries by sending each short task to a
// core as it meets it, for every proof of its run, while the GPU waits; at
// 2^24 that is minutes of single-core MSMs per proof. Nothing for rows
// without GPUs (ngpu 0): the dm* runs measure the cores then.
std::optional<bench_config_t> cpu_calibration_config(const bench_config_t& like, unsigned proofs);

// The model entries that earlier runs of size 2^k used, read from the
// result files in `runs` (a sweep's OUT/runs), so that a sweep run again
// into the same folder knows them before it runs anything; a result it
// cannot read is left out (a run stopped before it wrote one, say).
std::vector<model_need_t> earlier_needs(const std::filesystem::path& runs, unsigned k);

// Runs `configs` with STARPU_CALIBRATE=1 through `run` (round, config),
// round after round, until every model entry they used holds the minimum
// samples, at most `rounds` rounds. Before them, where configs.front() may
// use GPUs, the CPU workers' phase: the CPU entries to measure are those
// of `known` (the needs of earlier runs of the size, e.g. from the sweep's
// output folder), or else those of a probe, one job of configs.front()'s
// shape under the starzk policy (which keeps the large tasks on the GPU;
// a probe that finds no CUDA worker ends the phase: the dm* runs measure
// the cores then); when they hold the minimum already nothing more, else
// cpu_calibration_config() run after run (at most `rounds`) until the
// entries it used hold the minimum. Returns the gaps left (empty:
// calibrated); progress and the outcome go to stderr as log lines.
std::vector<model_gap_t> calibrate_models(const std::vector<bench_config_t>& configs, unsigned rounds,
                                          const std::function<bench_result_t(const bench_config_t&, unsigned)>& run,
                                          const std::vector<model_need_t>& known = {});

}  // namespace starzk::cli
