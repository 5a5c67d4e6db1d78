// starzk trace: read a run recorded with `starzk prove --manifest ...
// --trace run.json` (Chrome trace-event JSON, opens in Perfetto) and
//   summary  print the per-phase times and per-worker busy fractions
//            (text, or --json);
//   plot     draw the waterfall (one row per worker, one bar per task,
//            colored by codelet) with gnuplot into a PNG; --script keeps
//            the generated gnuplot script.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include "cli/commands.hpp"
#include "dag/trace_report.hpp"
#include "runtime/trace.hpp"

namespace starzk::cli {

namespace {

struct trace_options {
  std::string file, output, script, title;
  bool json = false;
};

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
  const runtime::trace_t trace = runtime::load_trace(o.file);
  if (trace.events.empty()) throw std::runtime_error(o.file + ": the trace has no task to draw");
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
  if (!keep) path = (std::filesystem::temp_directory_path() /
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
  CLI::App* cmd = app.add_subcommand("trace", "Summarise or plot a task trace (from prove --manifest --trace)");
  cmd->require_subcommand(1);
  cmd->footer(
      "Examples:\n"
      "  starzk trace summary run.json          per-phase times, per-worker busy fractions\n"
      "  starzk trace summary run.json --json   the same as JSON\n"
      "  starzk trace plot run.json -o run.png  the waterfall (needs gnuplot)\n"
      "The trace itself also opens in https://ui.perfetto.dev.");
  auto o = std::make_shared<trace_options>();

  CLI::App* summary = cmd->add_subcommand("summary", "Per-phase times and per-worker busy fractions");
  summary->add_option("trace", o->file, "trace JSON")->required()->check(CLI::ExistingFile);
  summary->add_flag("--json", o->json, "print JSON instead of the table");
  summary->callback([o] {
    const dag::trace_summary_t s = dag::summarize_trace(runtime::load_trace(o->file));
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
}

}  // namespace starzk::cli
