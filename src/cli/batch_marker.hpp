// batch_marker.hpp: the file that tells a script or an operator how a
// manifest batch ended, without reading its log.
//
// The journal (batch_outputs.hpp) lets a rerun resume, but it is per job and
// binary; a Slurm epilogue or a pipeline wants one answer per batch: "done,
// here are the files" or "not done, this is what is missing". Every run of
// `starzk prove --manifest M` removes both markers before it proves anything
// and, when it ends by itself, writes exactly one of them atomically:
//   M.complete  every partition proved: JSON naming every output file
//               {"manifest", "complete": true, "partitions", "outputs": [...]}
//   M.partial   some partition failed or was not proved (a stop asked for
//               with SIGUSR1): the outputs there are, and what is missing
//               {"manifest", "complete": false, "partitions", "proved",
//                "stopped", "outputs": [...], "missing": [{"job",
//                "partition", "witness", "reason"}], "missing_outputs": [...]}
// A run killed outright (SIGKILL, SIGTERM, a lost node) leaves neither: the
// batch did not end, and the rerun resumes from the journals. A marker that
// cannot be written is a warning, never a failure of the batch (the proofs
// are on disk). docs/reliability.md §5.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "cli/batch_outputs.hpp"
#include "cli/manifest.hpp"

namespace starzk::cli {

std::filesystem::path complete_marker(const manifest_t& m);  // M.complete
std::filesystem::path partial_marker(const manifest_t& m);   // M.partial

// Removes both markers of an earlier run, and the temporaries of a run
// killed while it wrote one (remove_stale_temporaries); returns a warning,
// or "".
std::string remove_batch_markers(const manifest_t& m);

// Why a partition is not done, by (job index, partition): a failure's
// message. Partitions not done and not listed here were not proved.
using partition_errors_t = std::map<std::pair<size_t, size_t>, std::string>;

// Writes M.complete or M.partial from what `outs` says is done; `stopped`
// names the signal that stopped submission ("" if none). Returns a
// warning, or "".
std::string write_batch_marker(const manifest_t& m, const batch_outputs_t& outs, const partition_errors_t& errors,
                               const std::string& stopped);

}  // namespace starzk::cli
