// starzk gen: a Filecoin-shaped job for tests and benchmarks (src/gen):
// a circuit, DIR/witness-<i>.wtns, a development key (NOT from a ceremony:
// whoever ran the setup could forge proofs) and DIR/jobs.toml, a manifest
// ready for `starzk prove --manifest DIR/jobs.toml` whose outputs are
// proofs/proof-<i>.json, proofs/public-<i>.json and proofs.bin.
// --convention snarkjs (default) or bellman (the Filecoin convention).
// --format: iden3 files (circuit.r1cs, key.zkey / key.params) or compact
// ones (circuit.szcs, key.szpk; the default from 2^24), see gen/write.hpp.
// Witness files that would not fit the disk are reused by later partitions
// (the manifest says so in a comment). --gpu auto|on|off: where the key's
// fixed-base products run (groth16/setup.hpp).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/log_lines.hpp"
#include "cli/option_checks.hpp"
#include "cli/commands.hpp"
#include "cli/manifest.hpp"
#include "gen/filecoin_shape.hpp"
#include "gen/write.hpp"
#include "groth16/setup.hpp"
#include "io/atomic_file.hpp"

namespace starzk::cli {

namespace {

struct gen_options {
  unsigned log2 = 10;
  uint32_t partitions = 1;
  uint32_t distinct = 0;
  uint32_t n_public = 328;
  uint64_t seed = 0;
  std::string out;
  bool no_key = false;
  std::string convention = "snarkjs";
  std::string format = "auto";
  unsigned threads = 0;
  std::string gpu = "auto";
};

void run_gen(const gen_options& o) {
  namespace fs = std::filesystem;
  const fs::path dir(o.out);
  if (!o.no_key && parse_setup_device(o.gpu) == setup_device_t::gpu) {  // fail before generating anything
    std::string why;
    if (!setup_gpu_available(&why)) throw std::runtime_error("gen: --gpu on asks for a GPU but " + why);
  }
  const gen_params_t params{.log2_constraints = o.log2, .n_public = o.n_public, .seed = o.seed};
  gen_job_options_t jo;
  jo.partitions = o.partitions;
  jo.distinct = o.distinct;
  jo.format = parse_gen_format(o.format, o.log2);
  jo.key = !o.no_key;
  const bool bellman = o.convention == "bellman";
  jo.convention = bellman ? root_convention_t::bellman : root_convention_t::snarkjs;
  setup_info_t info;
  jo.setup.device = parse_setup_device(o.gpu);
  jo.setup.threads = o.threads;
  jo.setup.info = &info;
  jo.threads = o.threads;
  jo.progress = [](const fs::path& p) { log_line(stdout, "wrote", "wrote " + p.string(), {{"file", p.string()}}); };
  const gen_job_files_t files = write_generated_job(params, dir, jo);
  if (jo.key) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "starzk gen: key's scalars in %.2f s, fixed-base products on %s in %.2f s (setup %.2f s)%s",
                  info.scalars_s, info.device.c_str(), info.fixed_base_s, info.total_s,
                  jo.format == gen_format_t::compact ? ", streamed into the packed key" : "");
    log_line(stderr, "setup", line, {{"device", info.device}, {"seconds", info.total_s}});
  }

  manifest_t m;
  manifest_job_t job;
  job.name = "gen-k" + std::to_string(o.log2) + "-seed" + std::to_string(o.seed);
  job.key = files.key.filename();
  job.circuit = files.circuit.filename();
  for (const fs::path& w : files.witnesses) job.witnesses.push_back(w.filename());
  if (files.distinct < o.partitions) {
    job.note = "the " + std::to_string(o.partitions) + " partitions reuse " + std::to_string(files.distinct) +
               " distinct witness files (partition i proves witness-(i mod " + std::to_string(files.distinct) +
               ")) to save disk; every partition still gets its own proof (fresh r, s)";
    log_line(stderr, "note", "starzk gen: " + job.note);
  }
  job.out_dir = "proofs";  // proof-<i>.json and public-<i>.json: what starzk verify and snarkjs read
  job.proofs_bin = "proofs.bin";
  m.jobs.push_back(job);
  if (jo.key) std::printf("%s is a development key: NOT from a ceremony\n", files.key.c_str());
  write_file_atomic(dir / "jobs.toml", std::string_view(manifest_to_toml(m)));
  std::printf("wrote %s\n", (dir / "jobs.toml").c_str());
}

}  // namespace

void add_gen_command(CLI::App& app) {
  auto o = std::make_shared<gen_options>();
  CLI::App* cmd = app.add_subcommand("gen", "Generate a Filecoin-shaped circuit, witnesses, a dev key and a manifest");
  cmd->footer(
      "Example:  starzk gen --log2 12 --partitions 4 --out job/ && starzk prove --manifest job/jobs.toml\n"
      "The circuit has 2^k rows (bit decompositions, AND/XOR gadgets, 32-bit additions), ~99% of its aux\n"
      "witness values are 0 or 1; each partition gets its own satisfying witness.\n"
      "The key is a development key (fresh toxic waste): never use it for anything that matters.");
  cmd->add_option("--log2,-k", o->log2, "domain size 2^k, k in [10, 27]")->check(CLI::Range(10, 27));
  cmd->add_option("--partitions,-n", o->partitions, "partitions (witnesses)")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--public", o->n_public, "public inputs (clamped for small k)");
  cmd->add_option("--seed", o->seed, "seed of the circuit and witnesses");
  cmd->add_option("--out,-o", o->out, "output folder")->required();
  cmd->add_option("--convention", o->convention, "key convention: snarkjs (.zkey) or bellman (.params, Filecoin)")
      ->check(CLI::IsMember({"snarkjs", "bellman"}));
  cmd->add_option("--format", o->format,
                  "files: iden3 (.r1cs + .zkey/.params, read by snarkjs and bellman too), compact (.szcs + packed "
                  ".szpk key: a 2^27 job fits a 64 GiB disk), auto (compact from k = 24)")
      ->check(CLI::IsMember({"auto", "iden3", "compact"}))
      ->capture_default_str();
  cmd->add_option("--distinct-witnesses", o->distinct,
                  "witness files to write; partitions beyond them reuse them in turn (default: all, or as many as "
                  "the disk holds)");
  cmd->add_flag("--no-key", o->no_key, "skip the development key (the manifest then names a missing key)");
  cmd->add_option("--threads", o->threads, "CPU threads (default: all cores)")->check(thread_count(true));
  cmd->add_option("--gpu", o->gpu,
                  "where the key's fixed-base products run: auto (a CUDA device if present), on (a GPU or "
                  "fail), off (CPU); the key is the same bytes either way")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  cmd->callback([o] { run_gen(*o); });
}

}  // namespace starzk::cli
