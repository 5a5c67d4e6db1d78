// starzk vk export: the verifying key of a proving key, for verifiers that
// should not need the proving key (a Filecoin .params is 47 GiB; its .vk is
// 2,116 bytes).
//   --json verification_key.json   snarkjs form, e(α, β) filled in (vk_export.hpp)
//   --vk   key.vk                  bellman/Filecoin form (io/bellman_vk.hpp)
// From --zkey (a .zkey, a .szkc of one, or a .szpk with --circuit) or
// --params (a .params: only its leading verifying key is read, or a .szkc /
// .szpk of one). The .vk form carries beta_g1 and delta_g1, which a
// verifying_key_t lacks: they come from the .params' leading bytes, or from
// the proving key, read in full for the other formats.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/file_errors.hpp"
#include "cli/inputs.hpp"
#include "cli/vk_export.hpp"
#include "io/bellman_vk.hpp"
#include "io/zkey.hpp"

namespace starzk::cli {

namespace {

struct vk_options {
  std::string zkey, params, circuit, json, vk;
};

bool has_magic(const std::string& path, const char* magic) {
  std::ifstream f(path, std::ios::binary);
  char m[4] = {};
  f.read(m, 4);
  return f.gcount() == 4 && std::string(m, 4) == magic;
}

bellman_vk_t full_vk(const vk_options& o) {
  const std::string& path = o.zkey.empty() ? o.params : o.zkey;
  if (!has_magic(path, "szkc") && !has_magic(path, "szpk"))
    return naming({{path, "key"}}, [&] {
      if (!o.params.empty()) return read_bellman_vk(o.params, true);  // the .params' leading bytes
      return bellman_vk_of(read_zkey(o.zkey, zkey_read_options_t::verifying_key_only()));
    });
  std::unique_ptr<r1cs_t> cs;
  if (!o.circuit.empty()) cs = std::make_unique<r1cs_t>(load_circuit(o.circuit));
  return bellman_vk_of(load_key(o.zkey, o.params, cs.get(), key_load_options_t{.circuit_path = o.circuit}).pk);
}

void run_vk_export(const vk_options& o) {
  if (o.json.empty() && o.vk.empty())
    throw std::invalid_argument("nothing to write: give --json FILE and/or --vk FILE");
  if (!o.json.empty()) {
    write_vkey_with_alphabeta(o.json, load_verifying_key("", o.zkey, o.params));
    std::printf("verification key written to %s (snarkjs JSON)\n", o.json.c_str());
  }
  if (!o.vk.empty()) {
    write_bellman_vk(o.vk, full_vk(o));
    std::printf("verification key written to %s (bellman/Filecoin .vk)\n", o.vk.c_str());
  }
}

}  // namespace

void add_vk_command(CLI::App& app) {
  auto o = std::make_shared<vk_options>();
  CLI::App* vk = app.add_subcommand("vk", "Verifying keys: export one from a proving key");
  vk->require_subcommand(1);
  CLI::App* cmd =
      vk->add_subcommand("export", "Write the verifying key of a .zkey or .params (snarkjs JSON, Filecoin .vk)");
  cmd->footer(
      "Examples:\n"
      "  starzk vk export --params porep.params --vk porep.vk\n"
      "  starzk vk export --zkey circuit.zkey --json verification_key.json --vk circuit.vk\n"
      "Then: starzk verify --vkey porep.vk --proof proof.bin --public public.json");
  auto* zkey =
      cmd->add_option("--zkey", o->zkey, "snarkjs proving key (.zkey, or its .szkc/.szpk)")->check(CLI::ExistingFile);
  auto* params = cmd->add_option("--params", o->params, "bellman/Filecoin parameters (.params, or its .szkc/.szpk)")
                     ->check(CLI::ExistingFile);
  zkey->excludes(params);
  cmd->add_option("--circuit,--r1cs", o->circuit, "the circuit (a .szpk needs it)")->check(CLI::ExistingFile);
  cmd->add_option("--json", o->json, "write snarkjs verification_key.json");
  cmd->add_option("--vk", o->vk, "write bellman/Filecoin .vk (bytes of VerifyingKey::write)");
  cmd->callback([o, zkey, params] {
    if (zkey->count() + params->count() != 1) throw std::invalid_argument("give exactly one key: --zkey or --params");
    run_vk_export(*o);
  });
}

}  // namespace starzk::cli
