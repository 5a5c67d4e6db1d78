// iden3 encodings of primes, Fr values and points (iden3_codec.hpp).
#include "io/iden3_codec.hpp"

#include <array>
#include <cstring>

#include "ec/encoding.hpp"

namespace starzk::iden3 {

namespace {

// The primes as little-endian bytes, from the limb constants of ff/.
template <class F>
std::array<uint8_t, F::n_bytes> modulus_bytes() {
  std::array<uint8_t, F::n_bytes> b{};
  for (size_t i = 0; i < F::n_bytes; ++i) b[i] = uint8_t(F::modulus[i / 8] >> (8 * (i % 8)));
  return b;
}

// bn128 (alt_bn128 / BN254), the curve circom and snarkjs default to:
// r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
//   = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001
// q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
//   = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47
// (EIP-196; iden3 ffjavascript bn128 constants).
constexpr std::array<uint64_t, 4> bn128_r = {0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull,
                                             0x30644e72e131a029ull};
constexpr std::array<uint64_t, 4> bn128_q = {0x3c208c16d87cfd47ull, 0x97816a916871ca8dull, 0xb85045b68181585dull,
                                             0x30644e72e131a029ull};

bool equals_limbs(std::span<const uint8_t> b, const std::array<uint64_t, 4>& l) {
  if (b.size() != 32) return false;
  for (size_t i = 0; i < 32; ++i) {
    if (b[i] != uint8_t(l[i / 8] >> (8 * (i % 8)))) return false;
  }
  return true;
}

std::string hex_le(std::span<const uint8_t> b) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (size_t i = b.size(); i-- > 0;) {
    s += digits[b[i] >> 4];
    s += digits[b[i] & 15];
  }
  return s;
}

}  // namespace

void read_prime(bin_cursor_t& c, prime_t which) {
  const uint32_t want_n8 = which == prime_t::r ? 32 : 48;
  const char* name = which == prime_t::r ? "scalar field prime r" : "base field prime q";
  const uint32_t n8 = c.u32();
  if (n8 > c.remaining()) c.fail("truncated: field size n8 = " + std::to_string(n8) + " exceeds the section");
  const auto p = c.bytes(n8);
  if (equals_limbs(p, bn128_r) || equals_limbs(p, bn128_q)) {
    c.fail("wrong curve: prime is bn128's, expected bls12-381 (compile the circuit with --prime bls12381)");
  }
  if (n8 != want_n8) {
    c.fail("wrong curve: " + std::string(name) + " has " + std::to_string(n8) + " bytes, bls12-381 needs " +
           std::to_string(want_n8));
  }
  const bool ok = which == prime_t::r ? std::memcmp(p.data(), modulus_bytes<fr_t>().data(), 32) == 0
                                      : std::memcmp(p.data(), modulus_bytes<fp_t>().data(), 48) == 0;
  if (!ok) c.fail("wrong curve: " + std::string(name) + " is " + hex_le(p) + ", not bls12-381's");
}

void write_prime(bin_writer_t& w, prime_t which) {
  if (which == prime_t::r) {
    w.u32(32);
    w.bytes(modulus_bytes<fr_t>());
  } else {
    w.u32(48);
    w.bytes(modulus_bytes<fp_t>());
  }
}

fr_t read_fr(bin_cursor_t& c, const std::string& what) {
  fr_t v;
  if (!fr_t::from_bytes_le(c.bytes(32).data(), v)) c.fail(what + " is not below r (not a canonical Fr value)");
  return v;
}

void put_fr(uint8_t* out, const fr_t& v) { v.to_bytes_le(out); }
void write_fr(bin_writer_t& w, const fr_t& v) { v.to_bytes_le(w.extend(32)); }

// Points: the byte format is ec/encoding.hpp's snarkjs form; this file only
// adds io's wording of the problems, which readers print after the name of
// the point ("section 5 (A query): point 3 is not on the curve").
std::string problem_text(decode_status s) {
  switch (s) {
    case decode_status::ok:
      return "";
    case decode_status::non_canonical_coordinate:
      return ": a coordinate is not below q";
    case decode_status::not_on_curve:
      return " is not on the curve";
    case decode_status::not_in_subgroup:
      return " is not in the prime-order subgroup";
    default:
      return std::string(": ") + describe(s);
  }
}

bool decode_g1(const uint8_t* in, g1_affine_t& out) {
  return decode_g1_snarkjs(in, out, decode_check::none) == decode_status::ok;
}

bool decode_g2(const uint8_t* in, g2_affine_t& out) {
  return decode_g2_snarkjs(in, out, decode_check::none) == decode_status::ok;
}

template <class P>
static const char* curve_problem_of(const affine_t<P>& p, infinity_t inf) {
  if (p.is_infinity()) return inf == infinity_t::allowed ? nullptr : "is the point at infinity, not allowed here";
  if (!p.is_on_curve()) return "is not on the curve";
  return nullptr;
}

template <class P>
static std::string problem_of(const affine_t<P>& p, infinity_t inf) {
  if (const char* w = curve_problem_of(p, inf)) return w;
  if (!p.is_in_subgroup()) return subgroup_problem;
  return "";
}

std::string point_problem(const g1_affine_t& p, infinity_t inf) { return problem_of(p, inf); }
std::string point_problem(const g2_affine_t& p, infinity_t inf) { return problem_of(p, inf); }
const char* curve_problem(const g1_affine_t& p, infinity_t inf) { return curve_problem_of(p, inf); }
const char* curve_problem(const g2_affine_t& p, infinity_t inf) { return curve_problem_of(p, inf); }

// Decoding with the checks asked for (canonical, on the curve, and in the
// subgroup for full; O passes them), then the caller's infinity rule.
template <class P, decode_status (*decode)(const uint8_t*, affine_t<P>&, decode_check)>
static affine_t<P> read_point(bin_cursor_t& c, const std::string& what, infinity_t inf, decode_check check) {
  affine_t<P> p;
  const decode_check k = check == decode_check::full ? decode_check::full : decode_check::on_curve;
  const decode_status s = decode(c.bytes(sizeof(affine_t<P>)).data(), p, k);
  if (s != decode_status::ok) c.fail(what + problem_text(s));
  if (p.is_infinity() && inf == infinity_t::forbidden) c.fail(what + " is the point at infinity, not allowed here");
  return p;
}

g1_affine_t read_g1(bin_cursor_t& c, const std::string& what, infinity_t inf, decode_check check) {
  return read_point<g1_params, decode_g1_snarkjs>(c, what, inf, check);
}

g2_affine_t read_g2(bin_cursor_t& c, const std::string& what, infinity_t inf, decode_check check) {
  return read_point<g2_params, decode_g2_snarkjs>(c, what, inf, check);
}

void write_g1(bin_writer_t& w, const g1_affine_t& p) { encode_g1_snarkjs(p, w.extend(g1_snarkjs_size)); }
void write_g2(bin_writer_t& w, const g2_affine_t& p) { encode_g2_snarkjs(p, w.extend(g2_snarkjs_size)); }

}  // namespace starzk::iden3
