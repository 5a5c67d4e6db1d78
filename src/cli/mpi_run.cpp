// mpi_run.cpp: the multi-node batch (see mpi_run.hpp). Three steps, each
// rank running them in the same order:
//   1. prove: the partitions this rank owns go through dag::batch_t, as in
//      the single-process path, with the keys they need loaded once here;
//   2. gather: every result moves to rank 0 (dag::gather_results);
//   3. write (rank 0): the outputs in manifest order; then rank 0's exit
//      status is shared with every rank (dag::share_status).
// Failures of a partition (unreadable witness, key that cannot load, a
// DAG that fails) are results like the others: they travel to rank 0,
// which names them. A failure that stops a rank from reaching step 2 ends
// the whole run (dag::mpi_session_t::abort_all).
#include "cli/mpi_run.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/batch_outputs.hpp"
#include "cli/inputs.hpp"
#include "cli/manifest.hpp"
#include "dag/batch.hpp"
#include "dag/key_bundle.hpp"
#include "dag/mpi_gather.hpp"
#include "dag/mpi_session.hpp"
#include "io/wtns.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace starzk::cli {

namespace {

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t0) { return std::chrono::duration<double>(steady::now() - t0).count(); }

// One partition of the batch, by global index (manifest order).
struct slot_t {
  size_t job = 0, index = 0;
  std::string label;
};

std::vector<slot_t> list_partitions(const manifest_t& m) {
  std::vector<slot_t> out;
  for (size_t j = 0; j < m.jobs.size(); ++j)
    for (size_t i = 0; i < m.jobs[j].witnesses.size(); ++i)
      out.push_back({j, i,
                     "job " + m.jobs[j].label() + " partition " + std::to_string(i) + " (" +
                         m.jobs[j].witnesses[i].filename().string() + ")"});
  return out;
}

dag::partition_result_t failed_result(const std::string& label, const std::string& what) {
  dag::partition_result_t r;
  r.label = label;
  r.error = what.find(label) == std::string::npos ? label + ": " + what : what;
  return r;
}

// "run.json" -> "run.rank3.json" for rank 3 (rank 0 keeps the name).
std::string trace_path(const std::string& path, int rank) {
  if (rank == 0) return path;
  std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + ".rank" + std::to_string(rank) + p.extension().string())).string();
}

// Step 1: prove the partitions this rank owns; results by global index.
std::map<size_t, dag::partition_result_t> prove_mine(const manifest_t& m, const std::vector<slot_t>& slots,
                                                     const batch_run_options_t& o, const dag::mpi_session_t& mpi,
                                                     runtime::trace_recorder* recorder) {
  std::map<size_t, dag::partition_result_t> local;
  std::map<std::pair<uint32_t, uint32_t>, size_t> global_of;  // (job seq, index) -> global index
  std::vector<std::vector<size_t>> mine(m.jobs.size());
  std::map<std::string, size_t> key_uses;  // key identity -> jobs here still to submit
  auto key_id = [&](size_t j) { return m.jobs[j].key.string() + "\n" + m.jobs[j].circuit.string(); };
  for (size_t g = 0; g < slots.size(); ++g)
    if (dag::partition_owner(g, mpi.size()) == mpi.rank()) mine[slots[g].job].push_back(g);
  for (size_t j = 0; j < m.jobs.size(); ++j)
    if (!mine[j].empty()) ++key_uses[key_id(j)];

  std::map<std::string, std::shared_ptr<const dag::key_bundle_t>> keys;
  dag::batch_t batch(dag::batch_options_t{.mem_budget = dag::parse_memory_budget(o.mem_budget),
                                          .threads_per_task = o.threads_per_task,
                                          .verify = true,
                                          .trace = recorder,
                                          .loaders = dag::default_loaders()});
  auto record = [&](dag::partition_result_t r) {
    const size_t g = global_of.at({r.job, r.index});
    local[g] = std::move(r);
  };
  for (size_t j = 0; j < m.jobs.size(); ++j) {
    if (mine[j].empty()) continue;
    const manifest_job_t& job = m.jobs[j];
    std::shared_ptr<const dag::key_bundle_t> key;
    try {
      auto& slot = keys[key_id(j)];
      if (!slot) {
        std::shared_ptr<const r1cs_t> cs;
        if (!job.circuit.empty()) cs = std::make_shared<const r1cs_t>(load_circuit(job.circuit.string()));
        const key_load_options_t ko{.revalidate = o.revalidate, .circuit_path = job.circuit.string()};
        loaded_key_t k = job.key_is_params() ? load_key("", job.key.string(), cs.get(), ko)
                                             : load_key(job.key.string(), "", cs.get(), ko);
        slot = std::make_shared<const dag::key_bundle_t>(std::make_shared<const proving_key_t>(std::move(k.pk)), cs,
                                                         job.key.filename().string(), 0);
      }
      key = slot;
    } catch (const std::exception& e) {
      for (size_t g : mine[j])
        local[g] = failed_result(slots[g].label, std::string("cannot load the key: ") + e.what());
    }
    if (key) {
      const uint32_t seq = batch.open_job(key, job.name);
      for (size_t g : mine[j]) {
        const size_t i = slots[g].index;
        global_of[{seq, uint32_t(i)}] = g;
        const std::filesystem::path wpath = job.witnesses[i];
        try {
          batch.submit(
              seq, uint32_t(i), [wpath](std::span<fr_t> out) { read_wtns_into(wpath, out); }, slots[g].label,
              o.fixed_rs);
        } catch (const std::exception& e) {
          local[g] = failed_result(slots[g].label, e.what());
        }
        while (auto r = batch.poll()) record(std::move(*r));
      }
      batch.close_job(seq);
    }
    if (--key_uses[key_id(j)] == 0) keys.erase(key_id(j));
  }
  while (auto r = batch.wait_next()) record(std::move(*r));
  return local;
}

// Step 3 (rank 0): every output, in manifest order; returns the failures.
size_t write_outputs(const manifest_t& m, const std::vector<slot_t>& slots,
                     const std::vector<dag::partition_result_t>& all, batch_outputs_t& outs, bool quiet) {
  size_t failures = 0, g = 0;
  for (size_t jx = 0; jx < m.jobs.size(); ++jx) {
    const manifest_job_t& job = m.jobs[jx];
    std::vector<proof_t> proofs;
    size_t failed = 0;
    for (size_t i = 0; i < job.witnesses.size(); ++i, ++g) {
      const dag::partition_result_t& r = all[g];
      if (!r.ok) {
        ++failed;
        std::fprintf(stderr, "starzk: %s\n", r.error.empty() ? (slots[g].label + ": failed").c_str() : r.error.c_str());
        continue;
      }
      proofs.push_back(r.proof);
      try {
        outs.write_partition(jx, i, r.proof, r.publics);
      } catch (const std::exception& e) {
        ++failed;
        std::fprintf(stderr, "starzk: %s: cannot write the proof: %s\n", slots[g].label.c_str(), e.what());
      }
    }
    if (failed == 0 && !job.proofs_bin.empty()) {
      try {
        outs.finish_job(jx, proofs);
      } catch (const std::exception& e) {
        failed = std::max<size_t>(failed, 1);
        std::fprintf(stderr, "starzk: job %s: cannot write %s: %s\n", job.label().c_str(), job.proofs_bin.c_str(),
                     e.what());
      }
    }
    if (!quiet || failed)
      std::printf("job %s: %zu/%zu proofs %s\n", job.label().c_str(),
                  job.witnesses.size() - std::min(failed, job.witnesses.size()), job.witnesses.size(),
                  failed ? "FAILED" : "written");
    failures += failed;
  }
  return failures;
}

}  // namespace

int run_manifest_mpi(const batch_run_options_t& o) {
  const auto t0 = steady::now();
  runtime::session_options_t so;
  so.policy = o.policy;
  so.policy_plugin = o.policy_plugin;
  so.ncpu = o.cpus;
  so.profiling = !o.trace.empty();
  runtime::starpu_session session(so);
  dag::mpi_session_t mpi;  // ends (starpu_mpi_shutdown) before the StarPU session

  int status = 1;
  try {
    const manifest_t m = read_manifest(o.manifest);
    check_manifest_inputs(m);
    // Rank 0 writes: it checks the outputs against the inputs and clears
    // what an earlier run left before any rank proves. Every partition is
    // proved (no resume across ranks: the journal is rank 0's).
    std::unique_ptr<batch_outputs_t> outs;
    if (mpi.is_root()) outs = std::make_unique<batch_outputs_t>(m, true);
    const std::vector<slot_t> slots = list_partitions(m);
    std::unique_ptr<runtime::trace_recorder> recorder;
    if (!o.trace.empty()) {
      recorder = std::make_unique<runtime::trace_recorder>();
      recorder->set_meta("policy", session.policy_name());
      recorder->set_meta("manifest", m.file.string());
      recorder->set_meta("mpi_rank", std::to_string(mpi.rank()));
    }
    if (mpi.is_root() && !o.quiet)
      std::printf(
          "starzk: %zu jobs, %zu partitions on %d MPI ranks (partition p on rank p mod %d), policy %s, "
          "%u CPU + %u CUDA workers on rank 0\n",
          m.jobs.size(), slots.size(), mpi.size(), mpi.size(), session.policy_name().c_str(), session.cpu_workers(),
          session.cuda_workers());
    std::fflush(stdout);

    const auto t_prove = steady::now();
    const std::map<size_t, dag::partition_result_t> local = prove_mine(m, slots, o, mpi, recorder.get());
    if (!o.quiet)
      std::printf("starzk: rank %d: %zu partitions proved in %.2f s\n", mpi.rank(), local.size(),
                  seconds_since(t_prove));
    if (recorder) runtime::save_trace(recorder->snapshot(), trace_path(o.trace, mpi.rank()));
    std::fflush(stdout);

    const std::vector<dag::partition_result_t> all = dag::gather_results(mpi, slots.size(), local);
    if (mpi.is_root()) {
      const size_t failures = write_outputs(m, slots, all, *outs, o.quiet);
      const double s = seconds_since(t0);
      const size_t ok = slots.size() - std::min(failures, slots.size());
      std::printf("%zu of %zu proofs verified and written in %.2f s (%.2f proofs/s) on %d rank%s%s\n", ok, slots.size(),
                  s, s > 0 ? double(ok) / s : 0.0, mpi.size(), mpi.size() == 1 ? "" : "s",
                  failures ? "; some partitions FAILED" : "");
      status = failures ? 1 : 0;
    }
    std::fflush(stdout);
    status = dag::share_status(mpi, status);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "starzk: rank %d of %d: %s\n", mpi.rank(), mpi.size(), e.what());
    dag::mpi_session_t::abort_all(1);
  }
  return status;
}

}  // namespace starzk::cli
