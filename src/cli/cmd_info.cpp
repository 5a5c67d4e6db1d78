// starzk info FILE [--json] / info --config: says what a file is and what it holds, after
// reading (and so validating) it. Every format starzk reads or writes:
// .r1cs, .szcs, .wtns, .szwt, .zkey, .params, .szkc, .szpk, Filecoin .vk, proof
// files of 192-byte proofs, batch manifests, and the snarkjs JSON files
// (verification key, proof, public inputs).
// `info --config` lists the STARZK_* variables (util/config.hpp) instead.
//
// Files with a magic (r1cs, szcs, wtns, szwt, zkey, szkc, szpk) are told by it;
// JSON by its first character and keys; a manifest by its extension .toml
// or a "jobs" key; the formats without a magic by their size: a .vk is
// exactly 868 + 96·n_ic bytes, a proof file a multiple of 192 whose proofs
// decode; anything else is tried as a .params, and an error then says
// every form that was tried. The answer is a report_t: a one-line
// description plus facts, printed as text or as one JSON object.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/file_errors.hpp"
#include "cli/inputs.hpp"
#include "cli/manifest.hpp"
#include "groth16/proof_bytes.hpp"
#include "io/bellman_vk.hpp"
#include "io/compact_witness.hpp"
#include "io/csr_circuit.hpp"
#include "io/io_error.hpp"
#include "io/key_cache.hpp"
#include "io/packed_key.hpp"
#include "io/params.hpp"
#include "io/proof_files.hpp"
#include "io/proof_json.hpp"
#include "io/r1cs.hpp"
#include "io/vkey_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "keys/gpu_decoder.hpp"
#include "util/config.hpp"

namespace starzk::cli {

namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// What info says: "FILE: description", then "  name: text" per fact; in
// JSON {"file", "format", "description", facts...}.
struct report_t {
  report_t(std::string f, std::string d) : format(std::move(f)), description(std::move(d)) {}
  std::string format, description;
  ojson facts = ojson::object();
  std::vector<std::string> lines;
  void fact(const std::string& key, const ojson& value, const std::string& text) {
    facts[key] = value;
    lines.push_back(text);
  }
};

std::string magic_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw io_error(path, "cannot open");
  char m[4] = {};
  f.read(m, 4);
  return std::string(m, size_t(f.gcount()));
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void describe_matrix(report_t& r, const char* name, const sparse_matrix_t& m) {
  char t[160];
  std::snprintf(t, sizeof t, "%s: %llu non-zeros (%.2f per row), %s", name, static_cast<unsigned long long>(m.nnz()),
                m.n_rows ? double(m.nnz()) / double(m.n_rows) : 0.0,
                m.coded() ? ("coded: " + std::to_string(m.dict.size()) + " distinct values").c_str() : "plain values");
  r.fact(std::string("nnz_") + name, m.nnz(), t);
}

// The shape of a key, whatever file it came from.
void describe_shape(report_t& r, root_convention_t convention, uint32_t n_vars, uint32_t n_public, uint64_t domain) {
  const bool snarkjs = convention == root_convention_t::snarkjs;
  r.fact("convention", snarkjs ? "snarkjs" : "bellman",
         std::string("convention: ") + (snarkjs ? "snarkjs (H on the odd coset of the 2n-th roots)"
                                                : "bellman (H = tau^i Z(tau)/delta, coset division)"));
  r.facts["wires"] = n_vars;
  r.facts["public_inputs"] = n_public;
  r.fact("domain", domain,
         "wires: " + std::to_string(n_vars) + ", public inputs: " + std::to_string(n_public) +
             ", domain: " + std::to_string(domain));
}

void describe_queries(report_t& r, uint64_t a, uint64_t b_g1, uint64_t b_g2, uint64_t l, uint64_t h) {
  r.fact("queries", ojson{{"a", a}, {"b_g1", b_g1}, {"b_g2", b_g2}, {"l", l}, {"h", h}},
         "queries: A " + std::to_string(a) + ", B_g1 " + std::to_string(b_g1) + ", B_g2 " + std::to_string(b_g2) +
             ", L " + std::to_string(l) + ", H " + std::to_string(h) + " points");
}

void describe_key(report_t& r, const proving_key_t& pk) {
  describe_shape(r, pk.convention, pk.n_vars, pk.n_public, pk.domain_size);
  describe_queries(r, pk.a.size(), pk.b_g1.size(), pk.b_g2.size(), pk.l.size(), pk.h.size());
}

void describe_circuit(report_t& r, const r1cs_t& cs) {
  r.facts["constraints"] = cs.n_constraints;
  r.facts["wires"] = cs.n_vars;
  r.fact("public_inputs", cs.n_public,
         "constraints: " + std::to_string(cs.n_constraints) + ", wires: " + std::to_string(cs.n_vars) +
             ", public: " + std::to_string(cs.n_public));
  describe_matrix(r, "A", cs.a);
  describe_matrix(r, "B", cs.b);
  describe_matrix(r, "C", cs.c);
}

report_t info_json(const std::string& path) {
  std::ifstream f(path);
  const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded()) throw io_error(path, "not valid JSON");
  if (j.is_array()) {
    const size_t n = read_public_json(path).size();
    report_t r{"public_json", "snarkjs public inputs"};
    r.fact("values", n, std::to_string(n) + " values");
    return r;
  }
  if (j.is_object() && j.contains("vk_delta_2")) {
    const size_t n = read_vkey_json(path).ic.size() - 1;
    report_t r{"vkey_json", "snarkjs Groth16 verification key"};
    r.fact("public_inputs", n, "public inputs: " + std::to_string(n));
    return r;
  }
  if (j.is_object() && j.contains("pi_a")) {
    read_proof_json(path);
    return report_t{"proof_json", "snarkjs Groth16 proof (points on the curve and in the subgroup)"};
  }
  if (j.is_object() && j.contains("jobs")) return {"manifest", ""};  // told apart by the caller
  throw io_error(path, "JSON, but not a verification key, proof, public inputs or manifest");
}

report_t info_manifest(const std::string& path) {
  const manifest_t m = read_manifest(path);
  report_t r{"manifest", "starzk batch manifest"};
  r.facts["partitions"] = m.partitions();
  r.lines.push_back(std::to_string(m.jobs.size()) + " jobs, " + std::to_string(m.partitions()) + " partitions");
  ojson jobs = ojson::array();
  for (const manifest_job_t& j : m.jobs) {
    jobs.push_back({{"name", j.name}, {"key", j.key.string()}, {"witnesses", j.witnesses.size()}});
    r.lines.push_back("job '" + j.name + "': key " + j.key.string() + ", " + std::to_string(j.witnesses.size()) +
                      " witness(es)" + (fs::exists(j.key) ? "" : " (the key does not exist)"));
  }
  r.facts["jobs"] = jobs;
  return r;
}

report_t info_params(const std::string& path) {
  const params_layout_t lay = scan_params(path);
  const verifying_key_t vk = read_params_vk(path);
  report_t r{"params", "bellman/Filecoin Groth16 parameters (.params)"};
  r.fact("bytes", lay.file_size, std::to_string(lay.file_size) + " bytes");
  r.fact("convention", "bellman", "convention: bellman (H = tau^i Z(tau)/delta, coset division)");
  r.facts["aux_wires"] = lay.l.count;
  r.fact("public_inputs", vk.ic.size() - 1,
         "public inputs: " + std::to_string(vk.ic.size() - 1) + ", aux wires: " + std::to_string(lay.l.count) +
             ", domain: " + std::to_string(lay.h.count + 1ull));
  r.facts["domain"] = lay.h.count + 1ull;
  describe_queries(r, lay.a.count, lay.b_g1.count, lay.b_g2.count, lay.l.count, lay.h.count);
  r.lines.back() += " (bellman omits A/B points at infinity; the verifying key is checked, the queries when proving)";
  return r;
}

// The formats without a magic: .vk, proof files, .params (in that order).
report_t info_no_magic(const std::string& path) {
  if (looks_like_bellman_vk(path)) {
    const bellman_vk_t k = read_bellman_vk(path);
    report_t r{"vk", "bellman/Filecoin Groth16 verifying key (.vk), every point checked"};
    r.fact("public_inputs", k.vk.ic.size() - 1, "public inputs: " + std::to_string(k.vk.ic.size() - 1));
    return r;
  }
  const uint64_t size = fs::file_size(path);
  std::string as_proofs;
  if (size > 0 && size % proof_bytes_size == 0) {
    try {
      const size_t n = read_proofs_bin(path, size / proof_bytes_size).size();
      report_t r{"proofs_bin", "Groth16 proofs, 192 bytes each (A||B||C compressed, bellman/Filecoin form)"};
      r.fact("proofs", n, std::to_string(n) + " proof(s), every point on its curve and in its subgroup");
      return r;
    } catch (const io_error& e) {
      as_proofs = "as proofs of 192 bytes: " + e.problem() + "; ";
    }
  }
  try {
    return info_params(path);
  } catch (const io_error& e) {
    throw io_error(path,
                   "not a format starzk knows (.r1cs, .szcs, .wtns, .szwt, .zkey, .szkc, .szpk, .vk, .params, proofs, "
                   "manifest, snarkjs JSON); " +
                       as_proofs + "as a .params: " + e.problem());
  }
}

report_t info_of(const std::string& path) {
  const std::string magic = magic_of(path);
  if (magic == "r1cs" || magic == "szcs") {
    const bool csr = magic == "szcs";
    report_t r{csr ? "szcs" : "r1cs", csr ? "starzk CSR circuit (.szcs) version " +
                                                std::to_string(csr_circuit_view_t(path).version()) + " over BLS12-381"
                                          : "iden3 R1CS circuit over BLS12-381"};
    describe_circuit(r, csr ? read_csr_circuit(path) : read_r1cs(path));
    return r;
  }
  if (magic == "wtns") {
    const size_t n = read_wtns(path).size();
    report_t r{"wtns", "iden3 witness over BLS12-381"};
    r.fact("values", n, std::to_string(n) + " values");
    return r;
  }
  if (magic == "szwt") {
    const std::vector<fr_t> w = read_compact_witness(path);
    const uint64_t other = other_values(w);
    report_t r{"szwt", "starzk compact witness (.szwt) over BLS12-381"};
    r.fact("values", w.size(), std::to_string(w.size()) + " values");
    r.fact("other_values", other, std::to_string(other) + " neither 0 nor 1");
    return r;
  }
  if (magic == "zkey") {
    report_t r{"zkey", "snarkjs Groth16 proving key (.zkey) over BLS12-381"};
    describe_key(r, read_zkey(path));
    return r;
  }
  if (magic == "szkc") {
    // Header, checksums, then every point and index (as `cache --check`).
    check_key_cache(path);
    const key_cache_view_t v(path);
    report_t r{"szkc", "starzk key cache (.szkc): checksums, points and matrix indices checked"};
    describe_shape(r, v.convention, v.n_vars, v.n_public, v.domain_size);
    describe_queries(r, v.a.size(), v.b_g1.size(), v.b_g2.size(), v.l.size(), v.h.size());
    return r;
  }
  if (magic == "szpk") {
    // Unpacked (and so validated) on the GPU when there is one.
    const packed_key_view_t view(path);
    view.verify_checksums();
    std::unique_ptr<point_decoder_t> dec = keys::gpu_point_decoder(0);
    if (!dec) dec = cpu_point_decoder();
    const proving_key_t pk = unpack_packed_key(view, true, *dec);
    report_t r{"szpk", "starzk packed Groth16 key (.szpk), every point decompressed and checked"};
    r.fact("bytes", view.shape().file_bytes(),
           std::to_string(view.shape().file_bytes()) + " bytes; A " + std::to_string(view.shape().n_a) + " and B " +
               std::to_string(view.shape().n_b) + " points stored");
    describe_key(r, pk);
    return r;
  }
  if (ends_with(path, ".toml")) return info_manifest(path);
  if (looks_like_json(path)) {
    report_t r = info_json(path);
    return r.format == "manifest" ? info_manifest(path) : r;
  }
  return info_no_magic(path);
}

// `info --config`: the table of util/config.hpp with the value in force.
void print_config(bool json) {
  const std::vector<std::string> unknown = config::check_environment();
  auto kind = [](config::kind_t k) {
    switch (k) {
      case config::kind_t::switch_:
        return "switch";
      case config::kind_t::count:
        return "count";
      case config::kind_t::seconds:
        return "seconds";
      case config::kind_t::choice:
        return "choice";
      case config::kind_t::text:
        return "text";
    }
    return "?";
  };
  ojson rows = ojson::array();
  for (const config::var_t& v : config::vars) {
    const std::optional<std::string> set = config::raw(v.name);
    rows.push_back(ojson{{"name", v.name},
                         {"kind", kind(v.kind)},
                         {"value", set ? *set : v.fallback},
                         {"source", set ? "environment" : "default"},
                         {"doc", v.doc}});
    if (!json)
      std::printf("%-24s %-12s %s  (%s; %s)\n", v.name, set ? set->c_str() : v.fallback,
                  set ? "[environment]" : "[default]", kind(v.kind), v.doc);
  }
  if (json) {
    std::printf("%s\n", ojson{{"config", rows}, {"unknown", unknown}}.dump().c_str());
    return;
  }
  for (const std::string& u : unknown) std::printf("%s is set but starzk reads no such variable\n", u.c_str());
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("info", "Say what a file is and what it holds (reads and validates it)");
  cmd->footer(
      "Knows .r1cs, .szcs, .wtns, .szwt, .zkey, .params, .szkc, .szpk, Filecoin .vk, proof files (192 bytes per "
      "proof),\n"
      "manifests (.toml/.json), verification_key.json, proof.json and public.json. Exit 3 if the file is\n"
      "unreadable, malformed or of no known format.");
  auto config = std::make_shared<bool>(false);
  auto* file = cmd->add_option("FILE", *path, "the file")->check(CLI::ExistingFile);
  auto* conf = cmd->add_flag("--config", *config,
                             "instead of a file: every STARZK_* variable, the value in force and where it came from "
                             "(environment or default), and what it does");
  file->excludes(conf);
  cmd->add_flag_callback(
      "--json", [json] { *json = true, json_command = "info"; },
      "one JSON object {file, format, description, facts...} on stdout");
  cmd->callback([path, json, config] {
    if (*config) {
      print_config(*json);
      return;
    }
    if (path->empty()) throw std::invalid_argument("info: a FILE or --config is required");
    const report_t r = naming(*path, [&] { return info_of(*path); });
    if (*json) {
      ojson j{{"file", *path}, {"format", r.format}, {"description", r.description}};
      j.update(r.facts);
      std::printf("%s\n", j.dump().c_str());
      return;
    }
    std::printf("%s: %s\n", path->c_str(), r.description.c_str());
    for (const std::string& l : r.lines) std::printf("  %s\n", l.c_str());
  });
}

}  // namespace starzk::cli
