// starzk trace replay: run a recorded task graph again under a scheduling
// policy of one's choice, without the math (runtime/replay.hpp), and set
// the replay's span and phases beside the recorded ones.
//
// On a real StarPU each body waits its task's recorded time, so the replay
// shows what the policy makes of the same graph on this machine. Built
// against a StarPU configured with SimGrid (docs/install.md, "Simulated
// machines"), StarPU runs no body: tasks take their models' times and
// transfers the simulated bus's, on the machine STARPU_HOSTNAME names
// (more GPUs or CPUs than this one has, another bus), so a policy can be
// tried on machines one does not have. The replay is itself recorded
// (--trace), for `starzk trace summary|plot|check`.
#include <starpu.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <iostream>
#include <memory>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/file_errors.hpp"
#include "dag/heteroprio.hpp"
#include "dag/trace_report.hpp"
#include "runtime/perfmodels.hpp"
#include "runtime/replay.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace starzk::cli {

namespace {

struct replay_cli_t {
  std::string file, policy, policy_plugin, models, out, submit = "asap";
  int cpus = -1, gpus = -1;
  unsigned rank = 0, ranks = 0;     // ranks 0: the whole trace
  std::vector<std::string> assume;  // CODELET=KIND:SECONDS
  bool json = false, models_from_trace = false, models_only = false;
};

// --models-from-trace: the trace's times as this host's models of its
// codelets, in the folder STARPU_PERF_MODEL_DIR names (never StarPU's
// default folder, where the models a machine learned would be replaced).
void write_trace_models(const runtime::trace_t& trace) {
  const char* dir = std::getenv("STARPU_PERF_MODEL_DIR");
  if (!dir || !*dir)
    throw std::invalid_argument(
        "--models-from-trace writes models for the replay: set STARPU_PERF_MODEL_DIR to the folder they go to "
        "(StarPU's own folder is never overwritten)");
  const auto models = runtime::models_from_trace(trace);
  const std::string host = runtime::perfmodel_hostname();
  const std::filesystem::path to = runtime::perfmodel_codelet_dir();
  for (const auto& [symbol, entries] : models) runtime::write_history_file(to / (symbol + "." + host), entries);
  std::fprintf(stderr, "starzk: models of %zu codelets written from the trace to %s (host %s)\n", models.size(),
               to.c_str(), host.c_str());
}

#ifdef STARPU_SIMGRID
constexpr bool k_simulated = true;
#else
constexpr bool k_simulated = false;
#endif

nlohmann::json phases_json(const dag::trace_summary_t& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const dag::phase_stat_t& p : s.phases) j[p.phase] = {{"tasks", p.tasks}, {"mean_ms", p.mean_ms}};
  return j;
}

// --assume CODELET=KIND:SECONDS, applied to the times the replay uses.
void apply_assumptions(const replay_cli_t& o, runtime::trace_t& t) {
  for (const std::string& a : o.assume) {
    const auto eq = a.find('='), colon = a.rfind(':');
    double s = -1;
    if (eq != std::string::npos && colon != std::string::npos && colon > eq) {
      char* end = nullptr;
      s = std::strtod(a.c_str() + colon + 1, &end);
      if (end == a.c_str() + colon + 1 || *end || !std::isfinite(s)) s = -1;
    }
    if (eq == 0 || eq == std::string::npos || colon == std::string::npos || colon < eq || !(s >= 0))
      throw std::invalid_argument("--assume " + a + ": expected CODELET=KIND:SECONDS, e.g. b_g2_msm=cpu:3.5");
    runtime::assume_time(t, a.substr(0, eq), a.substr(eq + 1, colon - eq - 1), s * 1e6);
  }
}

void run_replay_command(const replay_cli_t& o) {
  const runtime::trace_t recorded = naming({{o.file, "trace"}}, [&] { return runtime::load_trace(o.file); });
  // The times the replay uses: the recorded ones, or what --assume says.
  runtime::trace_t timed = recorded;
  apply_assumptions(o, timed);
  if (o.models_only) {  // the models alone: no StarPU session, no replay
    write_trace_models(timed);
    return;
  }
  // With --ranks, one node's share; the models come from the whole run.
  const runtime::trace_t share =
      o.ranks == 0 ? timed : naming({{o.file, "trace"}}, [&] { return runtime::rank_share(timed, o.rank, o.ranks); });
  const runtime::replay_plan_t plan = naming({{o.file, "trace"}}, [&] { return runtime::plan_replay(share); });
  if (o.models_from_trace) write_trace_models(timed);
  std::set<std::uint32_t> chains, all_chains;
  for (const runtime::trace_event_t& e : recorded.events)
    if (e.has_chain) all_chains.insert(e.chain);
  for (const runtime::trace_event_t& e : share.events)
    if (e.has_chain) chains.insert(e.chain);

  runtime::session_options_t so;
  so.policy = o.policy;
  so.policy_plugin = o.policy_plugin;
  so.ncpu = o.cpus;
  so.ncuda = o.gpus;
  so.profiling = true;
  so.perfmodels = o.models;
  runtime::trace_t replayed;
  std::string policy;
  {
    runtime::starpu_session session(so);
    policy = session.policy_name();
    runtime::trace_recorder recorder;
    recorder.set_meta("policy", policy);
    recorder.set_meta("replay_of", o.file);
    recorder.set_meta("replay_submission", o.submit);
    recorder.set_meta("replay_simulated", k_simulated ? "1" : "0");
    runtime::replay_options_t ro;
    ro.submission = o.submit == "recorded" ? runtime::submission_t::recorded : runtime::submission_t::asap;
    if (policy == "heteroprio") {
      // Its buckets, as the program sets them (dag/heteroprio.hpp): by
      // codelet and the kinds of worker here the task may run on.
      const bool cpus = starpu_worker_get_count_by_type(STARPU_CPU_WORKER) > 0;
      const bool gpus = starpu_worker_get_count_by_type(STARPU_CUDA_WORKER) > 0;
      ro.priority = [cpus, gpus](const runtime::replay_task_t& t) {
        return int(dag::heteroprio_bucket(t.codelet, cpus && t.cpu_us >= 0, gpus && t.cuda_us >= 0));
      };
    }
    runtime::run_replay(plan, ro, recorder);
    replayed = recorder.snapshot();
  }
  if (!o.out.empty()) runtime::save_trace(replayed, o.out);

  const dag::trace_summary_t a = dag::summarize_trace(recorded), b = dag::summarize_trace(replayed);
  const double ratio = a.span_s > 0 ? b.span_s / a.span_s : 0;
  if (o.json) {
    nlohmann::json j = {
        {"tasks", plan.tasks.size()},
        {"data", plan.data.size()},
        {"simulated", k_simulated},
        {"submission", o.submit},
        {"edges_only", plan.edges_only},
        {"rank", o.rank},
        {"ranks", o.ranks == 0 ? 1u : o.ranks},
        {"partitions", chains.size()},
        {"partitions_recorded", all_chains.size()},
        {"recorded",
         {{"policy", a.policy}, {"span_s", a.span_s}, {"interval_s", a.interval_s}, {"phases", phases_json(a)}}},
        {"replay",
         {{"policy", policy}, {"span_s", b.span_s}, {"interval_s", b.interval_s}, {"phases", phases_json(b)}}},
        {"span_ratio", ratio}};
    std::cout << j.dump() << "\n";
    return;
  }
  std::printf("%s: %zu tasks, %zu data%s, replayed %s under %s, submission %s\n", o.file.c_str(), plan.tasks.size(),
              plan.data.size(), plan.edges_only ? " (no buffers recorded: edges only)" : "",
              k_simulated ? "in simulation" : "on this machine", policy.c_str(), o.submit.c_str());
  if (o.ranks > 0)
    std::printf("rank %u of %u: %zu of the run's %zu partitions (the recorded column is the whole run)\n", o.rank,
                o.ranks, chains.size(), all_chains.size());
  std::printf("%-12s %14s %14s\n", "", ("recorded (" + a.policy + ")").c_str(), "replay");
  std::printf("%-12s %14.3f %14.3f  (x%.3f)\n", "span_s", a.span_s, b.span_s, ratio);
  std::printf("%-12s %14.3f %14.3f\n", "interval_s", a.interval_s, b.interval_s);
  for (const dag::phase_stat_t& p : a.phases) {
    double mean = 0;
    for (const dag::phase_stat_t& q : b.phases)
      if (q.phase == p.phase) mean = q.mean_ms;
    std::printf("%-12s %11.3f ms %11.3f ms  (%zu tasks)\n", p.phase.c_str(), p.mean_ms, mean, p.tasks);
  }
  if (!o.out.empty()) std::printf("replay trace written to %s\n", o.out.c_str());
}

}  // namespace

void add_trace_replay_command(CLI::App& trace_cmd) {
  auto o = std::make_shared<replay_cli_t>();
  CLI::App* cmd = trace_cmd.add_subcommand(
      "replay", "Run a recorded task graph again without the math, under a policy (simulated with a SimGrid StarPU)");
  cmd->add_option("trace", o->file, "trace JSON (from prove --manifest --trace)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--policy", o->policy,
                  "StarPU scheduling policy (starzk, eager, dmdas, ...; default $STARPU_SCHED, else starzk)");
  cmd->add_option("--policy-plugin", o->policy_plugin, "load scheduling policies from this shared object first")
      ->check(CLI::ExistingFile);
  cmd->add_option("--cpus", o->cpus, "StarPU CPU workers (default: StarPU's)")->check(CLI::Range(0, 1024));
  cmd->add_option("--gpus", o->gpus, "StarPU CUDA workers (default: every GPU, simulated ones included)")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--submit", o->submit,
                  "asap: submit the whole graph at once; recorded: each task at its recorded submission time")
      ->check(CLI::IsMember({"asap", "recorded"}));
  cmd->add_option("--models", o->models, "calibrated models to seed first (as STARZK_CALIBRATED_MODELS)");
  cmd->add_flag("--models-from-trace", o->models_from_trace,
                "write the trace's times as this host's models into $STARPU_PERF_MODEL_DIR first (for a simulation)");
  cmd->add_flag("--models-only", o->models_only,
                "write the models as --models-from-trace does (--assume applied), then stop without replaying");
  cmd->add_option("--ranks", o->ranks,
                  "replay one node's share of the run spread over this many nodes (partition p on rank p mod N, as "
                  "prove --mpi places them)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--rank", o->rank, "with --ranks: the node (0 .. N-1)")->needs("--ranks");
  cmd->add_option("--assume", o->assume,
                  "CODELET=KIND:SECONDS: replay as if the codelet (or one phase of it, msm_l) took that long on "
                  "every worker of that kind (cpu or cuda), e.g. b_g2_msm=cpu:3.5; repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--trace", o->out, "record the replay into this trace JSON");
  cmd->add_flag("--json", o->json, "print the comparison as one JSON object");
  cmd->callback([o] { run_replay_command(*o); });
}

}  // namespace starzk::cli
