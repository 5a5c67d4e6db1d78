// File loading for the subcommands, and the validation-once logic of
// load_key; see inputs.hpp.
#include "cli/inputs.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/file_errors.hpp"
#include "cli/log_lines.hpp"
#include "groth16/setup.hpp"
#include "io/bellman_vk.hpp"
#include "io/compact_witness.hpp"
#include "io/csr_circuit.hpp"
#include "io/digest.hpp"
#include "io/digest_memo.hpp"
#include "io/io_error.hpp"
#include "io/key_cache.hpp"
#include "io/packed_key.hpp"
#include "io/params.hpp"
#include "io/r1cs.hpp"
#include "io/vkey_json.hpp"
#include "io/zkey.hpp"
#include "keys/gpu_decoder.hpp"
#include "util/parallel.hpp"

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
  if (n < 1000)
    std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(n));
  else if (n < 1000000)
    std::snprintf(b, sizeof b, "%.1fk", double(n) / 1e3);
  else
    std::snprintf(b, sizeof b, "%.1fM", double(n) / 1e6);
  return b;
}

record_store_t store_of(const key_load_options_t& o) { return o.records ? *o.records : record_store_t::from_env(); }

uint64_t unix_now() {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// A packed key (starzk gen --format compact, io/packed_key.hpp) likewise,
// with its circuit. Its points are decompressed, which checks them as it
// goes: on the curve always, in the subgroup unless `subgroup` is false (a
// key validated before); on the GPU when there is one and the device choice
// allows it (square roots and subgroup checks of millions of points per
// second there, ~3·10^4 per core on the CPU). *where says which ran.
proving_key_t read_packed(const std::string& path, const r1cs_t* circuit, bool subgroup, const key_load_options_t& o,
                          std::string* where, unpack_stats_t* stats) {
  if (!circuit && !o.circuit_later)
    throw std::invalid_argument(path + ": a packed key (.szpk) carries no QAP matrices: give its circuit (--circuit)");
  const packed_key_view_t view(path);
  std::unique_ptr<point_decoder_t> dec;
  std::string why_not;
  if (o.device != setup_device_t::cpu) dec = keys::gpu_point_decoder(0, &why_not);
  if (!dec && o.device == setup_device_t::gpu) throw resource_error(path + ": decompression on the GPU: " + why_not);
  *where = dec ? "GPU 0" : "the CPU (" + std::to_string(resolve_threads(o.threads)) + " threads)";
  if (!dec) dec = cpu_point_decoder(o.threads);
  proving_key_t pk = unpack_packed_key(view, subgroup, *dec, o.threads, stats);
  if (!circuit) circuit = o.circuit_later();
  if (pk.convention == root_convention_t::snarkjs) zkey_matrices(*circuit, pk.domain_size, pk.zkey_a, pk.zkey_b);
  return pk;
}

}  // namespace

std::string key_check_report_t::line(const std::string& path) const {
  char t[96];
  if (!validated) {
    if (digest_recalled)
      std::snprintf(t, sizeof t, "digest remembered, %.2f s to read", read_seconds);
    else
      std::snprintf(t, sizeof t, "%.2f s to hash, %.2f s to read", hash_seconds, read_seconds);
    return path + ": validated before (digest " + to_hex(digest).substr(0, 8) + "...), " + t;
  }
  if (read_is_validation)
    std::snprintf(t, sizeof t, " in %.2f s (hash %.2f s, decompressed as checked)", info.seconds, hash_seconds);
  else
    std::snprintf(t, sizeof t, " in %.2f s (hash %.2f s, read %.2f s)", info.seconds, hash_seconds, read_seconds);
  std::string s = path + ": " + count_text(info.points) + " points validated on " + info.device + t;
  if (!info.fallback.empty()) s += " (no GPU: " + info.fallback + ")";
  if (remembered) return s + ", remembered";
  return s + ", not remembered" + (note.empty() ? "" : " (" + note + ")");
}

namespace {

loaded_key_t read_key(const std::string& path, bool zkey, const r1cs_t* circuit, const key_load_options_t& o) {
  const key_format_t format = is_key_cache(path)        ? key_format_t::key_cache
                              : has_magic(path, "szpk") ? key_format_t::packed
                              : !zkey                   ? key_format_t::params
                                                        : key_format_t::zkey;
  const record_store_t store = store_of(o);
  loaded_key_t k{path, {}, {}};
  key_check_report_t& r = k.check;

  // The digest of the bytes, hashed while the key is read (the reader has
  // serial stretches that leave cores idle); the record is looked up after
  // the read.
  std::error_code size_error;  // a missing file is the reader's to report, naming it
  const uint64_t size = std::filesystem::file_size(path, size_error);
  // A large key takes minutes: say so before, for logs (a Slurm job's
  // output would otherwise be silent until the key is ready).
  if (!o.quiet && !size_error && size >= (uint64_t(256) << 20)) {
    char text[64];
    std::snprintf(text, sizeof text, ": reading %.1f GiB and checking its points...",
                  double(size) / double(1ull << 30));
    log_line(stderr, "key_read", "starzk: " + path + text, {{"key", path}, {"bytes", size}});
  }
  // The sample tells this key from another of the same size before the
  // digest is known (io/validation_record.hpp); 0 when the file cannot be
  // read, which the reader then reports.
  uint64_t sample = 0;
  if (!size_error) try {
      sample = file_sample(path);
    } catch (const io_error&) {
    }
  auto hashed = std::async(std::launch::async, [&] {
    const auto t0 = steady::now();
    key_digest_t d = key_digest(store, path, o.threads, !o.revalidate);
    r.digest = d.digest;
    r.digest_recalled = d.recalled;
    r.hash_seconds = since(t0);
  });
  bool known = false;
  auto look_up = [&] {
    hashed.get();  // rethrows a failure to hash
    if (o.revalidate)
      r.note = "--revalidate";
    else
      known = store.find(r.digest, size, format, &r.note).has_value();
  };

  // The whole check of a key read without its subgroup tests (by default
  // validate_key; the .zkey path finishes a validator fed during the read).
  auto validate_read_key = [&](auto&& validate) {
    try {
      r.info = validate();
    } catch (const key_validation_error& e) {
      throw io_error(path, e.what());
    } catch (const std::runtime_error& e) {
      // Only a device that was insisted on fails rather than falling back
      // to the CPU: the machine's fault, not the file's.
      if (o.device != setup_device_t::gpu) throw;
      throw resource_error(path + ": " + e.what());
    }
  };

  auto whole_key = [&] {
    return validate_key(k.pk, key_validation_options_t{.device = o.device, .threads = o.threads});
  };

  const auto t1 = steady::now();
  if (format == key_format_t::packed) {
    // Decompression checks the points as it goes, in the subgroup too
    // unless a record vouches for the key. The record is found by the
    // digest, a full pass over the file (18-31 s at 2^27); the read does
    // not wait for it but guesses from the records' sizes and samples: no
    // record of a key of this size, format and sample (a first load), the
    // subgroup checks as it decompresses; one (a later load), none, and in
    // the rare wrong guess (a sample collision, or a file that changed
    // between the sample and the hash) every point is validated after the
    // read.
    const bool guess_known = !o.revalidate && store.may_hold(size, format, sample);
    std::string where;
    unpack_stats_t stats;
    k.pk = read_packed(path, circuit, !guess_known, o, &where, &stats);
    r.read_seconds = since(t1);
    r.unpack = stats.line();
    look_up();
    if (!guess_known) {
      known = false;  // checked in full as decompressed: remembered below either way
      r.info.points = key_point_count(k.pk);
      r.info.device = where;
      r.info.seconds = r.read_seconds;
      r.read_is_validation = true;
    } else if (!known) {
      validate_read_key(whole_key);
    }
  } else if (format == key_format_t::zkey) {
    // Read with every point on its curve; the subgroup checks of each query
    // start as soon as the reader has decoded it, once the digest (hashed
    // beside the read, done before the first large query) says the key is
    // new, so the device checks run under the rest of the read.
    std::optional<key_validator_t> validator;
    auto started = [&]() -> key_validator_t& {
      if (!validator) validator.emplace(key_validation_options_t{.device = o.device, .threads = o.threads});
      return *validator;
    };
    bool looked_up = false;
    auto on_query = [&](key_query_t q, const proving_key_t& pk) {
      if (!looked_up) look_up(), looked_up = true;
      if (!known) started().check(q, pk);
    };
    // Once the digest names a key validated before, its large queries are
    // decoded without the curve checks (the record vouches for them).
    auto vouched = [&] { return looked_up && known; };
    read_zkey(
        path,
        zkey_read_options_t{
            .check = decode_check::on_curve, .on_query = on_query, .vouched = vouched, .map_points = o.map_points},
        k.pk);
    r.read_seconds = since(t1);
    if (!looked_up) look_up();
    if (!known) validate_read_key([&] { return started().finish(k.pk); });
  } else {
    // Read with every point on its curve; the subgroup is validate_key's.
    // A key cache is mapped, not decoded: its digest is looked up first
    // (the read's time starts after), and one a record vouches for is read
    // with the header checks only.
    switch (format) {
      case key_format_t::key_cache: {
        look_up();
        const auto t2 = steady::now();
        k.pk = read_key_cache(path, known ? cache_check_t::header : cache_check_t::on_curve, o.threads, o.map_points);
        r.read_seconds = since(t2);
        break;
      }
      default: {
        const params_read_options_t ro{.check = decode_check::on_curve, .threads = o.threads};
        k.pk = circuit ? read_params(path, *circuit, ro) : read_params(path, ro);
        r.read_seconds = since(t1);
        look_up();
      }
    }
    if (!known) validate_read_key(whole_key);
  }
  if (!known) {
    r.validated = true;
    if (store.enabled()) {
      const std::string warning = store.remember(
          validation_record_t{r.digest, size, format, required_checks(format), r.info.points, unix_now(), sample});
      r.remembered = warning.empty();
      if (!warning.empty()) r.note = warning;
    } else {
      r.note = store.off_reason();
    }
  }
  if (!o.quiet)
    log_line(stderr, "key", "starzk: " + r.line(path),
             {{"key", path},
              {"digest", to_hex(r.digest)},
              {"validated", r.validated},
              {"remembered", r.remembered},
              {"points", r.info.points},
              {"validation_s", r.info.seconds},
              {"on_gpu", r.info.on_gpu},
              {"hash_s", r.hash_seconds},
              {"read_s", r.read_seconds}});
  if (!o.quiet && !r.unpack.empty())
    log_line(stderr, "unpack", "starzk: " + path + ": unpacked " + r.unpack, {{"key", path}});
  return k;
}

}  // namespace

loaded_key_t load_key(const std::string& zkey, const std::string& params, const r1cs_t* circuit,
                      const key_load_options_t& o) {
  if (zkey.empty() && params.empty()) throw std::invalid_argument("no key given: use --zkey or --params");
  if (!zkey.empty() && !params.empty()) throw std::invalid_argument("give exactly one key: --zkey or --params");
  const std::string& path = zkey.empty() ? params : zkey;
  return naming({{path, "key"}, {o.circuit_path, "circuit"}},
                [&] { return read_key(path, !zkey.empty(), circuit, o); });
}

std::string remember_validated(const std::string& path, key_format_t format, uint64_t points,
                               const key_load_options_t& o) {
  const record_store_t store = store_of(o);
  if (!store.enabled()) return "";
  const digest_t d = key_digest(store, path, o.threads).digest;
  return store.remember(validation_record_t{d, std::filesystem::file_size(path), format, required_checks(format),
                                            points, unix_now(), file_sample(path)});
}

namespace {

verifying_key_t read_verifying_key(const std::string& vkey_json, const std::string& zkey, const std::string& params) {
  // Filecoin's .vk (bellman's VerifyingKey alone) under --vkey or --params;
  // under --vkey anything not JSON is read as one, for its precise errors.
  for (const std::string* p : {&vkey_json, &params})
    if (!p->empty() && looks_like_bellman_vk(*p)) return read_bellman_vk(*p).vk;
  if (!vkey_json.empty()) return looks_like_json(vkey_json) ? read_vkey_json(vkey_json) : read_bellman_vk(vkey_json).vk;
  for (const std::string* p : {&zkey, &params}) {
    if (!p->empty() && is_key_cache(*p)) return key_cache_view_t(*p, cache_check_t::header).vk();
    if (!p->empty() && has_magic(*p, "szpk")) return unpack_packed_vk(packed_key_view_t(*p), *cpu_point_decoder());
  }
  if (!zkey.empty()) return read_zkey(zkey, zkey_read_options_t::verifying_key_only()).vk;
  return read_params_vk(params);
}

}  // namespace

verifying_key_t load_verifying_key(const std::string& vkey_json, const std::string& zkey, const std::string& params) {
  if (vkey_json.empty() && zkey.empty() && params.empty())
    throw std::invalid_argument("no verifying key given: use --vkey, --zkey or --params");
  const std::string& path = !vkey_json.empty() ? vkey_json : !zkey.empty() ? zkey : params;
  return naming({{path, "key"}}, [&] { return read_verifying_key(vkey_json, zkey, params); });
}

// An iden3 .r1cs, or the CSR circuit file (io/csr_circuit.hpp) made from one.
r1cs_t load_circuit(const std::string& path) {
  return naming({{path, "circuit"}},
                [&] { return has_magic(path, "szcs") ? read_csr_circuit(path) : read_r1cs(path); });
}

bool is_packed_key(const std::string& path) { return has_magic(path, "szpk"); }

bool looks_like_json(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char c = 0;
  while (f.get(c) && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
  }
  return f && (c == '{' || c == '[');
}

std::vector<fr_t> load_witness(const std::string& path, uint32_t n_vars, const std::string& key_path,
                               const std::string& circuit_path) {
  // Its count is the key's and the circuit's (the key's own, a .zkey's).
  return naming({{path, "witness"}, {key_path, "key"}, {circuit_path.empty() ? key_path : circuit_path, "circuit"}},
                [&] { return read_witness(path, n_vars); });
}

}  // namespace starzk::cli
