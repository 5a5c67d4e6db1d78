// Fuzz targets of the text formats: snarkjs proof.json, public.json and
// verification_key.json (io/proof_json.hpp, io/vkey_json.hpp), and the
// batch manifest in TOML and JSON (cli/manifest.hpp).
//
// The JSON readers get the input as a file, as the CLI does (the size limit
// and the parser's errors included). A manifest is parsed from its text in
// both syntaxes (each input is tried as TOML and as JSON, so one corpus
// serves both parsers), relative to a folder that does not exist; the
// manifest reader documents std::runtime_error naming the manifest, the job
// and the field, so that is a clean rejection there. A manifest that parses
// is printed back (manifest_to_toml, what `starzk gen` writes) and the
// print parsed again: it must give the same jobs.
#include <string>
#include <string_view>

#include "cli/manifest.hpp"
#include "fuzz_input.hpp"
#include "fuzz_targets.hpp"
#include "io/proof_json.hpp"
#include "io/vkey_json.hpp"

namespace starzk::fuzz {

namespace {

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

const target_t targets[] = {
    {"proof_json", proof_json},
    {"public_json", public_json},
    {"vkey_json", vkey_json},
    {"manifest", manifest},
};

}  // namespace

std::span<const target_t> text_targets() { return targets; }

}  // namespace starzk::fuzz
