// Fuzz targets of the key, circuit, witness and text readers: .zkey,
// .r1cs, .wtns (iden3 containers, io/binfile.hpp), bellman's .params, the
// snarkjs JSON files, the batch manifest and task traces.
//
// The binary readers read as the CLI does (cli/inputs.cpp): a key with
// every point checked on its curve (the subgroup tests that follow in the
// CLI, groth16/key_validation.hpp, are arithmetic on points already
// decoded and would cut the executions per second tenfold); a .params with
// and without its circuit (the multiplier fixture's, whose densities the
// seeds were made with, fuzz_seeds.cpp); the verifying key alone as
// `verify --params` reads it. A key that passes is checked against the
// circuit as the prover does first (check_prover_inputs: counts, domain,
// w[0]).
//
// The JSON readers get the input as a file (the size limit and the
// parser's errors included). A manifest is parsed from its text in both
// syntaxes (each input is tried as TOML and as JSON, so one corpus serves
// both parsers), relative to a folder that does not exist; the manifest
// reader documents std::runtime_error naming the manifest, the job and the
// field, so that is a clean rejection there. A manifest that parses is
// printed back (manifest_to_toml, what `starzk gen` writes) and the print
// parsed again: it must give the same jobs. A trace (`starzk trace
// summary|check|replay` read it) is read as a file; one that reads is
// planned for a replay, whole and one node's share of two, and turned into
// models (runtime/replay.hpp, where
// std::runtime_error naming the task is the documented rejection), then
// written back and read again: the same tasks.
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/manifest.hpp"
#include "fuzz_input.hpp"
#include "groth16/prover.hpp"
#include "io/params.hpp"
#include "io/proof_json.hpp"
#include "io/r1cs.hpp"
#include "io/vkey_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "runtime/replay.hpp"
#include "runtime/trace.hpp"

namespace starzk::fuzz {

namespace {

// What the prover does first with a key it is given: check it against the
// circuit and the witness (counts, domain, a snarkjs key's rows).
void use_key(const proving_key_t& pk) {
  accepts<prove_error>([&] { check_prover_inputs(pk, &circuit(), witness(), 1); });
}

void zkey(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.zkey");
  proving_key_t pk;
  if (accepts([&] { pk = read_zkey(p, zkey_read_options_t{.check = decode_check::on_curve}); })) use_key(pk);
  accepts([&] { (void)read_zkey_transcript(p); });
}

void r1cs(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.r1cs");
  r1cs_t cs;
  if (!accepts([&] { cs = read_r1cs(p); })) return;
  // What the reader returns must pass the writers' own shape check.
  check_r1cs_shape(p, cs);
}

void wtns(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.wtns");
  accepts([&] { (void)read_wtns(p); });
  accepts([&] { (void)read_wtns(p, circuit().n_vars); });
}

void params(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.params");
  const params_read_options_t o{.check = decode_check::on_curve, .threads = 1};
  accepts([&] { (void)scan_params(p); });
  proving_key_t pk;
  if (accepts([&] { pk = read_params(p, o); })) use_key(pk);
  if (accepts([&] { pk = read_params(p, circuit(), o); })) use_key(pk);
}

void params_vk(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.vk.params");
  accepts([&] { (void)read_params_vk(p); });
}

void proof_json(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.proof.json");
  accepts([&] { (void)read_proof_json(p); });
}

void public_json(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.public.json");
  accepts([&] { (void)read_public_json(p); });
}

void vkey_json(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.vkey.json");
  accepts([&] { (void)read_vkey_json(p); });
}

bool same_jobs(const cli::manifest_t& a, const cli::manifest_t& b) {
  if (a.jobs.size() != b.jobs.size()) return false;
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    const auto &x = a.jobs[i], &y = b.jobs[i];
    if (x.name != y.name || x.key != y.key || x.circuit != y.circuit || x.witnesses != y.witnesses ||
        x.out_dir != y.out_dir || x.proofs_bin != y.proofs_bin)
      return false;
  }
  return true;
}

void manifest(std::span<const uint8_t> in) {
  const std::string_view text(reinterpret_cast<const char*>(in.data()), in.size());
  const std::filesystem::path base = "/nonexistent-fuzz-base";
  cli::manifest_t m;
  if (accepts<std::runtime_error>([&] { m = cli::parse_manifest_toml(text, base, "input.toml"); })) {
    const std::string again = cli::manifest_to_toml(m);
    cli::manifest_t m2 = cli::parse_manifest_toml(again, base, "printed.toml");
    if (!same_jobs(m, m2)) std::abort();
  }
  accepts<std::runtime_error>([&] { m = cli::parse_manifest_json(text, base, "input.json"); });
}

void trace(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.trace.json");
  runtime::trace_t t;
  if (!accepts<std::runtime_error>([&] { t = runtime::load_trace(p.string()); })) return;
  accepts<std::runtime_error>([&] { (void)runtime::plan_replay(t); });
  // One node's share of two (a runtime_error when none of its partitions
  // falls to it), planned as a graph of its own.
  accepts<std::runtime_error>([&] { (void)runtime::plan_replay(runtime::rank_share(t, 1, 2)); });
  (void)runtime::models_from_trace(t);
  std::stringstream text;
  runtime::write_trace_json(t, text);
  const runtime::trace_t again = runtime::read_trace_json(text);
  if (again.events.size() != t.events.size() || again.submitted != t.submitted) std::abort();
}

const target_t targets[] = {
    {"zkey", zkey},
    {"r1cs", r1cs},
    {"wtns", wtns},
    {"params", params},
    {"params_vk", params_vk},
    {"proof_json", proof_json},
    {"public_json", public_json},
    {"vkey_json", vkey_json},
    {"manifest", manifest},
    {"trace", trace},
};

}  // namespace

std::span<const target_t> reader_targets() { return targets; }

}  // namespace starzk::fuzz
