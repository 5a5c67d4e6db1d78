// bench_models.cpp: the model state of bench rows and the calibration
// phase (see bench_models.hpp).
#include "cli/bench_models.hpp"

#include <starpu.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>

#include "cli/log_lines.hpp"
#include "codelets/codelets.hpp"
#include "runtime/perfmodel_history.hpp"

namespace starzk::cli {

namespace {

std::string hex8(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// Adds `more` to `needs`, one per (model, footprint), the kinds merged.
void merge_needs(std::vector<model_need_t>& needs, const std::vector<model_need_t>& more) {
  for (const model_need_t& m : more) {
    auto it = std::find_if(needs.begin(), needs.end(),
                           [&](const model_need_t& n) { return n.model == m.model && n.footprint == m.footprint; });
    if (it == needs.end()) {
      needs.push_back(m);
      continue;
    }
    for (const std::string& a : m.archs)
      if (std::find(it->archs.begin(), it->archs.end(), a) == it->archs.end()) it->archs.push_back(a);
    std::sort(it->archs.begin(), it->archs.end());
  }
}

// Sets an environment variable for the life of the object.
class env_override_t {
 public:
  env_override_t(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~env_override_t() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  env_override_t(const env_override_t&) = delete;
  env_override_t& operator=(const env_override_t&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

std::vector<model_need_t> model_needs(const runtime::trace_t& trace) {
  std::vector<model_need_t> needs;
  for (const runtime::trace_event_t& e : trace.events) {
    if (e.model.empty()) continue;
    std::vector<std::string> archs = e.could_run;
    std::sort(archs.begin(), archs.end());
    merge_needs(needs, {model_need_t{e.codelet, e.model, e.footprint, archs}});
  }
  std::sort(needs.begin(), needs.end(), [](const model_need_t& a, const model_need_t& b) {
    return std::tie(a.codelet, a.footprint, a.model) < std::tie(b.codelet, b.footprint, b.model);
  });
  return needs;
}

nlohmann::json model_needs_to_json(const std::vector<model_need_t>& needs) {
  nlohmann::json j = nlohmann::json::array();
  for (const model_need_t& n : needs)
    j.push_back({{"codelet", n.codelet}, {"model", n.model}, {"footprint", hex8(n.footprint)}, {"archs", n.archs}});
  return j;
}

std::vector<model_need_t> model_needs_from_json(const nlohmann::json& j) {
  std::vector<model_need_t> needs;
  try {
    if (!j.is_array()) throw std::runtime_error("not an array");
    for (const nlohmann::json& e : j) {
      model_need_t n;
      n.codelet = e.at("codelet").get<std::string>();
      n.model = e.at("model").get<std::string>();
      const std::string fp = e.at("footprint").get<std::string>();
      char* end = nullptr;
      const unsigned long v = std::strtoul(fp.c_str(), &end, 16);
      if (fp.empty() || *end || v > 0xffffffffu) throw std::runtime_error("footprint '" + fp + "' is not 32-bit hex");
      n.footprint = uint32_t(v);
      n.archs = e.at("archs").get<std::vector<std::string>>();
      needs.push_back(std::move(n));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("model_needs: ") + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("model_needs: ") + e.what());
  }
  return needs;
}

unsigned model_counts_t::of(const std::string& model, const std::string& arch, uint32_t footprint) const {
  auto it = samples.find({model, arch, footprint});
  return it == samples.end() ? 0 : it->second;
}

std::vector<std::string> codelet_model_symbols() {
  std::vector<std::string> s;
  for (const starpu_codelet* cl : codelets::all_codelets())
    if (cl->model && cl->model->symbol) s.emplace_back(cl->model->symbol);
  return s;
}

model_counts_t read_model_counts(const std::vector<std::string>& symbols) {
  model_counts_t c;
  c.minimum = runtime::calibration_minimum();
  for (const std::string& sym : symbols)
    for (const runtime::history_entry_t& e : runtime::read_history(sym)) {
      unsigned& n = c.samples[{sym, e.arch, e.footprint}];
      n = std::max(n, e.nsample);
    }
  return c;
}

std::vector<model_gap_t> model_gaps(const std::vector<model_need_t>& needs, const model_counts_t& counts) {
  std::vector<model_gap_t> gaps;
  for (const model_need_t& n : needs)
    for (const std::string& a : n.archs) {
      const unsigned have = counts.of(n.model, a, n.footprint);
      if (have < counts.minimum) gaps.push_back({n.codelet, a, n.footprint, have});
    }
  return gaps;
}

std::string model_state(const std::vector<model_need_t>& needs, const model_counts_t& counts, size_t shown) {
  if (needs.empty()) return "unknown";
  const std::vector<model_gap_t> gaps = model_gaps(needs, counts);
  if (gaps.empty()) return "calibrated";
  std::string s = "uncalibrated:";
  for (size_t i = 0; i < gaps.size() && i < shown; ++i)
    s += (i ? " " : "") + gaps[i].codelet + "/" + gaps[i].arch + "/" + hex8(gaps[i].footprint);
  if (gaps.size() > shown) s += " (+" + std::to_string(gaps.size() - shown) + " more)";
  return s;
}

std::string describe_gaps(const std::vector<model_gap_t>& gaps, unsigned minimum, size_t shown) {
  std::string s;
  for (size_t i = 0; i < gaps.size() && i < shown; ++i)
    s += (i ? ", " : "") + gaps[i].codelet + "/" + gaps[i].arch + "/" + hex8(gaps[i].footprint) + " (" +
         std::to_string(gaps[i].samples) + " of " + std::to_string(minimum) + " samples)";
  if (gaps.size() > shown) s += ", and " + std::to_string(gaps.size() - shown) + " more";
  return s;
}

bool calibrates_models(const std::string& policy) { return policy.rfind("dm", 0) == 0; }

std::vector<bench_config_t> calibration_configs(const std::vector<bench_config_t>& rows) {
  std::vector<bench_config_t> out;
  for (const bench_config_t& r : rows)
    if (!r.baseline && calibrates_models(r.policy)) out.push_back(r);
  if (out.empty() && !rows.empty()) {
    auto first = std::find_if(rows.begin(), rows.end(), [](const bench_config_t& r) { return !r.baseline; });
    bench_config_t c = first != rows.end() ? *first : rows.front();
    c.policy = "dmda";
    out.push_back(c);
  }
  for (bench_config_t& c : out) c.trace.clear();
  return out;
}

std::optional<bench_config_t> cpu_calibration_config(const bench_config_t& like, unsigned proofs) {
  if (like.ngpu == 0) return std::nullopt;
  bench_config_t c = like;
  c.policy = "eager";
  c.ngpu = 0;
  c.baseline = false;
  c.trace.clear();
  c.jobs = std::max(1u, (proofs + c.partitions - 1) / c.partitions);
  c.concurrency = c.jobs;
  return c;
}

std::vector<model_need_t> earlier_needs(const std::filesystem::path& runs, unsigned k) {
  std::vector<model_need_t> needs;
  std::error_code ec;
  for (const std::filesystem::directory_entry& e : std::filesystem::directory_iterator(runs, ec)) {
    if (e.path().extension() != ".json") continue;
    try {
      std::ifstream f(e.path());
      const bench_result_t r = bench_result_from_json(nlohmann::json::parse(f));
      if (r.config.log2 == k)
        for (const model_need_t& n : r.model_needs) needs.push_back(n);
    } catch (const std::exception&) {
    }
  }
  return needs;
}

namespace {

// The CPU entries among `needs`, each with the kind "cpu" alone.
std::vector<model_need_t> cpu_entries(const std::vector<model_need_t>& needs) {
  std::vector<model_need_t> out;
  for (const model_need_t& n : needs)
    if (std::find(n.archs.begin(), n.archs.end(), "cpu") != n.archs.end())
      merge_needs(out, {model_need_t{n.codelet, n.model, n.footprint, {"cpu"}}});
  return out;
}

// The CPU workers' phase of calibrate_models: nothing where the rows run
// without GPUs; else the entries to measure are those of `known`, or
// those of a short probe (one job under the starzk policy, which keeps
// the large tasks on the GPU), which also shows whether the host has a
// GPU at all (without one the dm* runs measure the cores); nothing more
// when they hold the minimum already; else cpu_calibration_config()'s run,
// again while an entry it used is short, at most `rounds` times. Returns
// the runs made.
size_t calibrate_cpu_side(const bench_config_t& front, unsigned rounds, const std::string& size,
                          const std::vector<std::string>& symbols, const std::vector<model_need_t>& known,
                          const std::function<bench_result_t(const bench_config_t&, unsigned)>& run) {
  const unsigned minimum = runtime::calibration_minimum();
  const std::optional<bench_config_t> cpu = cpu_calibration_config(front, minimum + (minimum + 1) / 2);
  if (!cpu) return 0;
  const std::string what = "bench: --calibrate: " + size + ", the CPU workers: ";
  size_t runs = 0;
  std::vector<model_need_t> cpu_needs = cpu_entries(known);
  if (cpu_needs.empty()) {
    bench_config_t probe = front;
    probe.policy = "starzk";
    probe.jobs = probe.concurrency = 1;
    probe.baseline = false;
    probe.trace.clear();
    const bench_result_t r = run(probe, 0);
    ++runs;
    if (r.ok() && r.cuda_workers == 0) {
      log_line(stderr, "progress", what + "no CUDA worker, the dm* runs measure them");
      return runs;
    }
    cpu_needs = cpu_entries(r.model_needs);
  }
  if (!cpu_needs.empty() && model_gaps(cpu_needs, read_model_counts(symbols)).empty()) {
    log_line(stderr, "progress",
             what + "each of their " + std::to_string(cpu_needs.size()) + " entries holds the minimum already");
    return runs;
  }
  for (unsigned round = 0; round < rounds; ++round) {
    merge_needs(cpu_needs, run(*cpu, round).model_needs);
    ++runs;
    const model_counts_t counts = read_model_counts(symbols);
    const std::vector<model_gap_t> gaps = model_gaps(cpu_needs, counts);
    log_line(
        stderr, "progress",
        what + "run " + std::to_string(round + 1) + " on them alone: " +
            (cpu_needs.empty() ? std::string("no task recorded")
             : gaps.empty()    ? "each of their " + std::to_string(cpu_needs.size()) + " entries holds " +
                                  std::to_string(counts.minimum) + " samples"
                            : std::to_string(gaps.size()) + " entries short: " + describe_gaps(gaps, counts.minimum)));
    if (!cpu_needs.empty() && gaps.empty()) break;
  }
  return runs;
}

}  // namespace

std::vector<model_gap_t> calibrate_models(const std::vector<bench_config_t>& configs, unsigned rounds,
                                          const std::function<bench_result_t(const bench_config_t&, unsigned)>& run,
                                          const std::vector<model_need_t>& known) {
  if (configs.empty()) return {};
  const unsigned k = configs.front().log2;
  const std::string size = "2^" + std::to_string(k);
  // Every model records what it measures, not only those a policy found short.
  env_override_t calibrate("STARPU_CALIBRATE", "1");
  const std::vector<std::string> symbols = codelet_model_symbols();
  std::vector<model_need_t> needs;
  std::vector<model_gap_t> gaps;
  unsigned minimum = runtime::calibration_minimum();
  size_t runs = calibrate_cpu_side(configs.front(), rounds, size, symbols, known, run);
  for (unsigned round = 0; round < rounds; ++round) {
    for (const bench_config_t& cfg : configs) {
      const bench_result_t r = run(cfg, round);
      ++runs;
      merge_needs(needs, r.model_needs);
      const model_counts_t counts = read_model_counts(symbols);
      minimum = counts.minimum;
      gaps = model_gaps(needs, counts);
      if (!needs.empty() && gaps.empty()) {
        log_line(stderr, "message",
                 "bench: --calibrate: the models of " + size + " hold at least " + std::to_string(minimum) +
                     " samples for each of their " + std::to_string(needs.size()) + " entries, after " +
                     std::to_string(runs) + " runs");
        return {};
      }
    }
    log_line(stderr, "progress",
             "bench: --calibrate: " + size + ", round " + std::to_string(round + 1) + " of " + std::to_string(rounds) +
                 ": " +
                 (needs.empty() ? std::string("no run recorded a task")
                                : std::to_string(gaps.size()) + " model entries short of " + std::to_string(minimum) +
                                      " samples: " + describe_gaps(gaps, minimum)));
  }
  if (needs.empty()) gaps.push_back({"(no task recorded)", "-", 0, 0});
  log_line(stderr, "warning",
           "bench: --calibrate: the models of " + size + " are still short after " + std::to_string(rounds) +
               " rounds (" + std::to_string(runs) + " runs): " +
               (needs.empty() ? std::string("no calibration run recorded a task") : describe_gaps(gaps, minimum)) +
               "; the rows of " + size +
               " will say uncalibrated (raise --calibrate-rounds, or install calibrated models with "
               "STARZK_CALIBRATED_MODELS)");
  return gaps;
}

}  // namespace starzk::cli
