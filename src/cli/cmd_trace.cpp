// starzk trace: read a run recorded with `starzk prove --manifest ...
// --trace run.json` (Chrome trace-event JSON, opens in Perfetto) and
//   summary  print the per-phase times and per-worker busy fractions
//            (text, or --json);
//   plot     draw the waterfall (one row per worker, one bar per task,
//            colored by codelet) with gnuplot into a PNG; --script keeps
//            the generated gnuplot script;
//   check    run the scheduling invariants (runtime/invariants.hpp) the
//            recorded policy promised, or those the options name; exit 1
//            when one is broken;
//   replay   run the graph again without the math (cmd_trace_replay.cpp).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/file_errors.hpp"
#include "dag/trace_report.hpp"
#include "io/io_error.hpp"
#include "runtime/invariants.hpp"
#include "runtime/trace.hpp"

namespace starzk::cli {

namespace {

struct trace_options {
  std::string file, output, script, title;
  bool json = false;
  int mem_heavy_max = 0;          // check: force this cap (0: as recorded)
  std::vector<std::string> skip;  // check: cap, serial-free, chains, finished
  bool chains_on_cpu = false;     // check: chains in the CPU domain too
};

// A trace that cannot be read, or whose metadata make no sense, is a bad
// input file (exit status 3), named.
runtime::trace_t read_trace(const std::string& file) {
  return naming({{file, "trace"}}, [&] { return runtime::load_trace(file); });
}

void run_check(const trace_options& o) {
  const runtime::trace_t trace = read_trace(o.file);
  runtime::invariant_options_t want = naming({{o.file, "trace"}}, [&] { return runtime::promised_invariants(trace); });
  if (o.mem_heavy_max > 0) want.mem_heavy_max = o.mem_heavy_max;
  if (o.chains_on_cpu) want.chains_contiguous = want.chains_in_main_ram = true;
  for (const std::string& s : o.skip) {
    if (s == "cap")
      want.mem_heavy_max = -1;
    else if (s == "serial-free")
      want.serial_free = false;
    else if (s == "chains")
      want.chains_contiguous = false;
    else if (s == "finished")
      want.all_finished = false;
  }
  const std::vector<std::string> violations = runtime::check_invariants(trace, want);
  std::printf("%s: %zu tasks, policy %s; checked: %s%s\n", o.file.c_str(), trace.events.size(),
              trace.meta.count("policy") ? trace.meta.at("policy").c_str() : "?",
              runtime::describe_checks(want).c_str(),
              trace.meta.count("policy_rules") ? "" : " (the trace records no starzk rules; options add checks)");
  for (const std::string& v : violations) std::printf("  %s\n", v.c_str());
  if (!violations.empty()) {
    std::printf("%zu violation%s\n", violations.size(), violations.size() == 1 ? "" : "s");
    throw exit_status{exit_no};
  }
  std::printf("every invariant held\n");
}

// Runs gnuplot on a script file; returns its exit status (127: not found).
int run_gnuplot(const std::string& script) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("cannot start gnuplot: fork failed");
  if (pid == 0) {
    execlp("gnuplot", "gnuplot", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) throw std::runtime_error("cannot wait for gnuplot");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

void run_plot(const trace_options& o) {
  const runtime::trace_t trace = read_trace(o.file);
  if (trace.events.empty()) throw io_error(o.file, "the trace has no task to draw");
  std::string title = o.title;
  if (title.empty()) {
    const dag::trace_summary_t s = dag::summarize_trace(trace);
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s: %zu proofs, %zu tasks, %.2f s, policy %s",
                  std::filesystem::path(o.file).filename().c_str(), s.proofs, s.tasks, s.span_s,
                  s.policy.empty() ? "?" : s.policy.c_str());
    title = buf;
  }
  const std::string script = dag::waterfall_gnuplot_script(trace, o.output, title);
  std::string path = o.script;
  const bool keep = !path.empty();
  if (!keep)
    path = (std::filesystem::temp_directory_path() /
            ("starzk-plot-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()) + ".gp"))
               .string();
  {
    std::ofstream f(path);
    f << script;
    if (!f) throw std::runtime_error("cannot write the gnuplot script " + path);
  }
  const int rc = run_gnuplot(path);
  if (!keep) std::filesystem::remove(path);
  if (rc == 127) throw std::runtime_error("gnuplot not found (install gnuplot-nox; --script writes the script alone)");
  if (rc != 0) throw std::runtime_error("gnuplot failed (exit " + std::to_string(rc) + ") drawing " + o.output);
  std::printf("waterfall of %zu tasks written to %s\n", trace.events.size(), o.output.c_str());
}

}  // namespace

void add_trace_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("trace", "Summarise, plot or check a task trace (from prove --manifest --trace)");
  cmd->require_subcommand(1);
  cmd->footer(
      "Examples:\n"
      "  starzk trace summary run.json          per-phase times, per-worker busy fractions\n"
      "  starzk trace summary run.json --json   the same as JSON\n"
      "  starzk trace plot run.json -o run.png  the waterfall (needs gnuplot)\n"
      "  starzk trace check run.json            the invariants its policy promised (exit 1 if broken)\n"
      "  starzk trace replay run.json --policy dmdas   the same graph without the math, under dmdas\n"
      "The trace itself also opens in https://ui.perfetto.dev.");
  auto o = std::make_shared<trace_options>();

  CLI::App* summary = cmd->add_subcommand("summary", "Per-phase times and per-worker busy fractions");
  summary->add_option("trace", o->file, "trace JSON")->required()->check(CLI::ExistingFile);
  summary->add_flag("--json", o->json, "print JSON instead of the table");
  summary->callback([o] {
    const dag::trace_summary_t s = dag::summarize_trace(read_trace(o->file));
    if (o->json)
      dag::print_trace_summary_json(s, std::cout);
    else
      dag::print_trace_summary(s, std::cout);
  });

  CLI::App* plot = cmd->add_subcommand("plot", "Draw the waterfall into a PNG with gnuplot");
  plot->add_option("trace", o->file, "trace JSON")->required()->check(CLI::ExistingFile);
  plot->add_option("-o,--output", o->output, "PNG to write")->required();
  plot->add_option("--script", o->script, "also keep the gnuplot script here");
  plot->add_option("--title", o->title, "plot title");
  plot->callback([o] { run_plot(*o); });

  CLI::App* check = cmd->add_subcommand(
      "check", "Check the scheduling invariants the recorded policy promised (docs/policies.md); exit 1 if one broke");
  check->add_option("trace", o->file, "trace JSON")->required()->check(CLI::ExistingFile);
  check->add_option("--mem-heavy-max", o->mem_heavy_max, "check this MEMORY_HEAVY cap (default: the recorded one)")
      ->check(CLI::Range(1, 1 << 20));
  check->add_option("--skip", o->skip, "leave out checks: cap, serial-free, chains, finished (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cap", "serial-free", "chains", "finished"}));
  check->add_flag("--chains-on-cpu", o->chains_on_cpu,
                  "check chain contiguity in the CPU workers' domain too (runs with STARZK_CPU_LOCK=1)");
  check->callback([o] { run_check(*o); });

  add_trace_replay_command(*cmd);
}

}  // namespace starzk::cli
