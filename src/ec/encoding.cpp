// Point encodings: zcash / Filecoin bytes, snarkjs Montgomery bytes, snarkjs
// decimal strings (formats in encoding.hpp).
//
// G1 and G2 share one template per format; the only difference is how a
// coordinate is laid out (Fp: one 48-byte number; Fp2: two, c1 first for
// zcash and c0 first for snarkjs), which the put_/get_ overloads isolate.
// Decoders check in a fixed order, cheapest and most specific first: flags,
// coordinate range, square root / curve equation, subgroup. The first
// failure is the status returned, so a test can target each rule.
#include "ec/encoding.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace starzk {
namespace {

constexpr uint8_t flag_compressed = 0x80;
constexpr uint8_t flag_infinity = 0x40;
constexpr uint8_t flag_sort = 0x20;
constexpr uint8_t flag_bits = flag_compressed | flag_infinity | flag_sort;

static_assert(sizeof(fp2_t) == 96, "fp2_t = c0 || c1");

// zcash order: big-endian, Fp2 as c1 || c0.
void put_be(const fp_t& a, uint8_t* out) { a.to_bytes_be(out); }
void put_be(const fp2_t& a, uint8_t* out) {
  a.c1.to_bytes_be(out);
  a.c0.to_bytes_be(out + 48);
}
bool get_be(const uint8_t* in, fp_t& a) { return fp_t::from_bytes_be(in, a); }
bool get_be(const uint8_t* in, fp2_t& a) { return fp_t::from_bytes_be(in, a.c1) && fp_t::from_bytes_be(in + 48, a.c0); }

// snarkjs order: Montgomery little-endian, Fp2 as c0 || c1.
void put_mont(const fp_t& a, uint8_t* out) { a.to_mont_bytes_le(out); }
void put_mont(const fp2_t& a, uint8_t* out) {
  a.c0.to_mont_bytes_le(out);
  a.c1.to_mont_bytes_le(out + 48);
}
bool get_mont(const uint8_t* in, fp_t& a) { return fp_t::from_mont_bytes_le(in, a); }
bool get_mont(const uint8_t* in, fp2_t& a) {
  return fp_t::from_mont_bytes_le(in, a.c0) && fp_t::from_mont_bytes_le(in + 48, a.c1);
}

bool all_zero(const uint8_t* p, size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

// The checks after the format: the curve equation (unless the caller already
// knows the point is on it) and the subgroup, as decode_check asks.
template <class P>
decode_status finish(const affine_t<P>& p, decode_check check, bool known_on_curve) {
  if (check == decode_check::none) return decode_status::ok;
  if (!known_on_curve && !p.is_on_curve()) return decode_status::not_on_curve;
  if (check == decode_check::full && !p.is_in_subgroup()) return decode_status::not_in_subgroup;
  return decode_status::ok;
}

template <class P>
void encode_compressed(const affine_t<P>& p, uint8_t* out) {
  constexpr size_t n = sizeof(typename P::field_t);
  if (p.is_infinity()) {
    std::memset(out, 0, n);
    out[0] = flag_compressed | flag_infinity;
    return;
  }
  put_be(p.x, out);
  out[0] |= flag_compressed;
  if (p.y.lexicographically_largest()) out[0] |= flag_sort;
}

template <class P>
void encode_uncompressed(const affine_t<P>& p, uint8_t* out) {
  constexpr size_t n = sizeof(typename P::field_t);
  if (p.is_infinity()) {
    std::memset(out, 0, 2 * n);
    out[0] = flag_infinity;
    return;
  }
  put_be(p.x, out);
  put_be(p.y, out + n);
}

template <class P>
decode_status decode_compressed(const uint8_t* in, affine_t<P>& out, decode_check check) {
  using field_t = typename P::field_t;
  constexpr size_t n = sizeof(field_t);
  const uint8_t flags = in[0] & flag_bits;
  if (!(flags & flag_compressed)) return decode_status::wrong_compression_flag;
  uint8_t buf[n];
  std::memcpy(buf, in, n);
  buf[0] &= static_cast<uint8_t>(~flag_bits);
  if (flags & flag_infinity) {
    if (flags & flag_sort) return decode_status::sort_flag_on_infinity;
    if (!all_zero(buf, n)) return decode_status::bad_infinity_encoding;
    out = affine_t<P>::infinity();
    return decode_status::ok;
  }
  field_t x;
  if (!get_be(buf, x)) return decode_status::non_canonical_coordinate;
  // y = +-sqrt(x^3 + b); the sort flag says which root.
  field_t y;
  if (!(x.sqr() * x + P::b()).sqrt(y)) return decode_status::no_square_root;
  if (y.lexicographically_largest() != bool(flags & flag_sort)) y = -y;
  const affine_t<P> p{x, y};
  const decode_status s = finish(p, check, true);
  if (s == decode_status::ok) out = p;
  return s;
}

template <class P>
decode_status decode_uncompressed(const uint8_t* in, affine_t<P>& out, decode_check check) {
  using field_t = typename P::field_t;
  constexpr size_t n = sizeof(field_t);
  const uint8_t flags = in[0] & flag_bits;
  if (flags & flag_compressed) return decode_status::wrong_compression_flag;
  if (flags & flag_sort) return decode_status::sort_flag_on_uncompressed;
  uint8_t buf[2 * n];
  std::memcpy(buf, in, 2 * n);
  buf[0] &= static_cast<uint8_t>(~flag_bits);
  if (flags & flag_infinity) {
    if (!all_zero(buf, 2 * n)) return decode_status::bad_infinity_encoding;
    out = affine_t<P>::infinity();
    return decode_status::ok;
  }
  affine_t<P> p;
  if (!get_be(buf, p.x) || !get_be(buf + n, p.y)) return decode_status::non_canonical_coordinate;
  // (0, 0) without the infinity flag is not a point (and would read as O).
  if (p.is_infinity()) return decode_status::not_on_curve;
  const decode_status s = finish(p, check, false);
  if (s == decode_status::ok) out = p;
  return s;
}

template <class P>
decode_status decode_snarkjs(const uint8_t* in, affine_t<P>& out, decode_check check) {
  constexpr size_t n = sizeof(typename P::field_t);
  affine_t<P> p;
  if (!get_mont(in, p.x) || !get_mont(in + n, p.y)) return decode_status::non_canonical_coordinate;
  const decode_status s = p.is_infinity() ? decode_status::ok : finish(p, check, false);
  if (s == decode_status::ok) out = p;
  return s;
}

bool parse_fp(const std::string& s, fp_t& out) {
  try {
    out = fp_t::from_decimal(s);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

bool parse_fp2(const std::array<std::string, 2>& s, fp2_t& out) {
  return parse_fp(s[0], out.c0) && parse_fp(s[1], out.c1);
}

// z = 1: an affine point; z = 0 with (x, y) = (0, 1): snarkjs's O.
template <class P>
decode_status from_projective(const typename P::field_t& x, const typename P::field_t& y, const typename P::field_t& z,
                              affine_t<P>& out, decode_check check) {
  using field_t = typename P::field_t;
  if (z.is_zero()) {
    if (!(x.is_zero() && y == field_t::one())) return decode_status::bad_projective;
    out = affine_t<P>::infinity();
    return decode_status::ok;
  }
  if (!(z == field_t::one())) return decode_status::bad_projective;
  const affine_t<P> p{x, y};
  if (p.is_infinity()) return decode_status::not_on_curve;
  const decode_status s = finish(p, check, false);
  if (s == decode_status::ok) out = p;
  return s;
}

template <size_t N, class F>
decode_status with_length(std::span<const uint8_t> in, F&& decode) {
  if (in.size() != N) return decode_status::wrong_length;
  return decode(in.data());
}

}  // namespace

const char* describe(decode_status s) {
  switch (s) {
    case decode_status::ok:
      return "ok";
    case decode_status::wrong_length:
      return "the encoding has the wrong number of bytes";
    case decode_status::wrong_compression_flag:
      return "the compression flag (bit 7 of the first byte) does not match the expected form";
    case decode_status::bad_infinity_encoding:
      return "the infinity flag is set but the other bits of the encoding are not all zero";
    case decode_status::sort_flag_on_infinity:
      return "the sort flag is set on the point at infinity";
    case decode_status::sort_flag_on_uncompressed:
      return "the sort flag is set on an uncompressed point";
    case decode_status::non_canonical_coordinate:
      return "a coordinate is not below the field modulus p";
    case decode_status::no_square_root:
      return "x is not the x-coordinate of a curve point (x^3 + b is not a square)";
    case decode_status::not_on_curve:
      return "the point is not on the curve";
    case decode_status::not_in_subgroup:
      return "the point is on the curve but not in the prime-order subgroup";
    case decode_status::bad_decimal:
      return "a coordinate is not a decimal integer below p";
    case decode_status::bad_projective:
      return "the z coordinate is neither 1 nor the point-at-infinity form [0, 1, 0]";
  }
  return "unknown decode status";
}

void throw_if_failed(decode_status s, std::string_view what) {
  if (s == decode_status::ok) return;
  throw std::runtime_error(std::string(what) + ": " + describe(s));
}

void encode_g1_compressed(const g1_affine_t& p, uint8_t out[48]) { encode_compressed(p, out); }
void encode_g1_uncompressed(const g1_affine_t& p, uint8_t out[96]) { encode_uncompressed(p, out); }
void encode_g2_compressed(const g2_affine_t& p, uint8_t out[96]) { encode_compressed(p, out); }
void encode_g2_uncompressed(const g2_affine_t& p, uint8_t out[192]) { encode_uncompressed(p, out); }

decode_status decode_g1_compressed(const uint8_t* in, g1_affine_t& out, decode_check check) {
  return decode_compressed(in, out, check);
}
decode_status decode_g1_uncompressed(const uint8_t* in, g1_affine_t& out, decode_check check) {
  return decode_uncompressed(in, out, check);
}
decode_status decode_g2_compressed(const uint8_t* in, g2_affine_t& out, decode_check check) {
  return decode_compressed(in, out, check);
}
decode_status decode_g2_uncompressed(const uint8_t* in, g2_affine_t& out, decode_check check) {
  return decode_uncompressed(in, out, check);
}

decode_status decode_g1_compressed(std::span<const uint8_t> in, g1_affine_t& out, decode_check check) {
  return with_length<g1_compressed_size>(in, [&](const uint8_t* p) { return decode_compressed(p, out, check); });
}
decode_status decode_g1_uncompressed(std::span<const uint8_t> in, g1_affine_t& out, decode_check check) {
  return with_length<g1_uncompressed_size>(in, [&](const uint8_t* p) { return decode_uncompressed(p, out, check); });
}
decode_status decode_g2_compressed(std::span<const uint8_t> in, g2_affine_t& out, decode_check check) {
  return with_length<g2_compressed_size>(in, [&](const uint8_t* p) { return decode_compressed(p, out, check); });
}
decode_status decode_g2_uncompressed(std::span<const uint8_t> in, g2_affine_t& out, decode_check check) {
  return with_length<g2_uncompressed_size>(in, [&](const uint8_t* p) { return decode_uncompressed(p, out, check); });
}

void encode_g1_snarkjs(const g1_affine_t& p, uint8_t out[96]) {
  put_mont(p.x, out);
  put_mont(p.y, out + 48);
}
void encode_g2_snarkjs(const g2_affine_t& p, uint8_t out[192]) {
  put_mont(p.x, out);
  put_mont(p.y, out + 96);
}
decode_status decode_g1_snarkjs(const uint8_t* in, g1_affine_t& out, decode_check check) {
  return decode_snarkjs(in, out, check);
}
decode_status decode_g2_snarkjs(const uint8_t* in, g2_affine_t& out, decode_check check) {
  return decode_snarkjs(in, out, check);
}

g1_decimal_t g1_to_decimal(const g1_affine_t& p) {
  if (p.is_infinity()) return {"0", "1", "0"};
  return {p.x.to_decimal(), p.y.to_decimal(), "1"};
}

g2_decimal_t g2_to_decimal(const g2_affine_t& p) {
  if (p.is_infinity()) return {{{"0", "0"}, {"1", "0"}, {"0", "0"}}};
  return {{{p.x.c0.to_decimal(), p.x.c1.to_decimal()}, {p.y.c0.to_decimal(), p.y.c1.to_decimal()}, {"1", "0"}}};
}

decode_status g1_from_decimal(const g1_decimal_t& in, g1_affine_t& out, decode_check check) {
  fp_t x, y, z;
  if (!parse_fp(in[0], x) || !parse_fp(in[1], y) || !parse_fp(in[2], z)) return decode_status::bad_decimal;
  return from_projective<g1_params>(x, y, z, out, check);
}

decode_status g2_from_decimal(const g2_decimal_t& in, g2_affine_t& out, decode_check check) {
  fp2_t x, y, z;
  if (!parse_fp2(in[0], x) || !parse_fp2(in[1], y) || !parse_fp2(in[2], z)) return decode_status::bad_decimal;
  return from_projective<g2_params>(x, y, z, out, check);
}

}  // namespace starzk
