// starzk cache: validate a proving key once (every point on its curve and in
// its subgroup) and write it as a resident key cache (io/key_cache.hpp):
// Montgomery-form affine points laid out as they lie in memory, page-aligned,
// with checksums. Later loads are an mmap and a checksum pass, no decoding:
// `starzk prove --zkey K.szkc` (or --params, or a manifest's key = ...)
// accepts the cache wherever it accepts the key it was made from. The key
// is validated unless a key of the same content passed before (cli/inputs.hpp,
// --revalidate forces it), and the cache written is remembered as validated
// too, so its first load on this machine costs a hash, not a validation.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/inputs.hpp"
#include "io/csr_circuit.hpp"
#include "io/key_cache.hpp"

namespace starzk::cli {

namespace {

struct cache_options {
  std::string zkey, params, circuit, out, csr_out;
  unsigned threads = 0;
  bool revalidate = false;
};

void run_cache(const cache_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<r1cs_t> cs;
  if (!o.circuit.empty()) cs = std::make_unique<r1cs_t>(load_circuit(o.circuit));
  if (!o.csr_out.empty()) {
    if (!cs) throw std::invalid_argument("--csr-out needs --circuit");
    write_csr_circuit(o.csr_out, *cs, o.threads);
    std::printf("%s: CSR circuit written to %s\n", o.circuit.c_str(), o.csr_out.c_str());
  }
  if (o.zkey.empty() && o.params.empty()) return;
  const key_load_options_t ko{.revalidate = o.revalidate, .threads = o.threads};
  const loaded_key_t key = load_key(o.zkey, o.params, cs.get(), ko);
  const double t_read = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_key_cache(o.out, key.pk, o.threads);
  if (const std::string w = remember_validated(o.out, key_format_t::key_cache, key_point_count(key.pk), ko); !w.empty())
    std::fprintf(stderr, "starzk: warning: %s\n", w.c_str());
  const double t_all = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: read and %s in %.2f s, cache written to %s in %.2f s\n", key.path.c_str(),
              key.check.validated ? "validated" : "known valid", t_read, o.out.c_str(), t_all - t_read);
}

}  // namespace

void add_cache_command(CLI::App& app) {
  auto o = std::make_shared<cache_options>();
  CLI::App* cmd = app.add_subcommand("cache", "Validate a proving key once and write a resident key cache (.szkc)");
  cmd->footer(
      "Examples:\n"
      "  starzk cache --zkey c.zkey --out c.szkc && starzk prove --zkey c.szkc --wtns w.wtns --proof p.json\n"
      "  starzk cache --params p.params --circuit c.r1cs --out p.szkc --csr-out c.szcs\n"
      "Reading a key checks every point (on the curve, in the subgroup), which costs ~50 us of CPU per point,\n"
      "once per key content (docs/usage.md); the cache loads as an mmap and is remembered as validated.");
  auto* zkey = cmd->add_option("--zkey", o->zkey, "snarkjs proving key (.zkey)")->check(CLI::ExistingFile);
  auto* params = cmd->add_option("--params", o->params, "bellman/Filecoin parameters (.params)")->check(CLI::ExistingFile);
  zkey->excludes(params);
  cmd->add_option("--circuit,--r1cs", o->circuit, "circuit (.r1cs): needed for .params that omit infinity points")
      ->check(CLI::ExistingFile);
  auto* out = cmd->add_option("--out", o->out, "the key cache file to write");
  cmd->add_option("--csr-out", o->csr_out,
                  "also write the circuit as a CSR circuit file (.szcs, mmap-loaded; accepted by --circuit)");
  cmd->add_option("--threads", o->threads, "CPU threads (default: all cores)");
  cmd->add_flag("--revalidate", o->revalidate,
                "validate the key's points even if a key with the same content passed before");
  cmd->callback([o, zkey, params, out] {
    if (zkey->count() + params->count() > 1) throw std::invalid_argument("give one of --zkey or --params");
    if (zkey->count() + params->count() == 1 && !out->count()) throw std::invalid_argument("--out is required with a key");
    if (zkey->count() + params->count() == 0 && o->csr_out.empty())
      throw std::invalid_argument("nothing to do: give a key (--zkey/--params with --out) and/or --circuit with --csr-out");
    run_cache(*o);
  });
}

}  // namespace starzk::cli
