// bench_report.cpp: the ratios, the stdout table, the CSV and the JSON of
// `starzk bench` (see bench_report.hpp for the definitions).
#include "cli/bench_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <thread>
#include <tuple>

namespace starzk::cli {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// A ratio, or "-" when there is nothing to compare with.
std::string ratio(double v) { return v > 0 ? fmt("%.2f", v) : "-"; }

double busy_mean(const bench_result_t& r) {
  if (r.workers.empty()) return 0;
  double s = 0;
  for (const bench_worker_t& w : r.workers) s += w.busy_fraction;
  return s / double(r.workers.size());
}

// Busy fraction per worker, in percent: "97/95" (or mean [min-max] when
// there are too many workers for one column).
std::string busy_text(const bench_result_t& r) {
  if (r.workers.empty()) return "-";
  if (r.workers.size() > 8) {
    double lo = 1, hi = 0;
    for (const bench_worker_t& w : r.workers) lo = std::min(lo, w.busy_fraction), hi = std::max(hi, w.busy_fraction);
    return fmt("%.0f", 100 * busy_mean(r)) + " [" + fmt("%.0f", 100 * lo) + "-" + fmt("%.0f", 100 * hi) + "]";
  }
  std::string s;
  for (const bench_worker_t& w : r.workers) {
    if (!s.empty()) s += '/';
    s += fmt("%.0f", 100 * w.busy_fraction);
  }
  return s;
}

}  // namespace

double phase_ms_per_proof(const bench_result_t& r, const std::string& phase) {
  double total_s = 0;
  for (const bench_phase_t& p : r.phases)
    if (p.phase == phase || p.phase == phase + "_passes") total_s += p.total_s;
  return r.proofs ? 1000.0 * total_s / double(r.proofs) : 0;
}

namespace {

std::string policy_text(const bench_result_t& r) {
  return r.config.baseline ? r.config.policy + ", 1 at a time" : r.config.policy;
}

// The models column of the table: the state without its list (the CSV and
// the JSON have it).
std::string models_text(const bench_result_t& r) {
  const size_t colon = r.models.find(':');
  return r.models.empty() ? "-" : colon == std::string::npos ? r.models : r.models.substr(0, colon);
}

std::string status_text(const bench_result_t& r) {
  if (r.ok()) return "ok";
  return r.error.empty() ? "FAILED" : "FAILED: " + r.error;
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string first_line_with(const std::string& file, const std::string& prefix) {
  std::ifstream f(file);
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(prefix, 0) == 0) return line;
  return {};
}

}  // namespace

std::string read_loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  if (!(f >> a >> b >> c)) return "unknown";
  return a + " " + b + " " + c;
}

bench_machine_t describe_machine(const std::string& command) {
  bench_machine_t m;
  m.command = command;
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.date = buf;
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  m.nproc = n > 0 ? unsigned(n) : std::thread::hardware_concurrency();
  const std::string model = first_line_with("/proc/cpuinfo", "model name");
  const size_t colon = model.find(':');
  m.cpu_model = colon == std::string::npos ? "unknown" : model.substr(model.find_first_not_of(" \t", colon + 1));
  m.load_start = read_loadavg();
  return m;
}

void compute_ratios(std::vector<bench_result_t>& rows) {
  std::map<unsigned, double> baseline;                               // k -> s/proof
  std::map<std::tuple<unsigned, unsigned, unsigned>, double> eager;  // (k, c, j) -> s/proof
  for (const bench_result_t& r : rows) {
    if (!r.ok() || r.s_per_proof <= 0) continue;
    if (r.config.baseline)
      baseline[r.config.log2] = r.s_per_proof;
    else if (r.config.policy == "eager")
      eager[{r.config.log2, r.config.concurrency, r.config.partitions}] = r.s_per_proof;
  }
  for (bench_result_t& r : rows) {
    r.speedup_vs_baseline = r.speedup_vs_eager = 0;
    if (!r.ok() || r.s_per_proof <= 0) continue;
    if (auto b = baseline.find(r.config.log2); b != baseline.end()) r.speedup_vs_baseline = b->second / r.s_per_proof;
    if (r.config.baseline) continue;
    if (auto e = eager.find({r.config.log2, r.config.concurrency, r.config.partitions}); e != eager.end())
      r.speedup_vs_eager = e->second / r.s_per_proof;
  }
}

const std::vector<std::string>& bench_phases() {
  static const std::vector<std::string> p = {"spmv",  "prep_msm", "ntt_h",    "msm_h",    "msm_l",
                                             "msm_a", "msm_b1",   "b_g2_msm", "assemble", "free"};
  return p;
}

std::vector<std::string> bench_csv_columns() {
  std::vector<std::string> c = {"log2",
                                "mode",
                                "policy",
                                "concurrency",
                                "partitions",
                                "jobs",
                                "proofs",
                                "verified",
                                "cpu_workers",
                                "cuda_workers",
                                "wall_s",
                                "s_per_proof",
                                "repeats",
                                "s_per_proof_sd",
                                "s_per_proof_ci95",
                                "span_s_per_proof",
                                "proofs_per_s",
                                "speedup_vs_baseline",
                                "speedup_vs_eager",
                                "latency_mean_s",
                                "latency_p95_s",
                                "latency_max_s",
                                "busy_mean",
                                "busy_per_worker",
                                "gpu_s_per_proof",
                                "gpu_busy",
                                "peak_rss_mib"};
  for (const std::string& p : bench_phases()) c.push_back(p + "_ms");
  c.push_back("status");
  c.push_back("models");
  return c;
}

void print_bench_table(const std::vector<bench_result_t>& rows, std::ostream& out) {
  const std::vector<std::string> head = {"k",        "policy", "c",       "j",        "proofs",  "s/proof",
                                         "span/pf",  "x base", "x eager", "lat mean", "lat p95", "busy %",
                                         "GPU s/pf", "GPU %",  "RSS MiB", "models",   "status"};
  std::vector<std::vector<std::string>> cells;
  for (const bench_result_t& r : rows) {
    const bench_config_t& c = r.config;
    cells.push_back(
        {std::to_string(c.log2), policy_text(r), std::to_string(c.concurrency), std::to_string(c.partitions),
         std::to_string(r.verified) + "/" + std::to_string(r.proofs),
         r.repeats > 1 ? fmt("%.3f", r.s_per_proof) + fmt(" ±%.3f", r.s_per_proof_ci95) : fmt("%.3f", r.s_per_proof),
         r.span_s_per_proof > 0 ? fmt("%.3f", r.span_s_per_proof) : "-", ratio(r.speedup_vs_baseline),
         ratio(r.speedup_vs_eager), fmt("%.2f", r.latency_mean_s), fmt("%.2f", r.latency_p95_s), busy_text(r),
         r.gpu_s_per_proof > 0 ? fmt("%.3f", r.gpu_s_per_proof) : "-",
         r.gpu_busy > 0 ? fmt("%.0f", 100 * r.gpu_busy) : "-", fmt("%.0f", double(r.peak_rss_kib) / 1024.0),
         models_text(r), status_text(r)});
  }
  std::vector<size_t> width(head.size());
  for (size_t i = 0; i < head.size(); ++i) width[i] = head[i].size();
  for (const auto& row : cells)
    for (size_t i = 0; i + 1 < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  // Text columns (policy, models, status) left-aligned, numbers right-aligned.
  auto line = [&](const std::vector<std::string>& row) {
    std::string s;
    for (size_t i = 0; i < row.size(); ++i) {
      const bool left = i == 1 || i + 2 >= row.size();
      const std::string pad(i + 1 == row.size() ? 0 : width[i] - std::min(width[i], row[i].size()), ' ');
      s += (i ? "  " : "") + (left ? row[i] + pad : pad + row[i]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << '\n';
  };
  line(head);
  for (const auto& row : cells) line(row);
}

std::string bench_csv(const std::vector<bench_result_t>& rows) {
  std::ostringstream out;
  const std::vector<std::string> cols = bench_csv_columns();
  for (size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << cols[i];
  out << '\n';
  for (const bench_result_t& r : rows) {
    const bench_config_t& c = r.config;
    std::string busy;
    for (const bench_worker_t& w : r.workers) {
      if (!busy.empty()) busy += ';';
      busy += fmt("%.4f", w.busy_fraction);
    }
    std::vector<std::string> f = {std::to_string(c.log2),
                                  c.baseline ? "baseline" : "pipeline",
                                  c.policy,
                                  std::to_string(c.concurrency),
                                  std::to_string(c.partitions),
                                  std::to_string(c.jobs),
                                  std::to_string(r.proofs),
                                  std::to_string(r.verified),
                                  std::to_string(r.cpu_workers),
                                  std::to_string(r.cuda_workers),
                                  fmt("%.6f", r.wall_s),
                                  fmt("%.6f", r.s_per_proof),
                                  std::to_string(r.repeats),
                                  fmt("%.6f", r.s_per_proof_sd),
                                  fmt("%.6f", r.s_per_proof_ci95),
                                  fmt("%.6f", r.span_s_per_proof),
                                  fmt("%.4f", r.s_per_proof > 0 ? 1.0 / r.s_per_proof : 0.0),
                                  fmt("%.4f", r.speedup_vs_baseline),
                                  fmt("%.4f", r.speedup_vs_eager),
                                  fmt("%.6f", r.latency_mean_s),
                                  fmt("%.6f", r.latency_p95_s),
                                  fmt("%.6f", r.latency_max_s),
                                  fmt("%.4f", busy_mean(r)),
                                  busy,
                                  fmt("%.6f", r.gpu_s_per_proof),
                                  fmt("%.4f", r.gpu_busy),
                                  fmt("%.1f", double(r.peak_rss_kib) / 1024.0)};
    for (const std::string& p : bench_phases()) f.push_back(fmt("%.3f", phase_ms_per_proof(r, p)));
    f.push_back(status_text(r));
    f.push_back(r.models);
    for (size_t i = 0; i < f.size(); ++i) out << (i ? "," : "") << csv_field(f[i]);
    out << '\n';
  }
  return out.str();
}

nlohmann::json bench_json(const std::vector<bench_result_t>& rows, const bench_machine_t& m) {
  nlohmann::json j;
  j["date"] = m.date;
  j["command"] = m.command;
  j["machine"] = {
      {"nproc", m.nproc}, {"cpu_model", m.cpu_model}, {"loadavg_start", m.load_start}, {"loadavg_end", m.load_end}};
  j["rows"] = nlohmann::json::array();
  for (const bench_result_t& r : rows) {
    nlohmann::json row = bench_result_to_json(r);
    row["ok"] = r.ok();
    j["rows"].push_back(std::move(row));
  }
  return j;
}

}  // namespace starzk::cli
