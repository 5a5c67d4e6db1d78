// File loading for the subcommands, and the validation-once logic of
// load_key; see inputs.hpp.
#include "cli/inputs.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <stdexcept>

#include "io/csr_circuit.hpp"
#include "io/digest.hpp"
#include "io/io_error.hpp"
#include "io/key_cache.hpp"
#include "io/params.hpp"
#include "io/r1cs.hpp"
#include "io/vkey_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"

namespace starzk::cli {

namespace {

bool has_magic(const std::string& path, const char* magic) {
  std::ifstream f(path, std::ios::binary);
  char m[4] = {};
  f.read(m, 4);
  return f.gcount() == 4 && std::string(m, 4) == magic;
}

// A resident key cache (starzk cache) is accepted wherever a key is.
bool is_key_cache(const std::string& path) { return has_magic(path, "szkc"); }

using steady = std::chrono::steady_clock;
double since(steady::time_point t0) { return std::chrono::duration<double>(steady::now() - t0).count(); }

// "812", "52.3k", "5.2M" points.
std::string count_text(uint64_t n) {
  char b[32];
  if (n < 1000) std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(n));
  else if (n < 1000000) std::snprintf(b, sizeof b, "%.1fk", double(n) / 1e3);
  else std::snprintf(b, sizeof b, "%.1fM", double(n) / 1e6);
  return b;
}

record_store_t store_of(const key_load_options_t& o) { return o.records ? *o.records : record_store_t::from_env(); }

uint64_t unix_now() {
  return uint64_t(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

}  // namespace

std::string key_check_report_t::line(const std::string& path) const {
  char t[96];
  if (!validated) {
    std::snprintf(t, sizeof t, "%.2f s to hash, %.2f s to read", hash_seconds, read_seconds);
    return path + ": validated before (digest " + to_hex(digest).substr(0, 8) + "...), " + t;
  }
  std::snprintf(t, sizeof t, " in %.2f s (hash %.2f s, read %.2f s)", info.seconds, hash_seconds, read_seconds);
  std::string s = path + ": " + count_text(info.points) + " points validated on " + info.device + t;
  if (!info.fallback.empty()) s += " (no GPU: " + info.fallback + ")";
  if (remembered) return s + ", remembered";
  return s + ", not remembered" + (note.empty() ? "" : " (" + note + ")");
}

loaded_key_t load_key(const std::string& zkey, const std::string& params, const r1cs_t* circuit,
                      const key_load_options_t& o) {
  if (zkey.empty() && params.empty()) throw std::invalid_argument("no key given: use --zkey or --params");
  if (!zkey.empty() && !params.empty()) throw std::invalid_argument("give exactly one key: --zkey or --params");
  const std::string& path = zkey.empty() ? params : zkey;
  const key_format_t format = is_key_cache(path) ? key_format_t::key_cache
                              : zkey.empty()     ? key_format_t::params
                                                 : key_format_t::zkey;
  const record_store_t store = store_of(o);
  loaded_key_t k{path, {}, {}};
  key_check_report_t& r = k.check;

  // The digest of the bytes, hashed while the key is read (the reader has
  // serial stretches that leave cores idle); the record is looked up after.
  std::error_code size_error;  // a missing file is the reader's to report, naming it
  const uint64_t size = std::filesystem::file_size(path, size_error);
  auto hashed = std::async(std::launch::async, [&] {
    const auto t0 = steady::now();
    r.digest = file_digest(path, o.threads);
    r.hash_seconds = since(t0);
  });

  // Read with every point on its curve; the subgroup is validate_key's.
  const auto t1 = steady::now();
  switch (format) {
    case key_format_t::key_cache: k.pk = read_key_cache(path, cache_check_t::on_curve, o.threads); break;
    case key_format_t::zkey: k.pk = read_zkey(path, zkey_read_options_t{.check = decode_check::on_curve}); break;
    case key_format_t::params: {
      const params_read_options_t ro{.check = decode_check::on_curve, .threads = o.threads};
      k.pk = circuit ? read_params(path, *circuit, ro) : read_params(path, ro);
      break;
    }
  }
  r.read_seconds = since(t1);
  hashed.get();  // rethrows a failure to hash
  bool known = false;
  if (o.revalidate) r.note = "--revalidate";
  else known = store.find(r.digest, size, format, &r.note).has_value();
  if (!known) {
    try {
      r.info = validate_key(k.pk, key_validation_options_t{.device = o.device, .threads = o.threads});
    } catch (const key_validation_error& e) {
      throw io_error(path, e.what());
    }
    r.validated = true;
    if (store.enabled()) {
      const std::string warning = store.remember(validation_record_t{
          r.digest, size, format, required_checks(format), r.info.points, unix_now()});
      r.remembered = warning.empty();
      if (!warning.empty()) r.note = warning;
    } else {
      r.note = store.off_reason();
    }
  }
  if (!o.quiet) std::fprintf(stderr, "starzk: %s\n", r.line(path).c_str());
  return k;
}

std::string remember_validated(const std::string& path, key_format_t format, uint64_t points,
                               const key_load_options_t& o) {
  const record_store_t store = store_of(o);
  if (!store.enabled()) return "";
  const digest_t d = file_digest(path, o.threads);
  return store.remember(
      validation_record_t{d, std::filesystem::file_size(path), format, required_checks(format), points, unix_now()});
}

verifying_key_t load_verifying_key(const std::string& vkey_json, const std::string& zkey, const std::string& params) {
  if (!vkey_json.empty()) return read_vkey_json(vkey_json);
  for (const std::string* p : {&zkey, &params})
    if (!p->empty() && is_key_cache(*p)) return key_cache_view_t(*p, cache_check_t::header).vk();
  if (!zkey.empty()) return read_zkey(zkey).vk;
  if (!params.empty()) return read_params_vk(params);
  throw std::invalid_argument("no verifying key given: use --vkey, --zkey or --params");
}

// An iden3 .r1cs, or the CSR circuit file (io/csr_circuit.hpp) made from one.
r1cs_t load_circuit(const std::string& path) {
  return has_magic(path, "szcs") ? read_csr_circuit(path) : read_r1cs(path);
}

std::vector<fr_t> load_witness(const std::string& path, uint32_t n_vars) { return read_wtns(path, n_vars); }

}  // namespace starzk::cli
