// starzk cache: validate a proving key once (every point on its curve and in
// its subgroup) and write it as a resident key cache (io/key_cache.hpp):
// Montgomery-form affine points laid out as they lie in memory, page-aligned,
// with checksums. Later loads are an mmap and a checksum pass, no decoding:
// `starzk prove --zkey K.szkc` (or --params, or a manifest's key = ...)
// accepts the cache wherever it accepts the key it was made from. The key
// is validated unless a key of the same content passed before (cli/inputs.hpp,
// --revalidate forces it), and the cache written is remembered as validated
// too, so its first load on this machine costs a hash, not a validation.
// `starzk cache --check FILE` validates a .szkc or .szcs in full
// (docs/formats.md, §4), for a file from elsewhere.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "cli/log_lines.hpp"
#include "cli/option_checks.hpp"
#include "cli/commands.hpp"
#include "cli/inputs.hpp"
#include "io/csr_circuit.hpp"
#include "io/io_error.hpp"
#include "io/key_cache.hpp"

namespace starzk::cli {

namespace {

struct cache_options {
  std::string zkey, params, circuit, out, csr_out, check;
  unsigned threads = 0;
  bool revalidate = false;
};

// starzk cache --check FILE: the full validation of a key cache (every
// checksum, every point canonical, on its curve and in its subgroup, O only
// where allowed, every matrix index) or of a CSR circuit (checksums, every
// index and code). Throws io_error "FILE: problem" at the first fault.
void run_check(const cache_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  std::ifstream f(o.check, std::ios::binary);
  char magic[4] = {};
  if (!f || !f.read(magic, 4)) throw io_error(o.check, "cannot read its first 4 bytes");
  const std::string m(magic, 4);
  const char* what = nullptr;
  if (m == "szkc") {
    check_key_cache(o.check, o.threads);
    what = "key cache: header, checksums, every point (on the curve, in the subgroup) and matrix index";
  } else if (m == "szcs") {
    check_csr_circuit(o.check, o.threads);
    what = "CSR circuit: header, checksums, every matrix index and code";
  } else {
    throw io_error(o.check, "not a key cache (.szkc) or CSR circuit (.szcs): magic '" + m + "'");
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: valid %s (%.2f s)\n", o.check.c_str(), what, s);
}

void run_cache(const cache_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<r1cs_t> cs;
  if (!o.circuit.empty()) cs = std::make_unique<r1cs_t>(load_circuit(o.circuit));
  if (!o.csr_out.empty() && !cs) throw std::invalid_argument("--csr-out needs --circuit");
  if (o.zkey.empty() && o.params.empty()) {
    write_csr_circuit(o.csr_out, *cs, o.threads);
    std::printf("%s: CSR circuit written to %s\n", o.circuit.c_str(), o.csr_out.c_str());
    return;
  }
  // The key is read and validated (against the circuit, when given) before
  // anything is written; the CSR circuit and the cache then appear as a
  // pair: a failed cache write takes the CSR file written for it away.
  const key_load_options_t ko{.revalidate = o.revalidate, .threads = o.threads, .circuit_path = o.circuit};
  const loaded_key_t key = load_key(o.zkey, o.params, cs.get(), ko);
  const double t_read = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!o.csr_out.empty()) {
    write_csr_circuit(o.csr_out, *cs, o.threads);
    try {
      write_key_cache(o.out, key.pk, o.threads);
    } catch (...) {
      std::error_code ec;
      std::filesystem::remove(o.csr_out, ec);
      throw;
    }
    std::printf("%s: CSR circuit written to %s\n", o.circuit.c_str(), o.csr_out.c_str());
  } else {
    write_key_cache(o.out, key.pk, o.threads);
  }
  if (const std::string w = remember_validated(o.out, key_format_t::key_cache, key_point_count(key.pk), ko); !w.empty())
    log_line(stderr, "warning", "starzk: warning: " + w);
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
      "  starzk cache --check p.szkc   (full validation of a cache of unknown origin)\n"
      "Reading a key checks every point (on the curve, in the subgroup), which costs ~50 us of CPU per point,\n"
      "once per key content (docs/usage.md); the cache loads as an mmap and is remembered as validated.");
  auto* zkey = cmd->add_option("--zkey", o->zkey, "snarkjs proving key (.zkey)")->check(CLI::ExistingFile);
  auto* params =
      cmd->add_option("--params", o->params, "bellman/Filecoin parameters (.params)")->check(CLI::ExistingFile);
  zkey->excludes(params);
  cmd->add_option("--circuit,--r1cs", o->circuit, "circuit (.r1cs): needed for .params that omit infinity points")
      ->check(CLI::ExistingFile);
  auto* out = cmd->add_option("--out", o->out, "the key cache file to write");
  cmd->add_option("--csr-out", o->csr_out,
                  "also write the circuit as a CSR circuit file (.szcs, mmap-loaded; accepted by --circuit)");
  cmd->add_option("--threads", o->threads, "CPU threads (default: all cores)")->check(thread_count(true));
  cmd->add_flag("--revalidate", o->revalidate,
                "validate the key's points even if a key with the same content passed before");
  auto* check = cmd->add_option("--check", o->check,
                                "validate a key cache (.szkc) or CSR circuit (.szcs) in full: checksums, every point "
                                "on its curve and in its subgroup, every index; exit 0 only if valid")
                    ->check(CLI::ExistingFile);
  check->excludes(zkey)->excludes(params)->excludes(out);
  cmd->callback([o, zkey, params, out, check] {
    if (check->count()) return run_check(*o);
    if (zkey->count() + params->count() > 1) throw std::invalid_argument("give one of --zkey or --params");
    if (zkey->count() + params->count() == 1 && !out->count())
      throw std::invalid_argument("--out is required with a key");
    if (zkey->count() + params->count() == 0 && o->csr_out.empty())
      throw std::invalid_argument(
          "nothing to do: give a key (--zkey/--params with --out) and/or --circuit with --csr-out");
    run_cache(*o);
  });
}

}  // namespace starzk::cli
