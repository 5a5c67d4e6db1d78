// verification_key.json reader and writer (vkey_json.hpp).
#include "io/vkey_json.hpp"

#include "io/io_error.hpp"
#include "io/json_points.hpp"

namespace starzk {

using json_io::member;
using json_io::ordered_json;

namespace {

void check_header(const json_io::context_t& ctx, const nlohmann::json& j) {
  const auto& protocol = member(ctx, j, "protocol");
  if (!protocol.is_string() || protocol.get<std::string>() != "groth16") {
    ctx.fail("protocol", "expected \"groth16\", found " + protocol.dump());
  }
  const auto& curve = member(ctx, j, "curve");
  if (!curve.is_string()) ctx.fail("curve", "expected a string");
  const std::string c = curve.get<std::string>();
  if (c == "bn128" || c == "bn254" || c == "altbn128") {
    ctx.fail("curve", "wrong curve: \"" + c + "\" is bn128, expected bls12-381");
  }
  if (c != "bls12381" && c != "bls12-381") ctx.fail("curve", "wrong curve: \"" + c + "\", expected \"bls12381\"");
}

}  // namespace

verifying_key_t read_vkey_json(const std::filesystem::path& file) {
  const nlohmann::json j = json_io::read_json_file(file);
  const json_io::context_t ctx{file};
  check_header(ctx, j);

  verifying_key_t vk;
  vk.alpha_g1 = json_io::parse_g1(ctx, member(ctx, j, "vk_alpha_1"), "vk_alpha_1", false);
  vk.beta_g2 = json_io::parse_g2(ctx, member(ctx, j, "vk_beta_2"), "vk_beta_2", false);
  vk.gamma_g2 = json_io::parse_g2(ctx, member(ctx, j, "vk_gamma_2"), "vk_gamma_2", false);
  vk.delta_g2 = json_io::parse_g2(ctx, member(ctx, j, "vk_delta_2"), "vk_delta_2", false);

  const auto& ic = member(ctx, j, "IC");
  if (!ic.is_array() || ic.empty()) ctx.fail("IC", "expected a non-empty array of G1 points");
  for (size_t i = 0; i < ic.size(); ++i) {
    vk.ic.push_back(json_io::parse_g1(ctx, ic[i], "IC[" + std::to_string(i) + "]", false));
  }
  if (auto it = j.find("nPublic"); it != j.end()) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() + 1 != ic.size()) {
      ctx.fail("nPublic", it->dump() + " does not match IC, which has " + std::to_string(ic.size()) + " points");
    }
  }
  return vk;
}

void write_vkey_json(const std::filesystem::path& file, const verifying_key_t& vk,
                     const std::optional<alphabeta_12_t>& alphabeta_12) {
  if (vk.ic.empty()) throw io_error(file, "cannot write verification key: IC is empty");
  ordered_json j;
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  j["nPublic"] = vk.ic.size() - 1;
  j["vk_alpha_1"] = json_io::g1_to_json(vk.alpha_g1);
  j["vk_beta_2"] = json_io::g2_to_json(vk.beta_g2);
  j["vk_gamma_2"] = json_io::g2_to_json(vk.gamma_g2);
  j["vk_delta_2"] = json_io::g2_to_json(vk.delta_g2);
  if (alphabeta_12) {
    ordered_json f12 = ordered_json::array();
    for (int i = 0; i < 2; ++i) {
      ordered_json f6 = ordered_json::array();
      for (int k = 0; k < 3; ++k) {
        f6.push_back(ordered_json::array({(*alphabeta_12)[6 * i + 2 * k], (*alphabeta_12)[6 * i + 2 * k + 1]}));
      }
      f12.push_back(f6);
    }
    j["vk_alphabeta_12"] = f12;
  }
  ordered_json ic = ordered_json::array();
  for (const auto& p : vk.ic) ic.push_back(json_io::g1_to_json(p));
  j["IC"] = ic;
  json_io::write_json_file(file, j);
}

}  // namespace starzk
