// starzk prove: one Groth16 proof from a key, a witness and (for bellman /
// Filecoin keys) the circuit. The proof is verified against the key before
// anything is written, and every output goes through a temporary file and a
// rename, so a failed run leaves no output behind.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/batch_run.hpp"
#include "cli/commands.hpp"
#include "cli/inputs.hpp"
#ifdef STARZK_HAVE_MPI
#include "cli/mpi_run.hpp"
#endif
#include "groth16/proof_bytes.hpp"
#include "groth16/prover.hpp"
#include "io/atomic_file.hpp"
#include "io/proof_json.hpp"

namespace starzk::cli {

namespace {

struct prove_options {
  std::string zkey, params, circuit, wtns, proof_json, public_json, out;
  unsigned threads = 0;
};

void run_prove(const prove_options& o) {
  if (o.proof_json.empty() && o.out.empty())
    throw std::invalid_argument("nothing to write: give --proof (snarkjs JSON) and/or --out (192-byte binary)");
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<r1cs_t> cs;
  if (!o.circuit.empty()) cs = std::make_unique<r1cs_t>(load_circuit(o.circuit));
  const loaded_key_t key = load_key(o.zkey, o.params, cs.get());
  const std::vector<fr_t> w = load_witness(o.wtns, key.pk.n_vars);

  const proof_t proof = prove(key.pk, cs.get(), w, o.threads);

  if (!o.proof_json.empty()) write_proof_json(o.proof_json, proof);
  if (!o.public_json.empty()) write_public_json(o.public_json, public_inputs(key.pk, w));
  if (!o.out.empty()) {
    const auto bytes = encode_proof(proof);
    write_file_atomic(o.out, std::span<const uint8_t>(bytes));
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("proof verified against %s and written (%.3f s)\n", key.path.c_str(), s);
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
  cmd->add_option("--policy", b->policy, "with --manifest: StarPU scheduling policy (starzk, eager, dmdas, ...)");
  cmd->add_option("--trace", b->trace, "with --manifest: record every task as Chrome trace JSON");
  cmd->add_option("--mem-budget", b->mem_budget,
                  "with --manifest: host bytes partitions in flight may hold (auto = half of MemAvailable, "
                  "none, or e.g. 64G)");
  cmd->add_option("--cpus", b->cpus, "with --manifest: StarPU CPU workers (default: StarPU's)");
  cmd->add_option("--gpus", b->gpus, "with --manifest: StarPU CUDA workers, one per GPU (default: every GPU; 0: none)");
  cmd->add_option("--place", b->place,
                  "with --manifest: where codelets may run, e.g. spmv=cpu,msm=cuda (cpu|cuda|any; default any)");
  cmd->add_option("--threads-per-task", b->threads_per_task, "with --manifest: threads each task may use (default 1)");
  cmd->add_flag("--quiet", b->quiet, "with --manifest: only errors and the final line");
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
  auto* zkey = cmd->add_option("--zkey", o->zkey, "snarkjs proving key (.zkey, bls12-381)")->check(CLI::ExistingFile);
  auto* params = cmd->add_option("--params", o->params, "bellman/Filecoin parameters (.params)")->check(CLI::ExistingFile);
  zkey->excludes(params);
  cmd->add_option("--circuit,--r1cs", o->circuit,
                  "circuit (.r1cs): required with --params; with --zkey it checks the witness row by row")
      ->check(CLI::ExistingFile);
  auto* wtns = cmd->add_option("--wtns", o->wtns, "witness (.wtns)")->check(CLI::ExistingFile);
  cmd->add_option("--proof", o->proof_json, "write the proof as snarkjs proof.json");
  cmd->add_option("--public", o->public_json, "write the public inputs as snarkjs public.json");
  cmd->add_option("--out", o->out, "write the proof as 192 bytes A||B||C (compressed, bellman/Filecoin form)");
  cmd->add_option("--threads", o->threads, "CPU threads (default: all cores)");
  manifest->excludes(zkey)->excludes(params)->excludes(wtns);
  cmd->callback([o, b, zkey, params, wtns, manifest] {
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
