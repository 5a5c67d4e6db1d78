// Filecoin .vk files: see bellman_vk.hpp. The byte layout is the one
// params.cpp reads at the start of a .params file; the points are decoded
// with the zcash uncompressed encoding (ec/encoding.hpp).
#include "io/bellman_vk.hpp"

#include <fstream>
#include <string>
#include <vector>

#include "ec/encoding.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/mapped_file.hpp"

namespace starzk {

namespace {

uint32_t read_u32_be(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

template <class Point, class Decode>
Point decode_at(const mapped_file_t& f, const std::string& name, uint64_t offset, Decode decode) {
  Point p;
  const decode_status s = decode(f.data() + offset, p, decode_check::full);
  if (s != decode_status::ok)
    throw io_error(f.path(), name + " at offset " + std::to_string(offset) + ": " + describe(s));
  if (p.is_infinity())
    throw io_error(f.path(), name + " at offset " + std::to_string(offset) + " is the point at infinity");
  return p;
}

g1_affine_t g1_at(const mapped_file_t& f, const std::string& name, uint64_t offset) {
  return decode_at<g1_affine_t>(f, name, offset, [](const uint8_t* in, g1_affine_t& p, decode_check c) {
    return decode_g1_uncompressed(in, p, c);
  });
}
g2_affine_t g2_at(const mapped_file_t& f, const std::string& name, uint64_t offset) {
  return decode_at<g2_affine_t>(f, name, offset, [](const uint8_t* in, g2_affine_t& p, decode_check c) {
    return decode_g2_uncompressed(in, p, c);
  });
}

}  // namespace

bool looks_like_bellman_vk(const std::filesystem::path& file) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(file, ec);
  if (ec || size < bellman_vk_fixed_bytes) return false;
  std::ifstream in(file, std::ios::binary);
  uint8_t n[4];
  in.seekg(std::streamoff(bellman_vk_fixed_bytes - 4));
  if (!in.read(reinterpret_cast<char*>(n), 4)) return false;
  return size == bellman_vk_bytes(read_u32_be(n));
}

bellman_vk_t read_bellman_vk(const std::filesystem::path& file, bool leading) {
  const mapped_file_t f(file);
  const uint64_t size = f.size();
  if (size < bellman_vk_fixed_bytes)
    throw io_error(file, "truncated: " + std::to_string(size) + " bytes is too short for a bellman verifying key (" +
                             std::to_string(bellman_vk_fixed_bytes) + " before its ic points)");
  const uint32_t n_ic = read_u32_be(f.data() + 864);
  if (n_ic == 0) throw io_error(file, "the verifying key has no ic points (it needs n_public + 1)");
  // The size first: a lying count allocates nothing.
  if (leading ? size < bellman_vk_bytes(n_ic) : size != bellman_vk_bytes(n_ic))
    throw io_error(file, "is " + std::to_string(size) + " bytes, but its ic count " + std::to_string(n_ic) +
                             " needs exactly " + std::to_string(bellman_vk_bytes(n_ic)) +
                             " (a .params holds more: use --params)");
  bellman_vk_t k;
  k.vk.alpha_g1 = g1_at(f, "alpha_g1", 0);
  k.beta_g1 = g1_at(f, "beta_g1", 96);
  k.vk.beta_g2 = g2_at(f, "beta_g2", 192);
  k.vk.gamma_g2 = g2_at(f, "gamma_g2", 384);
  k.delta_g1 = g1_at(f, "delta_g1", 576);
  k.vk.delta_g2 = g2_at(f, "delta_g2", 672);
  k.vk.ic.resize(n_ic);
  for (uint32_t i = 0; i < n_ic; ++i)
    k.vk.ic[i] = g1_at(f, "ic point " + std::to_string(i), bellman_vk_fixed_bytes + 96 * uint64_t(i));
  return k;
}

void encode_bellman_vk_points(const key_head_t& k, uint8_t* out) {
  encode_g1_uncompressed(k.alpha_g1, out);
  encode_g1_uncompressed(k.beta_g1, out + 96);
  encode_g2_uncompressed(k.beta_g2, out + 192);
  encode_g2_uncompressed(k.gamma_g2, out + 384);
  encode_g1_uncompressed(k.delta_g1, out + 576);
  encode_g2_uncompressed(k.delta_g2, out + 672);
}

void write_bellman_vk(const std::filesystem::path& file, const bellman_vk_t& k) {
  std::vector<uint8_t> b(bellman_vk_bytes(k.vk.ic.size()));
  encode_bellman_vk_points(key_head_t{k.vk.alpha_g1, k.beta_g1, k.delta_g1, k.vk.beta_g2, k.vk.delta_g2, k.vk.gamma_g2},
                           b.data());
  const uint32_t n = uint32_t(k.vk.ic.size());
  for (int i = 0; i < 4; ++i) b[864 + i] = uint8_t(n >> (24 - 8 * i));
  for (uint32_t i = 0; i < n; ++i) encode_g1_uncompressed(k.vk.ic[i], b.data() + bellman_vk_fixed_bytes + 96 * i);
  write_file_atomic(file, std::span<const uint8_t>(b));
}

bellman_vk_t bellman_vk_of(const proving_key_t& pk) { return bellman_vk_t{pk.vk, pk.beta_g1, pk.delta_g1}; }

}  // namespace starzk
