// snarkjs JSON numbers and points (json_points.hpp).
#include "io/json_points.hpp"

#include <fstream>
#include <sstream>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"

namespace starzk::json_io {

nlohmann::json read_json_file(const std::filesystem::path& file, uint64_t max_bytes) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw io_error(file, "cannot open");
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(file, ec);
  if (ec) throw io_error(file, "cannot read: " + ec.message());
  if (size > max_bytes) {
    throw io_error(file, "is " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) +
                             " this kind of JSON file may hold");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::exception& e) {
    throw io_error(file, std::string("not valid JSON: ") + e.what());
  }
}

std::string json_text(const ordered_json& j) { return j.dump(1) + "\n"; }

void write_json_file(const std::filesystem::path& file, const ordered_json& j) {
  write_file_atomic(file, std::string_view(json_text(j)));
}

void context_t::fail(const std::string& field, const std::string& problem) const {
  throw io_error(file, field + ": " + problem);
}

const nlohmann::json& member(const context_t& ctx, const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) ctx.fail("top level", "expected a JSON object");
  auto it = obj.find(key);
  if (it == obj.end()) ctx.fail(key, "field is missing");
  return *it;
}

namespace {

template <class F>
F parse_number(const context_t& ctx, const nlohmann::json& v, const std::string& field, const char* range) {
  std::string s;
  if (v.is_string()) {
    s = v.get<std::string>();
  } else if (v.is_number_unsigned()) {
    s = std::to_string(v.get<uint64_t>());
  } else {
    ctx.fail(field, "expected a decimal string");
  }
  try {
    return F::from_decimal(s);
  } catch (const std::exception&) {
    ctx.fail(field, "'" + s.substr(0, 100) + "' is not a decimal number below " + range);
  }
}

// Checks the z coordinate: returns true for infinity (z = 0), false for an
// affine point (z = 1 or no z at all).
bool parse_z(const context_t& ctx, const nlohmann::json& v, size_t n_xy, const std::string& field, bool g2) {
  if (v.size() == n_xy) return false;
  const auto& z = v[n_xy];
  auto is = [&](const nlohmann::json& e, const char* s) { return e.is_string() && e.get<std::string>() == s; };
  if (g2) {
    if (z.is_array() && z.size() == 2 && is(z[1], "0")) {
      if (is(z[0], "1")) return false;
      if (is(z[0], "0")) return true;
    }
  } else {
    if (is(z, "1")) return false;
    if (is(z, "0")) return true;
  }
  ctx.fail(field, "z coordinate must be 1 (affine) or 0 (infinity)");
}

template <class P>
void check_point(const context_t& ctx, const affine_t<P>& p, const std::string& field) {
  if (!p.is_on_curve()) ctx.fail(field, "point is not on the curve");
  if (!p.is_in_subgroup()) ctx.fail(field, "point is not in the prime-order subgroup");
}

}  // namespace

fp_t parse_fp(const context_t& ctx, const nlohmann::json& v, const std::string& field) {
  return parse_number<fp_t>(ctx, v, field, "q");
}

fr_t parse_fr(const context_t& ctx, const nlohmann::json& v, const std::string& field) {
  return parse_number<fr_t>(ctx, v, field, "r");
}

g1_affine_t parse_g1(const context_t& ctx, const nlohmann::json& v, const std::string& field, bool allow_infinity) {
  if (!v.is_array() || (v.size() != 2 && v.size() != 3)) ctx.fail(field, "expected a G1 point [x, y, \"1\"]");
  const bool inf = parse_z(ctx, v, 2, field, false);
  g1_affine_t p{parse_fp(ctx, v[0], field + "[0]"), parse_fp(ctx, v[1], field + "[1]")};
  if (inf) p = g1_affine_t::infinity();
  if (p.is_infinity()) {
    if (!allow_infinity) ctx.fail(field, "point at infinity is not allowed here");
    return p;
  }
  check_point(ctx, p, field);
  return p;
}

g2_affine_t parse_g2(const context_t& ctx, const nlohmann::json& v, const std::string& field, bool allow_infinity) {
  if (!v.is_array() || (v.size() != 2 && v.size() != 3)) {
    ctx.fail(field, "expected a G2 point [[x.c0, x.c1], [y.c0, y.c1], [\"1\", \"0\"]]");
  }
  const bool inf = parse_z(ctx, v, 2, field, true);
  auto fp2 = [&](const nlohmann::json& e, const std::string& name) {
    if (!e.is_array() || e.size() != 2) ctx.fail(name, "expected an Fp2 element [c0, c1]");
    return fp2_t{parse_fp(ctx, e[0], name + "[0]"), parse_fp(ctx, e[1], name + "[1]")};
  };
  g2_affine_t p{fp2(v[0], field + "[0]"), fp2(v[1], field + "[1]")};
  if (inf) p = g2_affine_t::infinity();
  if (p.is_infinity()) {
    if (!allow_infinity) ctx.fail(field, "point at infinity is not allowed here");
    return p;
  }
  check_point(ctx, p, field);
  return p;
}

ordered_json g1_to_json(const g1_affine_t& p) {
  if (p.is_infinity()) return ordered_json::array({"0", "1", "0"});
  return ordered_json::array({p.x.to_decimal(), p.y.to_decimal(), "1"});
}

ordered_json g2_to_json(const g2_affine_t& p) {
  if (p.is_infinity()) {
    return ordered_json::array(
        {ordered_json::array({"0", "0"}), ordered_json::array({"1", "0"}), ordered_json::array({"0", "0"})});
  }
  return ordered_json::array({ordered_json::array({p.x.c0.to_decimal(), p.x.c1.to_decimal()}),
                              ordered_json::array({p.y.c0.to_decimal(), p.y.c1.to_decimal()}),
                              ordered_json::array({"1", "0"})});
}

}  // namespace starzk::json_io
