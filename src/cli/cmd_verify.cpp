// starzk verify: checks Groth16 proofs with one multi-pairing each. Exit
// status 0 only if every proof is valid; 1 if one is INVALID; 3 if a file
// cannot be read or is malformed (main.cpp); --json prints the outcome as
// one JSON object {"command":"verify","valid","proofs","invalid":[i...]}.
//   Filecoin form: --vkey K.vk (or --params K.vk) --proof proof.bin --public public.json
//   snarkjs form:  --vkey verification_key.json --proof proof.json --public public.json
//   bellman form:  --params P.params (or --zkey K.zkey) --proof proof.bin --public public.json...
//                  (proof.bin holds one 192-byte proof per --public file)
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/file_errors.hpp"
#include "cli/inputs.hpp"
#include "groth16/verifier.hpp"
#include "io/io_error.hpp"
#include "io/proof_files.hpp"
#include "io/proof_json.hpp"
#include "io/vkey_json.hpp"

namespace starzk::cli {

namespace {

struct verify_options {
  std::string vkey, zkey, params, proof;
  std::vector<std::string> publics;
  bool json = false;
};

bool is_json(const std::string& path) { return path.size() >= 5 && path.substr(path.size() - 5) == ".json"; }

int run_verify(const verify_options& o) {
  const verifying_key_t vk = load_verifying_key(o.vkey, o.zkey, o.params);
  const std::string& key = !o.vkey.empty() ? o.vkey : !o.zkey.empty() ? o.zkey : o.params;
  const std::vector<proof_t> proofs = naming({{o.proof, "proof"}}, [&] {
    if (is_json(o.proof)) return std::vector<proof_t>{read_proof_json(o.proof)};
    return read_proofs_bin(o.proof, o.publics.size());  // its size checked before it is read
  });
  if (proofs.size() != o.publics.size())
    throw std::invalid_argument(o.proof + " holds " + std::to_string(proofs.size()) + " proof(s) but " +
                                std::to_string(o.publics.size()) + " --public file(s) were given");
  std::vector<size_t> bad;
  for (size_t i = 0; i < proofs.size(); ++i) {
    const std::vector<fr_t> x =
        naming({{o.publics[i], "public inputs"}}, [&] { return read_public_json(o.publics[i]); });
    if (x.size() + 1 != vk.ic.size())
      throw io_error(o.publics[i], "has " + std::to_string(x.size()) + " public inputs, the key " + key + " expects " +
                                       std::to_string(vk.ic.size() - 1));
    const bool ok = verify(vk, x, proofs[i]);
    if (!ok) bad.push_back(i);
    if (proofs.size() > 1 && !o.json) std::printf("proof %zu: %s\n", i, ok ? "OK" : "INVALID");
  }
  if (o.json)
    std::printf(
        "%s\n",
        nlohmann::json{{"command", "verify"}, {"valid", bad.empty()}, {"proofs", proofs.size()}, {"invalid", bad}}
            .dump()
            .c_str());
  if (!bad.empty()) {
    // The proof file, the key and the public inputs it was checked with.
    std::string with = "key " + key + ", public inputs " + o.publics[bad[0]];
    if (bad.size() > 1) with += ", ...";
    std::string which = proofs.size() == 1 ? "" : " " + std::to_string(bad[0]);
    for (size_t k = 1; k < bad.size() && k < 8; ++k) which += ", " + std::to_string(bad[k]);
    if (bad.size() > 8) which += ", ...";
    std::fprintf(stderr, "starzk: %s: INVALID proof%s (%zu of %zu; %s)\n", o.proof.c_str(), which.c_str(), bad.size(),
                 proofs.size(), with.c_str());
    return exit_no;
  }
  if (!o.json) std::printf("OK\n");
  return exit_ok;
}

}  // namespace

void add_verify_command(CLI::App& app) {
  auto o = std::make_shared<verify_options>();
  CLI::App* cmd = app.add_subcommand("verify", "Verify Groth16 proofs (exit 0 only if all are valid)");
  cmd->footer(
      "Examples:\n"
      "  starzk verify --vkey verification_key.json --proof proof.json --public public.json\n"
      "  starzk verify --params p.params --proof proof.bin --public public.json\n"
      "  starzk verify --vkey porep.vk --proof proof.bin --public public.json   (Filecoin .vk, 2,116 bytes)\n"
      "Exit status: 0 every proof valid, 1 a proof INVALID, 2 usage, 3 a file unreadable or malformed.\n"
      "Proof points are checked to be on the curve and in the prime-order subgroup.");
  auto* vkey = cmd->add_option("--vkey", o->vkey, "snarkjs verification_key.json, or a bellman/Filecoin .vk")
                   ->check(CLI::ExistingFile);
  auto* zkey = cmd->add_option("--zkey", o->zkey, "take the verifying key from a .zkey")->check(CLI::ExistingFile);
  auto* params =
      cmd->add_option("--params", o->params, "take the verifying key from a .params")->check(CLI::ExistingFile);
  vkey->excludes(zkey)->excludes(params);
  zkey->excludes(params);
  cmd->add_option("--proof", o->proof, "proof.json (snarkjs) or a file of 192-byte proofs")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--public", o->publics, "public.json (one per proof, in order)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_flag_callback(
      "--json", [o] { o->json = true, json_command = "verify"; }, "print the outcome as one JSON object on stdout");
  cmd->callback([o, vkey, zkey, params] {
    if (vkey->count() + zkey->count() + params->count() != 1)
      throw std::invalid_argument("give exactly one of --vkey, --zkey, --params");
    if (int rc = run_verify(*o)) throw exit_status{rc};
  });
}

}  // namespace starzk::cli
