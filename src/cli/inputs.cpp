// File loading for the subcommands; see inputs.hpp.
#include "cli/inputs.hpp"

#include <fstream>
#include <stdexcept>

#include "groth16/setup.hpp"
#include "io/csr_circuit.hpp"
#include "io/key_cache.hpp"
#include "io/packed_key.hpp"
#include "keys/gpu_decoder.hpp"
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

// A packed key (starzk gen --format compact) likewise, with its circuit:
// unpacked on the GPU when there is one (square roots and subgroup checks
// of ~10^8 points per second there, ~3·10^4 per core on the CPU).
proving_key_t read_packed(const std::string& path, const r1cs_t* circuit) {
  if (!circuit)
    throw std::invalid_argument(path + ": a packed key (.szpk) carries no QAP matrices: give its circuit (--circuit)");
  const packed_key_view_t view(path);
  std::unique_ptr<point_decoder_t> dec = keys::gpu_point_decoder(0);
  if (!dec) dec = cpu_point_decoder();
  proving_key_t pk = unpack_packed_key(view, true, *dec);
  if (pk.convention == h_convention_t::snarkjs_odd_coset) zkey_matrices(*circuit, pk.domain_size, pk.zkey_a, pk.zkey_b);
  return pk;
}

}  // namespace

loaded_key_t load_key(const std::string& zkey, const std::string& params, const r1cs_t* circuit) {
  for (const std::string* p : {&zkey, &params}) {
    if (!p->empty() && is_key_cache(*p)) return loaded_key_t{*p, read_key_cache(*p)};
    if (!p->empty() && has_magic(*p, "szpk")) return loaded_key_t{*p, read_packed(*p, circuit)};
  }
  if (!zkey.empty()) return loaded_key_t{zkey, read_zkey(zkey)};
  if (!params.empty()) return loaded_key_t{params, circuit ? read_params(params, *circuit) : read_params(params)};
  throw std::invalid_argument("no key given: use --zkey or --params");
}

verifying_key_t load_verifying_key(const std::string& vkey_json, const std::string& zkey, const std::string& params) {
  if (!vkey_json.empty()) return read_vkey_json(vkey_json);
  for (const std::string* p : {&zkey, &params}) {
    if (!p->empty() && is_key_cache(*p)) return key_cache_view_t(*p, cache_check_t::header).vk();
    if (!p->empty() && has_magic(*p, "szpk")) {
      const packed_key_view_t view(*p);
      verifying_key_t vk;
      vk.alpha_g1 = view.head().alpha_g1;
      vk.beta_g2 = view.head().beta_g2;
      vk.gamma_g2 = view.head().gamma_g2;
      vk.delta_g2 = view.head().delta_g2;
      const std::unique_ptr<point_decoder_t> dec = cpu_point_decoder();
      vk.ic = unpack_packed_ic(view, *dec);
      return vk;
    }
  }
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
