// bench_repeat.cpp: repetitions, statistics and the run store of starzk bench
// (see bench_repeat.hpp).
#include "cli/bench_repeat.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>

extern char** environ;

namespace starzk::cli {

namespace fs = std::filesystem;

double student_t975(unsigned df) {
  static const double t[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                             2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return 0;
  if (df < sizeof t / sizeof t[0]) return t[df];
  return 1.96 + 2.4 / df;  // within 0.002 of the quantile beyond 30
}

sample_stats_t sample_stats(const std::vector<double>& x) {
  sample_stats_t s;
  s.n = unsigned(x.size());
  if (x.empty()) return s;
  for (double v : x) s.mean += v;
  s.mean /= double(x.size());
  if (x.size() < 2) return s;
  double ss = 0;
  for (double v : x) ss += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(ss / double(x.size() - 1));
  s.ci95 = student_t975(s.n - 1) * s.sd / std::sqrt(double(s.n));
  return s;
}

std::vector<std::vector<size_t>> run_rounds(size_t rows, unsigned rounds, uint64_t seed) {
  std::vector<std::vector<size_t>> out(rounds);
  for (unsigned r = 0; r < rounds; ++r) {
    out[r].resize(rows);
    for (size_t i = 0; i < rows; ++i) out[r][i] = i;
    std::mt19937_64 rng(seed + r);
    std::shuffle(out[r].begin(), out[r].end(), rng);
  }
  return out;
}

namespace {

// Runs of one row share everything but their numbers.
std::string row_key(const bench_config_t& c) {
  return std::to_string(c.log2) + "/" + (c.baseline ? "baseline/" : "pipeline/") + c.policy + "/" +
         std::to_string(c.concurrency) + "/" + std::to_string(c.partitions) + "/" + std::to_string(c.jobs);
}

}  // namespace

bool calibrated_row(const bench_result_t& row) { return row.models.rfind("calibrated", 0) == 0; }

std::vector<bench_result_t> aggregate_runs(const std::vector<bench_result_t>& runs) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const bench_result_t*>> by_row;
  for (const bench_result_t& r : runs) {
    const std::string k = row_key(r.config);
    if (!by_row.count(k)) order.push_back(k);
    by_row[k].push_back(&r);
  }
  std::vector<bench_result_t> rows;
  for (const std::string& k : order) {
    const std::vector<const bench_result_t*>& all = by_row[k];
    // Where some completed runs started calibrated, they alone are the
    // samples: the others measured StarPU calibrating as well.
    size_t completed = 0, calibrated = 0;
    for (const bench_result_t* r : all)
      if (r->ok()) {
        ++completed;
        calibrated += r->models == "calibrated";
      }
    const bool only_calibrated = calibrated > 0 && calibrated < completed;
    std::vector<double> s, gpu, span;
    const bench_result_t* first_ok = nullptr;
    const bench_result_t* first_bad = nullptr;
    for (const bench_result_t* r : all) {
      if (r->ok()) {
        if (only_calibrated && r->models != "calibrated") continue;
        s.push_back(r->s_per_proof);
        gpu.push_back(r->gpu_s_per_proof);
        span.push_back(r->span_s_per_proof);
        if (!first_ok) first_ok = r;
      } else if (!first_bad) {
        first_bad = r;
      }
    }
    bench_result_t row = first_ok ? *first_ok : *first_bad;
    if (only_calibrated)
      row.models = "calibrated (" + std::to_string(calibrated) + " of " + std::to_string(completed) + ")";
    else
      for (const bench_result_t* r : all)
        if (r->models != "calibrated") {
          row.models = r->models;
          break;
        }
    const sample_stats_t st = sample_stats(s);
    row.repeats = st.n;
    if (first_ok) {
      row.s_per_proof = st.mean;
      row.s_per_proof_sd = st.sd;
      row.s_per_proof_ci95 = st.ci95;
      row.gpu_s_per_proof = sample_stats(gpu).mean;
      row.span_s_per_proof = sample_stats(span).mean;
    }
    if (first_bad) {
      row.error = std::to_string(all.size() - st.n) + " of " + std::to_string(all.size()) +
                  " runs failed: " + (first_bad->error.empty() ? "not every proof verified" : first_bad->error);
      row.proofs = first_bad->proofs;
      row.verified = first_bad->verified;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string tree_digest(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "none";
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, 64-bit
  auto eat = [&h](const char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ uint8_t(p[i])) * 0x100000001b3ull;
  };
  for (const fs::path& f : files) {
    const std::string name = fs::relative(f, dir, ec).string();
    eat(name.data(), name.size() + 1);  // with its terminating zero: names and bytes cannot run together
    std::ifstream in(f, std::ios::binary);
    char buf[1 << 14];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) eat(buf, size_t(in.gcount()));
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", (unsigned long long)h);
  return out;
}

fs::path perfmodel_dir() {
  if (const char* d = std::getenv("STARPU_PERF_MODEL_DIR"); d && *d) return d;
  if (const char* d = std::getenv("STARPU_HOME"); d && *d) return fs::path(d) / ".starpu" / "sampling";
  if (const char* d = std::getenv("HOME"); d && *d) return fs::path(d) / ".starpu" / "sampling";
  return {};
}

std::map<std::string, std::string> scheduling_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv(*e);
    if (kv.rfind("STARPU_", 0) != 0 && kv.rfind("STARZK_", 0) != 0) continue;
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

nlohmann::json store_line(const bench_result_t& run, const bench_machine_t& m, const run_provenance_t& p) {
  nlohmann::json j = bench_result_to_json(run);
  j.erase("repeats");
  j.erase("s_per_proof_sd");
  j.erase("s_per_proof_ci95");
  j["ok"] = run.ok();
  j["round"] = p.round;
  j["rounds"] = p.rounds;
  j["seed"] = p.seed;
  j["commit"] = p.commit;
  j["models_digest"] = p.models_digest;
  j["date"] = m.date;
  j["command"] = m.command;
  j["machine"] = {{"nproc", m.nproc}, {"cpu_model", m.cpu_model}};
  j["environment"] = scheduling_environment();
  return j;
}

void append_store_line(const fs::path& store, const nlohmann::json& line) {
  const std::string text = line.dump() + "\n";
  const int fd = ::open(store.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(store.string() + ": cannot open the bench store: " + std::strerror(errno));
  const ssize_t n = ::write(fd, text.data(), text.size());  // one write: lines of concurrent sweeps never interleave
  const int err = errno;
  ::close(fd);
  if (n != ssize_t(text.size()))
    throw std::runtime_error(store.string() +
                             ": cannot append to the bench store: " + (n < 0 ? std::strerror(err) : "short write"));
}

}  // namespace starzk::cli
