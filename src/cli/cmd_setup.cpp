// starzk setup: a DEVELOPMENT key for a circuit, from fresh toxic waste.
// Not a ceremony: the secrets pass through this process (see
// groth16/setup.hpp). Writes the proving key (.zkey for the snarkjs
// convention, .params for the bellman/Filecoin one) and a snarkjs-style
// verification_key.json. --gpu auto|on|off picks where the fixed-base
// products run (groth16/setup.hpp: same bytes either way).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/log_lines.hpp"
#include "cli/option_checks.hpp"
#include "cli/commands.hpp"
#include "cli/inputs.hpp"
#include "cli/vk_export.hpp"
#include "groth16/setup.hpp"
#include "io/params.hpp"
#include "io/zkey.hpp"

namespace starzk::cli {

namespace {

struct setup_options {
  std::string r1cs, zkey, params, vkey;
  unsigned threads = 0;
  std::string gpu = "auto";
};

void run_setup(const setup_options& o) {
  const r1cs_t cs = load_circuit(o.r1cs);
  log_line(stderr, "warning",
           "starzk setup: DEVELOPMENT KEY from fresh toxic waste, NOT a ceremony: do not use it to secure anything.");
  const root_convention_t conv = o.zkey.empty() ? root_convention_t::bellman : root_convention_t::snarkjs;
  setup_info_t info;
  setup_options_t so;
  so.device = parse_setup_device(o.gpu);
  so.threads = o.threads;
  so.info = &info;
  const proving_key_t pk = setup(cs, conv, so);
  char line[256];
  std::snprintf(line, sizeof line, "starzk setup: fixed-base products on %s in %.2f s (setup %.2f s)",
                info.device.c_str(), info.fixed_base_s, info.total_s);
  log_line(stderr, "setup", line,
           {{"device", info.device}, {"fixed_base_s", info.fixed_base_s}, {"seconds", info.total_s}});
  if (!o.zkey.empty()) write_zkey(o.zkey, pk);
  if (!o.params.empty()) write_params(o.params, pk);
  if (!o.vkey.empty()) write_vkey_with_alphabeta(o.vkey, pk.vk);
  std::printf("key for %u constraints, %u wires, %u public, domain %llu written\n", cs.n_constraints, cs.n_vars,
              cs.n_public, static_cast<unsigned long long>(pk.domain_size));
}

}  // namespace

void add_setup_command(CLI::App& app) {
  auto o = std::make_shared<setup_options>();
  CLI::App* cmd = app.add_subcommand("setup", "Make a DEVELOPMENT proving key for a circuit (not a ceremony)");
  cmd->footer(
      "Examples:\n"
      "  snarkjs convention:  starzk setup --r1cs c.r1cs --zkey c.zkey --vkey verification_key.json\n"
      "  bellman convention:  starzk setup --r1cs c.r1cs --params c.params --vkey verification_key.json\n"
      "The toxic waste (tau, alpha, beta, gamma, delta) comes from the OS CSPRNG and is dropped, but this\n"
      "process saw it: keys made here are for development, tests and benchmarks only.");
  cmd->add_option("--r1cs", o->r1cs, "circuit (.r1cs)")->required()->check(CLI::ExistingFile);
  auto* zkey = cmd->add_option("--zkey", o->zkey, "write a snarkjs .zkey (odd-coset H convention)");
  auto* params = cmd->add_option("--params", o->params, "write a bellman/Filecoin .params (coset H convention)");
  zkey->excludes(params);
  cmd->add_option("--vkey", o->vkey, "write verification_key.json");
  cmd->add_option("--threads", o->threads, "CPU threads (default: all cores)")->check(thread_count(true));
  cmd->add_option("--gpu", o->gpu,
                  "where the fixed-base products run: auto (a CUDA device if present), on (a GPU or fail), off "
                  "(CPU); the key is the same bytes either way")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  cmd->callback([o, zkey, params] {
    if (zkey->count() + params->count() != 1) throw std::invalid_argument("give exactly one of --zkey or --params");
    run_setup(*o);
  });
}

}  // namespace starzk::cli
