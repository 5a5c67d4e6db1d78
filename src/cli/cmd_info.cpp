// starzk info FILE: says what a file is and what it holds, after reading
// (and so fully validating) it: .r1cs, .wtns, .zkey, .params, and the
// snarkjs JSON files (verification key, proof, public inputs).
#include <cstdio>
#include <cctype>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "io/io_error.hpp"
#include "io/csr_circuit.hpp"
#include "io/params.hpp"
#include "io/proof_json.hpp"
#include "io/r1cs.hpp"
#include "io/vkey_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "io/packed_key.hpp"
#include "keys/gpu_decoder.hpp"

namespace starzk::cli {

namespace {

std::string magic_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw io_error(path, "cannot open");
  char m[4] = {};
  f.read(m, 4);
  return std::string(m, size_t(f.gcount()));
}

void describe_matrix(const char* name, const sparse_matrix_t& m) {
  std::printf("  %s: %llu non-zeros (%.2f per row), %s\n", name, static_cast<unsigned long long>(m.nnz()),
              m.n_rows ? double(m.nnz()) / double(m.n_rows) : 0.0,
              m.coded() ? ("coded: " + std::to_string(m.dict.size()) + " distinct values").c_str() : "plain values");
}

void describe_key(const proving_key_t& pk) {
  std::printf("  convention: %s\n", pk.convention == h_convention_t::snarkjs_odd_coset
                                        ? "snarkjs (H on the odd coset of the 2n-th roots)"
                                        : "bellman (H = tau^i Z(tau)/delta, coset division)");
  std::printf("  wires: %u, public inputs: %u, domain: %llu\n", pk.n_vars, pk.n_public,
              static_cast<unsigned long long>(pk.domain_size));
  std::printf("  queries: A %zu, B_g1 %zu, B_g2 %zu, L %zu, H %zu points\n", pk.a.size(), pk.b_g1.size(),
              pk.b_g2.size(), pk.l.size(), pk.h.size());
}

void run_info(const std::string& path) {
  const std::string magic = magic_of(path);
  if (magic == "r1cs" || magic == "szcs") {
    const bool csr = magic == "szcs";
    const r1cs_t cs = csr ? read_csr_circuit(path) : read_r1cs(path);
    std::printf("%s: %s over BLS12-381\n  constraints: %u, wires: %u, public: %u\n", path.c_str(),
                csr ? ("starzk CSR circuit (.szcs) version " + std::to_string(csr_circuit_view_t(path).version())).c_str()
                    : "iden3 R1CS circuit",
                cs.n_constraints, cs.n_vars, cs.n_public);
    describe_matrix("A", cs.a);
    describe_matrix("B", cs.b);
    describe_matrix("C", cs.c);
  } else if (magic == "wtns") {
    const auto w = read_wtns(path);
    std::printf("%s: iden3 witness over BLS12-381, %zu values\n", path.c_str(), w.size());
  } else if (magic == "zkey") {
    std::printf("%s: snarkjs Groth16 proving key (.zkey) over BLS12-381\n", path.c_str());
    describe_key(read_zkey(path));
  } else if (magic == "szpk") {
    // Unpacked (and so validated) on the GPU when there is one.
    const packed_key_view_t view(path);
    view.verify_checksums();
    std::unique_ptr<point_decoder_t> dec = keys::gpu_point_decoder(0);
    if (!dec) dec = cpu_point_decoder();
    const proving_key_t pk = unpack_packed_key(view, true, *dec);
    std::printf("%s: starzk packed Groth16 key (.szpk), %llu bytes; A %llu and B %llu points stored\n", path.c_str(),
                static_cast<unsigned long long>(view.shape().file_bytes()),
                static_cast<unsigned long long>(view.shape().n_a), static_cast<unsigned long long>(view.shape().n_b));
    describe_key(pk);
  } else if (!magic.empty() && (magic[0] == '{' || magic[0] == '[' || std::isspace(uint8_t(magic[0])))) {
    std::ifstream f(path);
    nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded()) throw io_error(path, "not valid JSON");
    if (j.is_array()) {
      std::printf("%s: snarkjs public inputs, %zu values\n", path.c_str(), read_public_json(path).size());
    } else if (j.contains("vk_delta_2")) {
      const verifying_key_t vk = read_vkey_json(path);
      std::printf("%s: snarkjs Groth16 verification key, %zu public inputs\n", path.c_str(), vk.ic.size() - 1);
    } else if (j.contains("pi_a")) {
      read_proof_json(path);
      std::printf("%s: snarkjs Groth16 proof (points on the curve and in the subgroup)\n", path.c_str());
    } else {
      throw io_error(path, "JSON, but not a verification key, proof or public inputs");
    }
  } else {
    // bellman/Filecoin .params have no magic: walk its counts, decode its
    // verifying key (the queries' points are checked when a prover loads it).
    const params_layout_t lay = scan_params(path);
    const verifying_key_t vk = read_params_vk(path);
    std::printf("%s: bellman/Filecoin Groth16 parameters (.params), %llu bytes\n", path.c_str(),
                static_cast<unsigned long long>(lay.file_size));
    std::printf("  convention: bellman (H = tau^i Z(tau)/delta, coset division)\n");
    std::printf("  public inputs: %zu, aux wires: %u, domain: %llu\n", vk.ic.size() - 1, lay.l.count,
                static_cast<unsigned long long>(lay.h.count) + 1);
    std::printf("  queries: A %u, B_g1 %u, B_g2 %u, L %u, H %u points (bellman omits A/B points at infinity)\n",
                lay.a.count, lay.b_g1.count, lay.b_g2.count, lay.l.count, lay.h.count);
  }
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("info", "Say what a file is and what it holds (reads and validates it)");
  cmd->footer("Knows .r1cs, .szcs, .wtns, .zkey, .params, .szpk, verification_key.json, proof.json and public.json.");
  cmd->add_option("FILE", *path, "the file")->required()->check(CLI::ExistingFile);
  cmd->callback([path] { run_info(*path); });
}

}  // namespace starzk::cli
