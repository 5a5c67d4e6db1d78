// starzk prove: one Groth16 proof from a key, a witness and (for bellman /
// Filecoin keys) the circuit. The proof is verified against the key before
// anything is written. Its outputs (--public, --out, --proof) are one output
// set (io/proof_files.hpp): they appear together or not at all, an output
// that is also an input is refused before any work, and a failed run
// leaves none of them behind, not even the previous run's.
//
// Where: `--gpu auto` (default) proves through the StarPU DAG with the
// codelets' CUDA bodies when this build has them and a CUDA device is
// present (one partition, policy starzk: the same path as --manifest), else
// with the CPU prover; `on` insists on the GPU (a clear error without one),
// `off` is the CPU prover.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "cli/option_checks.hpp"
#include "cli/batch_run.hpp"
#include "cli/commands.hpp"
#include "cli/heap_policy.hpp"
#include "cli/file_errors.hpp"
#include "cli/inputs.hpp"
#include "cli/log_lines.hpp"
#include "dag/key_bundle.hpp"
#include "dag/prove_dag.hpp"
#include "groth16/setup.hpp"
#include "groth16/witness_map.hpp"
#include "runtime/starpu_session.hpp"
#ifdef STARZK_HAVE_MPI
#include "cli/mpi_run.hpp"
#endif
#include "groth16/prover.hpp"
#include "io/output_set.hpp"
#include "io/proof_files.hpp"

namespace starzk::cli {

namespace {

struct prove_options {
  std::string zkey, params, circuit, wtns, proof_json, public_json, out;
  std::string gpu = "auto";
  unsigned threads = 0;
  bool revalidate = false;
  bool json = false;  // the final line as one JSON object
};

// Under --verbose, one line of where a CPU proof's time went.
void log_phases(const prove_phases_t& phases) {
  std::string text = "starzk prove: steps (ms):";
  nlohmann::json fields = nlohmann::json::object();
  for (const prove_phase_t& p : phases) {
    char ms[32];
    std::snprintf(ms, sizeof ms, " %.1f", p.seconds * 1e3);
    text += std::string(" ") + p.name + ms + ",";
    fields[p.name] = p.seconds;
  }
  text.pop_back();
  log_verbose(stderr, "steps", text, {{"steps_s", fields}});
}

// The proof through the DAG on the GPUs; std::nullopt when StarPU has no
// CUDA worker (a StarPU without CUDA) and the caller may fall back.
std::optional<proof_t> prove_on_gpu(std::shared_ptr<const proving_key_t> pk, std::shared_ptr<const r1cs_t> cs,
                                    const std::string& name, const std::vector<fr_t>& w, unsigned threads,
                                    std::string* where) {
  // The CPU prover's checks and messages first (counts, w[0], a snarkjs
  // key's circuit row by row), so both paths refuse bad input alike.
  check_prover_inputs(*pk, cs.get(), w, threads);
  runtime::starpu_session session(runtime::session_options_t{});  // policy: $STARPU_SCHED, else starzk
  if (session.cuda_workers() == 0) return std::nullopt;
  const r1cs_t* circuit = cs.get();
  auto bundle = std::make_shared<const dag::key_bundle_t>(std::move(pk), std::move(cs), name, threads);
  proof_t p;
  try {
    p = dag::prove_dag(bundle, w, std::nullopt, dag::batch_options_t{.threads_per_task = threads ? threads : 1});
  } catch (const prove_error&) {
    // The proof did not verify: name the constraint, as the CPU prover does.
    if (circuit)
      if (const auto row = first_unsatisfied_row(*circuit, w, threads)) throw unsatisfied_error(*row);
    throw;
  }
  *where = "DAG on " + std::to_string(session.cuda_workers()) + " GPU(s)";
  return p;
}

void run_prove(const prove_options& o) {
  prepare_heap();  // one proof: before its first large block (heap_policy.hpp)
  if (o.proof_json.empty() && o.out.empty())
    throw std::invalid_argument("nothing to write: give --proof (snarkjs JSON) and/or --out (192-byte binary)");
  // Before any work: no output may overwrite an input or another output;
  // leftovers of a killed run go, and so do the previous outputs, so that a
  // failed run leaves nothing that looks like its result.
  const proof_outputs_t outputs{.public_json = o.public_json, .proof_bin = o.out, .proof_json = o.proof_json};
  {
    std::vector<named_path_t> in, out;
    for (const auto& [p, what] :
         {std::pair{&o.zkey, "the key"}, {&o.params, "the key"}, {&o.circuit, "the circuit"}, {&o.wtns, "the witness"}})
      if (!p->empty()) in.push_back({*p, what});
    for (const auto& [p, what] : {std::pair{&o.proof_json, "--proof"}, {&o.public_json, "--public"}, {&o.out, "--out"}})
      if (!p->empty()) out.push_back({*p, what});
    check_outputs_apart(in, out);
    clean_proof_outputs(outputs);
    const auto members = outputs.members();
    remove_output_set(members);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const setup_device_t device = parse_setup_device(o.gpu);  // auto | on | off
  std::string why;
  const bool gpu_present = device != setup_device_t::cpu && setup_gpu_available(&why);
  if (device == setup_device_t::gpu && !gpu_present)
    throw resource_error("--gpu on: " + why + " (use --gpu off or auto to prove on the CPU)");
  std::string where = "CPU";
  std::shared_ptr<r1cs_t> cs;
  if (!o.circuit.empty()) cs = std::make_shared<r1cs_t>(load_circuit(o.circuit));
  // Where the time goes, for --verbose: the loads, then the prover's steps.
  prove_phases_t phases;
  auto lap = [&, last = t0](const char* name) mutable {
    const auto now = std::chrono::steady_clock::now();
    phases.push_back({name, std::chrono::duration<double>(now - last).count()});
    last = now;
  };
  if (cs) lap("circuit");
  // The key is validated where the proof will run (--gpu off: the CPU).
  loaded_key_t key = load_key(o.zkey, o.params, cs.get(),
                              key_load_options_t{.revalidate = o.revalidate,
                                                 .device = device,
                                                 .threads = o.threads,
                                                 .circuit_path = o.circuit,
                                                 .map_points = !gpu_present});
  const auto pk = std::make_shared<const proving_key_t>(std::move(key.pk));
  lap("key");
  const std::vector<fr_t> w = load_witness(o.wtns, pk->n_vars, key.path, o.circuit);
  lap("witness");

  // A proof refused (a witness that breaks a constraint, a corrupt key)
  // names the input it is about, and the others it speaks of.
  const proof_t proof = naming_refusal({{o.wtns, "witness"}, {key.path, "key"}, {o.circuit, "circuit"}}, [&] {
    std::optional<proof_t> on_gpu;
    if (gpu_present) {
      on_gpu = prove_on_gpu(pk, cs, key.path, w, o.threads, &where);
      if (!on_gpu && device == setup_device_t::gpu)
        throw resource_error("--gpu on: StarPU found no CUDA worker (a StarPU built without CUDA?)");
    }
    return on_gpu ? *on_gpu : prove(*pk, cs.get(), w, o.threads, &phases);
  });
  if (!gpu_present) log_phases(phases);

  write_proof_outputs(outputs, proof, public_inputs(*pk, w));  // together or not at all
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (o.json) {
    nlohmann::json outs = nlohmann::json::array();
    for (const std::string* p : {&o.proof_json, &o.public_json, &o.out})
      if (!p->empty()) outs.push_back(*p);
    std::printf("%s\n", nlohmann::json{{"command", "prove"},
                                       {"ok", true},
                                       {"key", key.path},
                                       {"seconds", s},
                                       {"key_seconds", key.check.hash_seconds + key.check.read_seconds +
                                                           (key.check.validated ? key.check.info.seconds : 0.0)},
                                       {"key_validated", key.check.validated},
                                       {"where", where},
                                       {"outputs", outs}}
                            .dump()
                            .c_str());
    return;
  }
  std::printf("proof verified against %s and written (%.3f s, %s)\n", key.path.c_str(), s, where.c_str());
}

}  // namespace

void add_prove_command(CLI::App& app) {
  auto o = std::make_shared<prove_options>();
  auto b = std::make_shared<batch_run_options_t>();
  CLI::App* cmd = app.add_subcommand("prove", "Make Groth16 proofs (each verified before it is written)");
  cmd->footer(
      "Examples:\n"
      "  snarkjs key:  starzk prove --zkey c.zkey --wtns w.wtns --proof proof.json --public public.json\n"
      "  Filecoin key: starzk prove --params p.params --circuit c.r1cs --wtns w.wtns --out proof.bin\n"
      "  a batch:      starzk prove --manifest jobs.toml [--policy starzk] [--trace run.json] [--mem-budget 64G]\n"
      "A manifest lists jobs (key, circuit, witnesses, outputs; see docs/dag.md) and runs them all at once\n"
      "as StarPU task DAGs. r and s are drawn from the OS CSPRNG for every proof. An unsatisfied witness is refused.");
  auto* manifest = cmd->add_option("--manifest", b->manifest, "prove every job of a manifest (.toml or .json)")
                       ->check(CLI::ExistingFile);
  cmd->add_option("--policy", b->policy,
                  "with --manifest: StarPU scheduling policy (starzk, eager, dmdas, ...; wins over $STARPU_SCHED)");
  cmd->add_option("--policy-plugin", b->policy_plugin,
                  "with --manifest: load scheduling policies from this shared object first (docs/policies.md; "
                  "default: $STARZK_POLICY_PLUGIN)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--trace", b->trace, "with --manifest: record every task as Chrome trace JSON");
  cmd->add_option("--mem-budget", b->mem_budget,
                  "with --manifest: host bytes partitions in flight may hold (auto = half of MemAvailable, "
                  "none, or e.g. 64G)")
      ->check(memory_budget());
  cmd->add_option("--cpus", b->cpus, "with --manifest: StarPU CPU workers (wins over $STARPU_NCPU; default: StarPU's)")
      ->check(cpu_worker_count());
  cmd->add_option(
         "--gpus", b->gpus,
         "with --manifest: StarPU CUDA workers, one per GPU (wins over $STARPU_NCUDA; default: every GPU; 0: none)")
      ->check(gpu_worker_count());
  cmd->add_option("--place", b->place,
                  "with --manifest: where codelets may run, e.g. spmv=cpu,msm=cuda (cpu|cuda|any; default any)");
  cmd->add_option("--threads-per-task", b->threads_per_task, "with --manifest: threads each task may use (default 1)")
      ->check(thread_count(false));
  cmd->add_flag_callback(
      "--json", [o, b] { o->json = b->json = true, json_command = "prove"; },
      "the final summary as one JSON object on stdout (with --manifest: progress lines go to stderr)");
  cmd->add_flag("--fresh", b->fresh,
                "with --manifest: prove every partition, ignoring what the job journals say an earlier run "
                "finished (docs/reliability.md)");
  cmd->add_flag_callback(
      "--revalidate", [o, b] { o->revalidate = b->revalidate = true; },
      "validate the key's points even if a key with the same content passed before (docs/usage.md, "
      "\"Keys are validated once\")");
#ifdef STARZK_HAVE_MPI
  cmd->add_flag("--mpi", b->mpi,
                "with --manifest, under mpirun/srun: one StarPU-MPI rank per node, partition p on rank p mod N, "
                "proofs gathered to rank 0, which writes every output (docs/slurm.md)")
      ->needs(manifest);
#endif
  // TEST ONLY (hidden): the same r, s for every proof, for byte-identity tests.
  cmd->add_option_function<std::string>(
         "--test-fixed-rs", [b](const std::string& v) { b->fixed_rs = parse_test_fixed_rs(v); },
         "TEST ONLY: fixed r,s (decimal) for every proof of --manifest")
      ->group("");
  cmd->add_option_function<std::string>(
         "--test-inject-fault",
         [b](const std::string& v) {
           const size_t colon = v.rfind(':');
           uint32_t index = 0;
           const char* end = v.data() + v.size();
           if (colon == std::string::npos || colon == 0 ||
               std::from_chars(v.data() + colon + 1, end, index).ptr != end || colon + 1 == v.size())
             throw std::invalid_argument("--test-inject-fault '" + v + "': expected PHASE:INDEX");
           b->inject_fault = std::pair<std::string, uint32_t>{v.substr(0, colon), index};
         },
         "TEST ONLY: the first attempt of partition INDEX fails in PHASE as a device fault would")
      ->group("");
  cmd->add_option("--test-mpi-stop", b->test_mpi_stop,
                  "TEST ONLY, with --mpi: after this rank's first partition, signal: send itself SIGUSR1; "
                  "await: wait until another rank stops")
      ->check(CLI::IsMember({"signal", "await"}))
      ->group("");
  auto* zkey = cmd->add_option("--zkey", o->zkey, "snarkjs proving key (.zkey, bls12-381)")->check(CLI::ExistingFile);
  auto* params =
      cmd->add_option("--params", o->params, "bellman/Filecoin parameters (.params)")->check(CLI::ExistingFile);
  zkey->excludes(params);
  cmd->add_option("--circuit,--r1cs", o->circuit,
                  "circuit (.r1cs): required with --params; with --zkey it checks the witness row by row")
      ->check(CLI::ExistingFile);
  auto* wtns =
      cmd->add_option("--wtns", o->wtns, "witness (.wtns, or .szwt from starzk gen)")->check(CLI::ExistingFile);
  cmd->add_option("--proof", o->proof_json, "write the proof as snarkjs proof.json");
  cmd->add_option("--public", o->public_json, "write the public inputs as snarkjs public.json");
  cmd->add_option("--out", o->out, "write the proof as 192 bytes A||B||C (compressed, bellman/Filecoin form)");
  cmd->add_option("--threads", o->threads, "CPU threads (default: all cores)")->check(thread_count(true));
  cmd->add_option("--gpu", o->gpu,
                  "auto (default): prove on the GPUs through the StarPU DAG when a CUDA device is present; "
                  "on: require one; off: the CPU prover")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  manifest->excludes(zkey)->excludes(params)->excludes(wtns);
  cmd->callback([o, b, zkey, params, wtns, manifest] {
    b->quiet = verbosity() == verbosity_t::quiet;  // --quiet (option_checks.hpp)
    if (manifest->count()) {
#ifdef STARZK_HAVE_MPI
      if (b->mpi) {
        if (const int rc = run_manifest_mpi(*b); rc != 0) throw exit_status{rc};
        return;
      }
#endif
      if (const int rc = run_manifest(*b); rc != 0) throw exit_status{rc};
      return;
    }
    if (zkey->count() + params->count() != 1) throw std::invalid_argument("give exactly one key: --zkey or --params");
    if (wtns->count() == 0) throw std::invalid_argument("give the witness: --wtns FILE");
    run_prove(*o);
  });
}

}  // namespace starzk::cli
