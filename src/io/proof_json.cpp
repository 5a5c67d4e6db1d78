// proof.json / public.json reader and writer (proof_json.hpp).
#include "io/proof_json.hpp"

#include "io/atomic_file.hpp"
#include "io/json_points.hpp"

namespace starzk {

using json_io::member;
using json_io::ordered_json;

proof_t read_proof_json(const std::filesystem::path& file) {
  const nlohmann::json j = json_io::read_json_file(file, json_io::proof_json_max_bytes);
  const json_io::context_t ctx{file};
  if (!j.is_object()) ctx.fail("top level", "expected a JSON object");
  if (auto it = j.find("protocol"); it != j.end() && *it != "groth16") {
    ctx.fail("protocol", "expected \"groth16\", found " + it->dump());
  }
  if (auto it = j.find("curve"); it != j.end() && *it != "bls12381" && *it != "bls12-381") {
    ctx.fail("curve", "wrong curve: " + it->dump() + ", expected \"bls12381\"");
  }
  proof_t p;
  p.a = json_io::parse_g1(ctx, member(ctx, j, "pi_a"), "pi_a", false);
  p.b = json_io::parse_g2(ctx, member(ctx, j, "pi_b"), "pi_b", false);
  p.c = json_io::parse_g1(ctx, member(ctx, j, "pi_c"), "pi_c", false);
  return p;
}

std::string proof_json_text(const proof_t& proof) {
  ordered_json j;
  j["pi_a"] = json_io::g1_to_json(proof.a);
  j["pi_b"] = json_io::g2_to_json(proof.b);
  j["pi_c"] = json_io::g1_to_json(proof.c);
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  return json_io::json_text(j);
}

void write_proof_json(const std::filesystem::path& file, const proof_t& proof) {
  write_file_atomic(file, std::string_view(proof_json_text(proof)));
}

std::vector<fr_t> read_public_json(const std::filesystem::path& file) {
  const nlohmann::json j = json_io::read_json_file(file);
  const json_io::context_t ctx{file};
  if (!j.is_array()) ctx.fail("top level", "expected an array of decimal strings");
  std::vector<fr_t> v;
  v.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    std::string field = "[";  // built piecewise: GCC 12 warns (-Wrestrict) on "[" + std::string
    field += std::to_string(i);
    field += ']';
    v.push_back(json_io::parse_fr(ctx, j[i], field));
  }
  return v;
}

std::string public_json_text(std::span<const fr_t> inputs) {
  ordered_json j = ordered_json::array();
  for (const auto& x : inputs) j.push_back(x.to_decimal());
  return json_io::json_text(j);
}

void write_public_json(const std::filesystem::path& file, std::span<const fr_t> inputs) {
  write_file_atomic(file, std::string_view(public_json_text(inputs)));
}

}  // namespace starzk
