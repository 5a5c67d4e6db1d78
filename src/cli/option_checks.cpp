// option_checks.cpp: the validators and worker checks of option_checks.hpp.
#include "cli/option_checks.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cli/log_lines.hpp"
#include "dag/memory_budget.hpp"
#include "util/config.hpp"
#include "util/parallel.hpp"

namespace starzk::cli {

namespace {

// v as a whole decimal integer (sign allowed), or false.
bool parse_int(const std::string& v, long long* out) {
  try {
    size_t pos = 0;
    *out = std::stoll(v, &pos);
    return pos == v.size();
  } catch (const std::exception&) {
    return false;
  }
}

CLI::Validator int_range(long long lo, long long hi, std::string why) {
  return CLI::Validator(
      [lo, hi, why](std::string& v) -> std::string {
        long long n = 0;
        if (!parse_int(v, &n)) return "'" + v + "' is not a whole number";
        if (n < lo || n > hi)
          return "'" + v + "' is out of range: " + std::to_string(lo) + " .. " + std::to_string(hi) + " (" + why + ")";
        return "";
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

}  // namespace

unsigned usable_cpus() {
  const unsigned n = process_cpus();
  if (n) return n;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw ? hw : 1u;
}

CLI::Validator thread_count(bool zero_means_all) {
  const std::string cpus = std::to_string(usable_cpus());
  return int_range(zero_means_all ? 0 : 1, usable_cpus(),
                   zero_means_all ? "0 = every core; this process may use " + cpus + " CPUs"
                                  : "this process may use " + cpus + " CPUs");
}

CLI::Validator cpu_worker_count() {
  return int_range(0, usable_cpus(),
                   "StarPU CPU workers; this process may use " + std::to_string(usable_cpus()) + " CPUs");
}

CLI::Validator gpu_worker_count() { return int_range(0, 64, "StarPU CUDA workers, one per GPU"); }

CLI::Validator memory_budget() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        if (v == "auto" || v == "none") return "";
        uint64_t bytes = 0;
        try {
          bytes = dag::parse_memory_budget(v);
        } catch (const std::exception& e) {
          return e.what();
        }
        if (bytes < (uint64_t(1) << 20))
          return "'" + v +
                 "' is less than 1 MiB: no partition fits (use 'none' for no limit, 'auto' for half "
                 "of the available memory)";
        return "";
      },
      "auto|none|BYTES");
}

void add_log_options(CLI::App* cmd) {
  // --log-format first: CLI11 runs option callbacks in this order, so the
  // settings line of --verbose already has its form.
  cmd->add_option_function<std::string>(
      "--log-format", [](const std::string& v) { set_log_format(parse_log_format(v)); },
      "text (default) or json: every log line (key loading, progress, waits, errors, the summary) as one JSON "
      "object, for log collectors (docs/usage.md)");
  auto* quiet = cmd->add_flag_callback(
      "--quiet", [] { set_verbosity(verbosity_t::quiet); },
      "only errors, warnings and the final result (no key, progress or timing lines)");
  cmd->add_flag_callback(
         "--verbose",
         [name = cmd->get_name()] {
           set_verbosity(verbosity_t::verbose);
           nlohmann::json env = nlohmann::json::object();
           std::string text;
           auto note = [&](const char* var) {
             const char* v = std::getenv(var);
             if (v == nullptr || *v == '\0') return;
             env[var] = v;
             text += std::string(text.empty() ? "" : ", ") + var + "=" + v;
           };
           for (const char* v : {"STARPU_SCHED", "STARPU_NCPU", "STARPU_NCUDA", "CUDA_VISIBLE_DEVICES"}) note(v);
           for (const config::var_t& v : config::vars) note(v.name);
           log_verbose(stderr, "settings",
                       "starzk " + name + ": settings: " + (text.empty() ? "no variable set" : text) +
                           " (every other variable at its default; starzk info --config)",
                       {{"command", name}, {"environment", env}});
         },
         "also the settings in force at the start (the environment variables starzk reads) and more detail")
      ->excludes(quiet);
}

void check_workers(int requested_gpus, const std::string& place, unsigned cpu_workers, unsigned cuda_workers) {
  if (requested_gpus > 0 && unsigned(requested_gpus) > cuda_workers)
    throw std::invalid_argument("--gpus " + std::to_string(requested_gpus) + ": StarPU found " +
                                std::to_string(cuda_workers) + " CUDA worker(s) here");
  std::stringstream in(place);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) continue;  // set_placement names the syntax error
    const std::string where = item.substr(eq + 1);
    if (where == "cuda" && cuda_workers == 0)
      throw std::invalid_argument("--place " + item + ": no CUDA worker (no GPU here, or --gpus 0)");
    if (where == "cpu" && cpu_workers == 0)
      throw std::invalid_argument("--place " + item + ": no CPU worker (--cpus 0)");
  }
}

}  // namespace starzk::cli
