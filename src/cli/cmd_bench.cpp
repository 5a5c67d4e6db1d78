// starzk bench: the policy × concurrency × partitions × size sweep
// (docs/prover.md, Floors). For every size 2^k it prepares the inputs once (a
// Filecoin-shaped circuit, max(j) witnesses, a bellman-convention
// development key; bench_run.hpp), then runs, each in a child process of
// its own (`starzk bench-one`, hidden: a fresh StarPU with the policy, and
// the child's own peak RSS):
//   - the baseline: one proof at a time (c = 1, j = 1) under the baseline
//     policy, jobs × max(j) proofs: the same kernels without the pipeline;
//   - every (c, j, policy): `jobs` jobs of j partitions, at most c in flight.
// Rows of one (k, c, j) run back to back, so the policies they compare see
// the same machine. With --repeat N every row runs N times, each round in a
// fresh seeded random order, and a row is the mean of its runs with its 95%
// confidence interval; --store appends every run, with its provenance, to a
// JSON-lines file (bench_repeat.hpp). Every row says whether its runs
// started from calibrated performance models (`models`); --calibrate first
// runs each size until they are, --require-calibrated fails the sweep on a
// row that was not (bench_models.hpp). At the end it prints the table
// (bench_report.hpp) and writes DIR/bench.csv and DIR/bench.json
// (atomically); each run's trace goes to DIR/traces/ (`starzk trace
// summary|plot` reads them). A row whose proofs do not all verify, or whose
// child fails, makes the exit status 1 (the files are still written, the
// row marked FAILED).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cli/log_lines.hpp"
#include "cli/option_checks.hpp"
#include "cli/bench_child.hpp"
#include "cli/bench_models.hpp"
#include "cli/bench_repeat.hpp"
#include "cli/bench_report.hpp"
#include "cli/bench_run.hpp"
#include "cli/commands.hpp"
#include "io/atomic_file.hpp"
#include "runtime/starpu_session.hpp"

namespace starzk::cli {

namespace {

namespace fs = std::filesystem;

struct bench_options_t {
  std::vector<std::string> policies = {"starzk", "starzk-nolock", "eager", "lws", "dmda", "dmdas", "heteroprio"};
  std::vector<unsigned> concurrency = {1, 2, 4};
  std::vector<unsigned> partitions = {1, 4};
  std::vector<unsigned> log2 = {10, 12};
  unsigned jobs = 4;
  int ncpu = -1;
  int ngpu = -1;
  std::string out = "bench-out";
  std::string baseline = "eager";
  bool no_baseline = false;
  unsigned threads = 0;
  unsigned run_timeout = 0;   // seconds per run; 0: none
  std::string policy_plugin;  // policy plug-in (policies/starzk_plugin.h); empty: $STARZK_POLICY_PLUGIN
  unsigned repeat = 1;        // rounds over every row, each in a fresh random order (bench_repeat.hpp)
  uint64_t seed = 0;          // of the rounds' order; 0: drawn and printed
  std::string store;          // JSON-lines file every run is appended to; empty: none
  bool calibrate = false;     // calibrate each size's models before its rows (bench_models.hpp)
  unsigned calibrate_rounds = 10;
  bool require_calibrated = false;  // exit 1 when a row started from uncalibrated models
};

template <class T>
std::string join(const std::vector<T>& v) {
  std::string s;
  for (const T& x : v) {
    if (!s.empty()) s += ",";
    if constexpr (std::is_same_v<T, std::string>)
      s += x;
    else
      s += std::to_string(x);
  }
  return s;
}

template <class T>
std::vector<T> unique_in_order(const std::vector<T>& v) {
  std::vector<T> u;
  for (const T& x : v)
    if (std::find(u.begin(), u.end(), x) == u.end()) u.push_back(x);
  return u;
}

void check_policy(const std::string& name, const char* option) {
  const std::vector<std::string> known = runtime::starpu_session::policy_names();
  if (std::find(known.begin(), known.end(), name) == known.end())
    throw std::runtime_error(std::string("bench: ") + option + ": unknown scheduling policy '" + name +
                             "' (known: " + join(known) + ")");
}

std::string canonical_command(const bench_options_t& o) {
  std::string s = "starzk bench --policies " + join(o.policies) + " --concurrency " + join(o.concurrency) +
                  " --partitions " + join(o.partitions) + " --log2 " + join(o.log2) + " --jobs " +
                  std::to_string(o.jobs);
  if (o.ncpu >= 0) s += " --ncpu " + std::to_string(o.ncpu);
  if (o.ngpu >= 0) s += " --ngpu " + std::to_string(o.ngpu);
  s += o.no_baseline ? " --no-baseline" : " --baseline " + o.baseline;
  if (o.run_timeout) s += " --run-timeout " + std::to_string(o.run_timeout);
  if (!o.policy_plugin.empty()) s += " --policy-plugin " + o.policy_plugin;
  if (o.repeat > 1) s += " --repeat " + std::to_string(o.repeat) + " --seed " + std::to_string(o.seed);
  if (!o.store.empty()) s += " --store " + o.store;
  if (o.calibrate) s += " --calibrate --calibrate-rounds " + std::to_string(o.calibrate_rounds);
  if (o.require_calibrated) s += " --require-calibrated";
  return s + " --out " + o.out;
}

std::string row_name(const bench_config_t& c) {
  return "k" + std::to_string(c.log2) + "-" + (c.baseline ? "baseline-" + c.policy : c.policy) + "-c" +
         std::to_string(c.concurrency) + "-j" + std::to_string(c.partitions);
}

// The name of one run of a row: the row's, with the round where there are several.
std::string run_name(const bench_config_t& c, unsigned round, unsigned rounds) {
  return rounds > 1 ? row_name(c) + "-r" + std::to_string(round + 1) : row_name(c);
}

void run_bench(bench_options_t o) {
  o.policies = unique_in_order(o.policies);
  o.concurrency = unique_in_order(o.concurrency);
  o.partitions = unique_in_order(o.partitions);
  o.log2 = unique_in_order(o.log2);
  // The plug-in's policies join the known names here; every run (a child
  // process) loads it again through the environment.
  runtime::starpu_session::load_policy_plugin(o.policy_plugin);
  if (!o.policy_plugin.empty()) setenv("STARZK_POLICY_PLUGIN", o.policy_plugin.c_str(), 1);
  for (const std::string& p : o.policies) check_policy(p, "--policies");
  if (!o.no_baseline) check_policy(o.baseline, "--baseline");
  if (const char* s = std::getenv("STARPU_SCHED"); s && *s)
    log_line(stderr, "warning",
             std::string("bench: STARPU_SCHED=") + s + " is ignored: every run uses the policy of its row");

  if (o.repeat > 1 && o.seed == 0) o.seed = std::random_device{}() | 1;
  const fs::path out(o.out);
  fs::create_directories(out / "runs");
  fs::create_directories(out / "traces");
  bench_machine_t machine = describe_machine(canonical_command(o));
  run_provenance_t prov;
  prov.commit = STARZK_COMMIT;
  prov.rounds = o.repeat;
  prov.seed = o.seed;
  const unsigned max_j = *std::max_element(o.partitions.begin(), o.partitions.end());
  const size_t total = o.repeat * o.log2.size() *
                       (o.policies.size() * o.concurrency.size() * o.partitions.size() + (o.no_baseline ? 0 : 1));
  log_line(stderr, "start",
           "bench: " + std::to_string(total) + " runs on " + std::to_string(machine.nproc) + " CPUs (" +
               machine.cpu_model + "), load " + machine.load_start +
               (o.repeat > 1
                    ? ", " + std::to_string(o.repeat) + " rounds in shuffled order, --seed " + std::to_string(o.seed)
                    : std::string()));

  const std::vector<std::string> symbols = codelet_model_symbols();
  std::vector<bench_result_t> runs;  // every run, in the order they ran
  for (unsigned k : o.log2) {
    const fs::path inputs = out / "inputs" / ("k" + std::to_string(k));
    prepare_bench_inputs(inputs, k, max_j, o.threads);
    std::vector<bench_config_t> configs;
    auto add = [&](const std::string& policy, unsigned c, unsigned j, unsigned jobs, bool baseline) {
      bench_config_t cfg;
      cfg.log2 = k;
      cfg.policy = policy;
      cfg.concurrency = c;
      cfg.partitions = j;
      cfg.jobs = jobs;
      cfg.ncpu = o.ncpu;
      cfg.ngpu = o.ngpu;
      cfg.baseline = baseline;
      cfg.inputs = inputs;
      configs.push_back(cfg);
    };
    if (!o.no_baseline) add(o.baseline, 1, 1, o.jobs * max_j, true);
    for (unsigned c : o.concurrency)
      for (unsigned j : o.partitions)
        for (const std::string& p : o.policies) add(p, c, j, o.jobs, false);
    if (o.calibrate)
      calibrate_models(
          calibration_configs(configs), o.calibrate_rounds,
          [&](const bench_config_t& cfg, unsigned round) {
            const std::string name = "calibrate-" + row_name(cfg) + "-r" + std::to_string(round + 1);
            // No --run-timeout: a run stopped early leaves StarPU no shutdown in
            // which to save what its models measured.
            bench_result_t r = run_child(cfg, out / "runs" / (name + ".json"), 0);
            log_line(stderr, r.ok() ? "progress" : "warning",
                     "bench: --calibrate: " + name + (r.ok() ? ": done" : ": FAILED: " + r.error));
            return r;
          },
          earlier_needs(out / "runs", k));
    // One round runs every row once: in the order above when there is one
    // round, else each round in a fresh random order.
    std::vector<std::vector<size_t>> rounds = run_rounds(configs.size(), o.repeat, o.seed);
    if (o.repeat == 1)
      for (size_t i = 0; i < configs.size(); ++i) rounds[0][i] = i;
    for (unsigned round = 0; round < o.repeat; ++round)
      for (size_t i : rounds[round]) {
        bench_config_t cfg = configs[i];
        const std::string name = run_name(cfg, round, o.repeat);
        cfg.trace = out / "traces" / (name + ".json");
        prov.round = round;
        prov.models_digest = tree_digest(perfmodel_dir());  // the models this run starts from
        const model_counts_t counts = read_model_counts(symbols);
        bench_result_t r = run_child(cfg, out / "runs" / (name + ".json"), o.run_timeout);
        r.models = model_state(r.model_needs, counts);  // judged once the run's needs are known
        char line[512];
        std::snprintf(line, sizeof line, "bench: [%zu/%zu] %s: %.3f s/proof, %zu/%zu verified%s%s", runs.size() + 1,
                      total, name.c_str(), r.s_per_proof, r.verified, r.proofs,
                      r.ok() ? "" : ", FAILED: ", r.ok() ? "" : r.error.c_str());
        log_line(stderr, r.ok() ? "progress" : "error", line);
        if (!o.store.empty()) append_store_line(o.store, store_line(r, machine, prov));
        runs.push_back(std::move(r));
      }
  }

  std::vector<bench_result_t> rows = aggregate_runs(runs);
  compute_ratios(rows);
  machine.load_end = read_loadavg();
  std::cout << "\n"
            << machine.command << "\n"
            << machine.date << ", " << machine.nproc << " CPUs (" << machine.cpu_model << "), load "
            << machine.load_start << " -> " << machine.load_end << "\n"
            << "s/proof = wall / proofs; x base, x eager = s/proof ratios (> 1: faster); latency per job (s)\n\n";
  print_bench_table(rows, std::cout);
  std::cout.flush();
  write_file_atomic(out / "bench.csv", std::string_view(bench_csv(rows)));
  write_file_atomic(out / "bench.json", std::string_view(bench_json(rows, machine).dump(2) + "\n"));
  std::printf("\nwrote %s and %s\n", (out / "bench.csv").c_str(), (out / "bench.json").c_str());
  const size_t failed =
      size_t(std::count_if(rows.begin(), rows.end(), [](const bench_result_t& r) { return !r.ok(); }));
  size_t cold = 0;
  if (o.require_calibrated)
    for (const bench_result_t& r : rows)
      if (!calibrated_row(r)) {
        std::fprintf(stderr, "starzk: bench: row %s was measured with models that were not calibrated (%s)%s\n",
                     row_name(r.config).c_str(), r.models.c_str(), cold++ ? "" : " (--require-calibrated)");
      }
  if (failed)
    std::fprintf(stderr, "starzk: bench: %zu of %zu runs FAILED (see the status column)\n", failed, rows.size());
  if (failed || cold) throw exit_status{1};
}

struct bench_one_options_t {
  bench_config_t config;
  std::string inputs, trace, result;
};

void run_bench_one(const bench_one_options_t& o) {
  bench_config_t cfg = o.config;
  cfg.inputs = o.inputs;
  cfg.trace = o.trace;
  // At the deadline: write the partial result and leave at once (the
  // partitions still in StarPU would only be waited for).
  auto at_deadline = [&o](const bench_result_t& partial) {
    try {
      write_file_atomic(o.result, std::string_view(bench_result_to_json(partial).dump(1) + "\n"));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "starzk: bench-one: %s\n", e.what());
    }
    std::fflush(nullptr);
    std::_Exit(1);
  };
  const bench_result_t r = run_bench_config(cfg, at_deadline);
  write_file_atomic(o.result, std::string_view(bench_result_to_json(r).dump(1) + "\n"));
  if (!r.ok()) throw exit_status{1};
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto o = std::make_shared<bench_options_t>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Sweep scheduling policy x concurrency x partitions x circuit size; print and save the table");
  cmd->footer(
      "Example:  starzk bench --policies starzk,eager,dmda --concurrency 1,4 --partitions 4 --log2 12 --out b/\n"
      "Each run proves --jobs jobs of j partitions on a Filecoin-shaped circuit of 2^k constraints with a\n"
      "development key, at most c jobs in flight, in a fresh process (fresh StarPU, own peak RSS); every\n"
      "proof is verified. The baseline row proves jobs x max(j) proofs one at a time with the same kernels.\n"
      "Writes OUT/bench.csv, OUT/bench.json, OUT/traces/<run>.json (see 'starzk trace') and caches the\n"
      "inputs in OUT/inputs/. Exit status 1 if any run failed or any proof did not verify (or, with\n"
      "--require-calibrated, if a row started from performance models short of StarPU's minimum samples).");
  cmd->add_option("--policies,-p", o->policies, "scheduling policies (ours and StarPU's), comma-separated")
      ->delimiter(',');
  cmd->add_option("--concurrency,-c", o->concurrency, "jobs in flight, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--partitions,-j", o->partitions, "partitions per job, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--log2,-k", o->log2, "circuit sizes 2^k, comma-separated, k in [10, 27]")
      ->delimiter(',')
      ->check(CLI::Range(10u, 27u));
  cmd->add_option("--jobs,-n", o->jobs, "jobs per run")->check(CLI::Range(1u, 100000u));
  // The same names and checks as prove's (--ncpu/--ngpu: the older names).
  cmd->add_option("--cpus,--ncpu", o->ncpu, "StarPU CPU workers (default: StarPU's)")->check(cpu_worker_count());
  cmd->add_option("--gpus,--ngpu", o->ngpu, "StarPU CUDA workers, one per GPU (default: every GPU)")
      ->check(gpu_worker_count());
  cmd->add_option("--out,-o", o->out, "output folder");
  cmd->add_option("--baseline", o->baseline, "policy of the one-proof-at-a-time row");
  cmd->add_flag("--no-baseline", o->no_baseline, "skip the one-proof-at-a-time row");
  cmd->add_option("--run-timeout", o->run_timeout,
                  "stop a run's proving after this many seconds; its row reports the proofs finished by then "
                  "(status FAILED: stopped)")
      ->check(CLI::Range(1u, 1000000u));
  cmd->add_option("--threads", o->threads, "threads for generating the inputs (default: all cores)")
      ->check(thread_count(true));
  cmd->add_option("--policy-plugin", o->policy_plugin,
                  "load scheduling policies from this shared object first, so --policies may name them "
                  "(docs/policies.md; default: $STARZK_POLICY_PLUGIN)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--repeat", o->repeat,
                  "run every row this many times, each round in a fresh random order; rows then show the mean "
                  "s/proof and its 95% confidence interval")
      ->check(CLI::Range(1u, 1000u));
  cmd->add_option("--seed", o->seed, "seed of the rounds' order (default: drawn and printed)");
  cmd->add_option("--store", o->store,
                  "append every run, with the commit, the machine, the environment and a digest of the "
                  "performance models it started from, as one JSON line to this file");
  cmd->add_flag(
      "--calibrate", o->calibrate,
      "before each size's rows, run it with STARPU_CALIBRATE=1 (where the rows may use GPUs, first under eager "
      "on the CPU workers alone unless their entries hold the minimum already; then StarPU's dm* rows of the "
      "sweep, else dmda) until every codelet x worker kind x footprint it uses has STARPU_CALIBRATE_MINIMUM "
      "samples");
  cmd->add_option("--calibrate-rounds", o->calibrate_rounds,
                  "at most this many calibration rounds per size (default 10); short models are reported")
      ->check(CLI::Range(1u, 1000u));
  cmd->add_flag("--require-calibrated", o->require_calibrated,
                "exit 1, naming the row, when a row started from uncalibrated models (the models column)");
  cmd->callback([o] { run_bench(*o); });

  // One run, in its own process; started by `starzk bench`.
  auto one = std::make_shared<bench_one_options_t>();
  CLI::App* sub = app.add_subcommand("bench-one", "one run of starzk bench (internal)");
  sub->group("");  // hidden from --help
  sub->add_option("--log2", one->config.log2)->required()->check(CLI::Range(10u, 27u));
  sub->add_option("--policy", one->config.policy)->required();
  sub->add_option("--concurrency", one->config.concurrency)->required()->check(CLI::Range(1u, 1024u));
  sub->add_option("--partitions", one->config.partitions)->required()->check(CLI::Range(1u, 1024u));
  sub->add_option("--jobs", one->config.jobs)->required()->check(CLI::Range(1u, 100000u));
  sub->add_option("--ncpu", one->config.ncpu);
  sub->add_option("--ngpu", one->config.ngpu);
  sub->add_option("--inputs", one->inputs)->required()->check(CLI::ExistingDirectory);
  sub->add_option("--trace", one->trace);
  sub->add_option("--deadline", one->config.deadline_s)->check(CLI::Range(1u, 1000000u));
  sub->add_option("--result", one->result)->required();
  sub->add_flag("--baseline", one->config.baseline);
  sub->callback([one] { run_bench_one(*one); });
}

}  // namespace starzk::cli
