// batch_jobs.hpp: what the command line brings to the job runner
// (dag/job_runner.hpp), written once for the three commands that run it:
// `prove --manifest` (cmd_batch.cpp), `prove --mpi` (mpi_run.cpp) and
// `bench` (bench_run.cpp).
//   - a manifest job as a runner job: its partitions labelled "job 'name'
//     partition i (witness file)", each witness read from its file straight
//     into the batch's buffer;
//   - the key loader: a job's key and circuit (the circuit read beside a
//     packed key's unpacking), checked and vouched for by load_key
//     (inputs.hpp), registered as a dag::key_bundle_t, one stderr line when
//     ready. Jobs naming the same key and circuit share it (the runner
//     keys it by job_key_id);
//   - the StarPU session and runner options from `prove`'s options;
//   - what a batch that writes outputs does with a finished partition and a
//     finished job (batch_outputs.hpp), with the line that says why not.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cli/batch_marker.hpp"
#include "cli/batch_outputs.hpp"
#include "cli/batch_run.hpp"
#include "cli/file_errors.hpp"
#include "cli/manifest.hpp"
#include "dag/job_runner.hpp"
#include "runtime/starpu_session.hpp"

namespace starzk::cli {

// "job 'name' partition i (witness file name)", control characters escaped.
std::string partition_label(const manifest_job_t& j, size_t i);

// Jobs naming the same key and circuit share one loaded key.
std::string job_key_id(const manifest_job_t& j);

// Job j as a runner job proving the partitions `parts` (indices, in order),
// their witnesses read from the manifest's files.
dag::job_spec_t manifest_job_spec(const manifest_job_t& j, std::span<const uint32_t> parts);

// Job j's key and circuit, loaded (load_key: revalidate as --revalidate)
// and registered; StarPU must be running. Throws what load_key throws.
std::shared_ptr<const dag::key_bundle_t> load_job_key(const manifest_job_t& j, bool revalidate);

// The StarPU session `prove --manifest` asks for (policy, plug-in, workers,
// profiling when a trace is recorded).
runtime::session_options_t batch_session_options(const batch_run_options_t& o);

// The runner's options for `prove --manifest`: the memory budget (`budget`,
// parsed from o.mem_budget; "auto" shrinks once a key is resident),
// threads, the batch's loaders, every proof verified, the test hooks.
dag::job_runner_options_t batch_runner_options(const batch_run_options_t& o, uint64_t budget,
                                               runtime::trace_recorder* trace);

// Before any proving: the journals' warnings and the markers of an earlier
// run removed (a warning if they cannot be), on stderr.
void report_previous_run(const manifest_t& m, const batch_outputs_t& outs);

// The files a job's messages may speak of by role ("the key").
std::array<input_file_t, 2> job_inputs(const manifest_job_t& j);

// Partition i of job j (index jx) came back: its outputs are written and
// journalled when it succeeded. Returns "" then; else the line (without
// "starzk: ") that says why it is not done, the result's error or "<label>:
// cannot write the proof: ..." with the job's inputs it speaks of named
// (with_inputs), and `errors` gets the reason for the marker.
std::string write_partition_result(batch_outputs_t& outs, const manifest_job_t& j, size_t jx, size_t i,
                                   const dag::partition_result_t& r, partition_errors_t& errors);

// Job jx's proofs file once every partition is done (finish_job_if_done).
// Returns "" or the line "job 'name': cannot write FILE: why".
std::string finish_job_outputs(batch_outputs_t& outs, const manifest_job_t& j, size_t jx);

}  // namespace starzk::cli
