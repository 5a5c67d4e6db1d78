// The command line's side of the job runner: manifest jobs as runner jobs,
// the shared key loader, the options and the outputs of a finished
// partition or job (batch_jobs.hpp).
#include "cli/batch_jobs.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <utility>

#include "cli/inputs.hpp"
#include "cli/log_lines.hpp"
#include "io/mapped_file.hpp"
#include "io/compact_witness.hpp"
#include "util/config.hpp"

namespace starzk::cli {

std::string partition_label(const manifest_job_t& j, size_t i) {
  return "job " + j.label() + " partition " + std::to_string(i) + " (" + printable(j.witnesses[i].filename().string()) +
         ")";
}

std::string job_key_id(const manifest_job_t& j) { return j.key.string() + "\n" + j.circuit.string(); }

dag::job_spec_t manifest_job_spec(const manifest_job_t& j, std::span<const uint32_t> parts) {
  dag::job_spec_t spec{.key_id = job_key_id(j), .name = j.name, .parts = {}};
  const bool ahead = config::get_switch("STARZK_READ_AHEAD").value_or(true);
  for (const uint32_t i : parts) {
    const std::filesystem::path wpath = j.witnesses.at(i);
    dag::job_part_t part{.index = i, .label = partition_label(j, i), .fill = [wpath](std::span<fr_t> out) {
                           read_witness_into(wpath, out);
                         }};
    if (ahead) part.read_ahead = [wpath] { (void)read_ahead_file(wpath); };
    spec.parts.push_back(std::move(part));
  }
  return spec;
}

std::shared_ptr<const dag::key_bundle_t> load_job_key(const manifest_job_t& j, bool revalidate) {
  using clock = std::chrono::steady_clock;
  const auto t = clock::now();
  // The circuit is read beside a packed key's unpacking (a GPU or all
  // cores busy with square roots); a .params key places its points with
  // the circuit's wires, so it waits for it.
  std::shared_ptr<const r1cs_t> cs;
  std::future<std::shared_ptr<const r1cs_t>> reading;
  if (!j.circuit.empty())
    reading = std::async(std::launch::async,
                         [path = j.circuit.string()] { return std::make_shared<const r1cs_t>(load_circuit(path)); });
  auto circuit = [&]() -> const r1cs_t* {
    if (reading.valid()) cs = reading.get();
    return cs.get();
  };
  key_load_options_t ko{.revalidate = revalidate, .circuit_path = j.circuit.string()};
  const bool packed = !j.key_is_params() && is_packed_key(j.key.string());
  if (packed && reading.valid()) ko.circuit_later = circuit;
  loaded_key_t key = j.key_is_params() ? load_key("", j.key.string(), circuit(), ko)
                                       : load_key(j.key.string(), "", packed ? nullptr : circuit(), ko);
  circuit();  // a circuit the key did not need is still the job's
  auto pk = std::make_shared<const proving_key_t>(std::move(key.pk));
  auto bundle = std::make_shared<const dag::key_bundle_t>(pk, cs, j.key.filename().string(), 0);
  const double seconds = std::chrono::duration<double>(clock::now() - t).count();
  char text[64];
  std::snprintf(text, sizeof text, " and its circuit ready in %.2f s", seconds);
  log_line(stderr, "key_ready", "starzk: key " + j.key.filename().string() + text,
           {{"key", j.key.string()}, {"seconds", seconds}});
  return bundle;
}

runtime::session_options_t batch_session_options(const batch_run_options_t& o) {
  runtime::session_options_t so;
  so.policy = o.policy;
  so.policy_plugin = o.policy_plugin;
  so.ncpu = o.cpus;
  so.ncuda = o.gpus;
  so.profiling = !o.trace.empty();
  return so;
}

dag::job_runner_options_t batch_runner_options(const batch_run_options_t& o, uint64_t budget,
                                               runtime::trace_recorder* trace) {
  return dag::job_runner_options_t{.batch = dag::batch_options_t{.mem_budget = budget,
                                                                 .threads_per_task = o.threads_per_task,
                                                                 .verify = true,
                                                                 .trace = trace,
                                                                 .loaders = dag::default_loaders(),
                                                                 .inject_fault = o.inject_fault},
                                   .auto_budget = o.mem_budget == "auto",
                                   .fixed_rs = o.fixed_rs};
}

void report_previous_run(const manifest_t& m, const batch_outputs_t& outs) {
  for (const std::string& note : outs.notes()) std::fprintf(stderr, "starzk: warning: %s\n", note.c_str());
  if (const std::string w = remove_batch_markers(m); !w.empty())
    std::fprintf(stderr, "starzk: warning: %s\n", w.c_str());
}

std::array<input_file_t, 2> job_inputs(const manifest_job_t& j) {
  return {input_file_t{j.key.string(), "key"}, input_file_t{j.circuit.string(), "circuit"}};
}

std::string write_partition_result(batch_outputs_t& outs, const manifest_job_t& j, size_t jx, size_t i,
                                   const dag::partition_result_t& r, partition_errors_t& errors) {
  std::string why;
  if (!r.ok) {
    errors[{jx, i}] = r.error.empty() ? "failed" : r.error;
    why = r.error.empty() ? r.label + ": failed" : r.error;
  } else {
    try {
      outs.write_partition(jx, i, r.proof, r.publics);
      return "";
    } catch (const std::exception& e) {
      errors[{jx, i}] = std::string("cannot write the proof: ") + e.what();
      why = r.label + ": cannot write the proof: " + e.what();
    }
  }
  return with_inputs(why, job_inputs(j));
}

std::string finish_job_outputs(batch_outputs_t& outs, const manifest_job_t& j, size_t jx) {
  try {
    outs.finish_job_if_done(jx);
    return "";
  } catch (const std::exception& e) {
    return "job " + j.label() + ": cannot write " + printable(j.proofs_bin.string()) + ": " + e.what();
  }
}

}  // namespace starzk::cli
