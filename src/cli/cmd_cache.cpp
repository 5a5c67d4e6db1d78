// starzk cache: validate a proving key once (every point on its curve and in
// its subgroup) and write it as a resident key cache (io/key_cache.hpp):
// Montgomery-form affine points laid out as they lie in memory, page-aligned,
// with checksums. Later loads are an mmap and a checksum pass, no decoding:
// `starzk prove --zkey K.szkc` (or --params, or a manifest's key = ...)
// accepts the cache wherever it accepts the key it was made from.
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
  const loaded_key_t key = load_key(o.zkey, o.params, cs.get());
  const double t_read = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_key_cache(o.out, key.pk, o.threads);
  const double t_all = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: validated in %.2f s, cache written to %s in %.2f s\n", key.path.c_str(), t_read, o.out.c_str(),
              t_all - t_read);
}

}  // namespace

void add_cache_command(CLI::App& app) {
  auto o = std::make_shared<cache_options>();
  CLI::App* cmd = app.add_subcommand("cache", "Validate a proving key once and write a resident key cache (.szkc)");
  cmd->footer(
      "Examples:\n"
      "  starzk cache --zkey c.zkey --out c.szkc && starzk prove --zkey c.szkc --wtns w.wtns --proof p.json\n"
      "  starzk cache --params p.params --circuit c.r1cs --out p.szkc --csr-out c.szcs\n"
      "Reading a key checks every point (on the curve, in the subgroup), which costs ~0.2 ms of CPU per point;\n"
      "the cache skips that on every later load (its checksums guard against corruption).");
  auto* zkey = cmd->add_option("--zkey", o->zkey, "snarkjs proving key (.zkey)")->check(CLI::ExistingFile);
  auto* params = cmd->add_option("--params", o->params, "bellman/Filecoin parameters (.params)")->check(CLI::ExistingFile);
  zkey->excludes(params);
  cmd->add_option("--circuit,--r1cs", o->circuit, "circuit (.r1cs): needed for .params that omit infinity points")
      ->check(CLI::ExistingFile);
  auto* out = cmd->add_option("--out", o->out, "the key cache file to write");
  cmd->add_option("--csr-out", o->csr_out,
                  "also write the circuit as a CSR circuit file (.szcs, mmap-loaded; accepted by --circuit)");
  cmd->add_option("--threads", o->threads, "CPU threads (default: all cores)");
  cmd->callback([o, zkey, params, out] {
    if (zkey->count() + params->count() > 1) throw std::invalid_argument("give one of --zkey or --params");
    if (zkey->count() + params->count() == 1 && !out->count()) throw std::invalid_argument("--out is required with a key");
    if (zkey->count() + params->count() == 0 && o->csr_out.empty())
      throw std::invalid_argument("nothing to do: give a key (--zkey/--params with --out) and/or --circuit with --csr-out");
    run_cache(*o);
  });
}

}  // namespace starzk::cli
