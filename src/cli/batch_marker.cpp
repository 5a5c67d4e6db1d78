// batch_marker.cpp: M.complete and M.partial (see batch_marker.hpp).
#include "cli/batch_marker.hpp"

#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/atomic_file.hpp"

namespace starzk::cli {

namespace fs = std::filesystem;

namespace {

fs::path with_suffix(const manifest_t& m, const char* suffix) {
  fs::path p = m.file;
  p += suffix;
  return p;
}

}  // namespace

fs::path complete_marker(const manifest_t& m) { return with_suffix(m, ".complete"); }
fs::path partial_marker(const manifest_t& m) { return with_suffix(m, ".partial"); }

std::string remove_batch_markers(const manifest_t& m) {
  std::string warning;
  for (const fs::path& p : {complete_marker(m), partial_marker(m)}) {
    std::error_code ec;
    fs::remove(p, ec);
    if (ec) warning += (warning.empty() ? "" : "; ") + p.string() + ": cannot remove the marker: " + ec.message();
    remove_stale_temporaries(p);  // what a run killed while it wrote this marker left
  }
  return warning;
}

std::string write_batch_marker(const manifest_t& m, const batch_outputs_t& outs, const partition_errors_t& errors,
                               const std::string& stopped) {
  nlohmann::json outputs = nlohmann::json::array(), missing = nlohmann::json::array(),
                 missing_outputs = nlohmann::json::array();
  size_t proved = 0;
  for (size_t jx = 0; jx < m.jobs.size(); ++jx) {
    const manifest_job_t& j = m.jobs[jx];
    for (size_t i = 0; i < j.witnesses.size(); ++i) {
      if (outs.done(jx, i)) {
        ++proved;
        if (!j.out_dir.empty()) {
          outputs.push_back(j.proof_json(i).string());
          outputs.push_back(j.public_json(i).string());
        }
        continue;
      }
      const auto e = errors.find({jx, i});
      missing.push_back({{"job", j.name},
                         {"partition", i},
                         {"witness", j.witnesses[i].string()},
                         {"reason", e != errors.end() ? "failed: " + e->second : std::string("not proved")}});
    }
    if (!j.proofs_bin.empty()) {
      std::error_code ec;
      const bool written = outs.done_count(jx) == j.witnesses.size() && fs::exists(j.proofs_bin, ec);
      (written ? outputs : missing_outputs).push_back(j.proofs_bin.string());
    }
  }
  const bool complete = missing.empty() && missing_outputs.empty();
  nlohmann::json marker = {{"manifest", m.file.string()},
                           {"complete", complete},
                           {"partitions", m.partitions()},
                           {"proved", proved},
                           {"outputs", outputs}};
  if (!complete) {
    marker["stopped"] = stopped.empty() ? nlohmann::json(nullptr) : nlohmann::json(stopped);
    marker["missing"] = missing;
    marker["missing_outputs"] = missing_outputs;
  }
  const fs::path path = complete ? complete_marker(m) : partial_marker(m);
  try {
    write_file_atomic(path, marker.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } catch (const std::exception& e) {
    return std::string(e.what()) + " (the batch marker; the proofs are written)";
  }
  return "";
}

}  // namespace starzk::cli
