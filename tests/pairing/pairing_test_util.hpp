// Shared helpers for tests/pairing: a seeded generator, random subgroup
// points and scalars, and the two big exponents the final exponentiation is
// held against.
//
// The exponents were computed with Python integers from
//   p = 0x1a0111ea...ffffaaab, r = 0x73eda753...00000001 (ff/fp.hpp, ff/fr.hpp):
//   final_exp_exponent = 3 (p^12 - 1) / r        (4316 bits, 68 limbs)
//   hard_part_exponent = 3 (p^4 - p^2 + 1) / r   (1270 bits, 20 limbs)
// (both divisions exact), little-endian 64-bit limbs. The same script
// checked the identity 3 (p^4 - p^2 + 1)/r = (x-1)^2 (x+p)(x^2+p^2-1) + 3
// used by final_exponentiation.cpp. A wrong constant here cannot make a
// wrong implementation pass: the tests compare against fp12_t::pow, which
// shares no code with the x-chain.
#pragma once

#include <array>
#include <cstdint>
#include <random>

#include "ec/scalar_mul.hpp"
#include "pairing/pairing.hpp"

namespace starzk::test {

inline std::mt19937_64& rng() {
  static std::mt19937_64 g(0x9a12'1e5e'edull);
  return g;
}

inline fr_t random_scalar() { return fr_t::random(rng()); }

inline g1_affine_t random_g1() { return mul(g1_affine_t::generator(), random_scalar()).to_affine(); }
inline g2_affine_t random_g2() { return mul(g2_affine_t::generator(), random_scalar()).to_affine(); }

inline g1_affine_t g1_times(const fr_t& s) { return mul(g1_affine_t::generator(), s).to_affine(); }
inline g2_affine_t g2_times(const fr_t& s) { return mul(g2_affine_t::generator(), s).to_affine(); }

// f^s for a scalar s in canonical form.
inline fp12_t pow_fr(const fp12_t& f, const fr_t& s) {
  const std::array<uint64_t, 4> k = s.to_canonical();
  return f.pow(std::span<const uint64_t>(k));
}

inline constexpr std::array<uint64_t, 68> final_exp_exponent = {
    0x42362d2019e05f30ull, 0x71ec9292b3a3f16eull, 0xcc14f35af381dd9bull, 0xaa8e8db57364b4e0ull, 0xbbd8542f1f4e813cull,
    0x67448d0357e60280ull, 0x37e374d545d9b34bull, 0x0dbe98538990b886ull, 0x4f37addccc764259ull, 0xb126a5693d0c1648ull,
    0xe2fab93c0cbe7336ull, 0x5be26fa7d750500cull, 0x0fd55b32bc26877full, 0x2789939db85ffd7eull, 0x8a8dbc483bf8b74cull,
    0xee57b6df108eff59ull, 0x44dc2a7f86c253a4ull, 0x1ab9a096b98465d0ull, 0xa19abe6ea2accb45ull, 0xd458de749460d4a2ull,
    0xefda3b46ebf86211ull, 0xbf503bd6ec0a0679ull, 0xee452496f5166c25ull, 0x533883a3513435f3ull, 0x0c49ebcd2352765full,
    0xdd3ed254fdeda030ull, 0xf337b31c79222145ull, 0xdc89d154af91ad54ull, 0x48986b14d9098746ull, 0xb600e6c98003bf85ull,
    0xe543c4bc40bcd4c0ull, 0x1e5f07600ce6b407ull, 0x5017931d6740bda7ull, 0x99edd44084bd2372ull, 0xb20f28c19e4105abull,
    0x56cfa8c3574363efull, 0x376e521070d29c9dull, 0x24ed5e515911037bull, 0xa9f5aa7994cec31bull, 0xc2f98fcdd0dd36caull,
    0xc2cb543d69430c37ull, 0xd4c1f3ac25e3167eull, 0x6f3496b2dd38e722ull, 0x0c4347bb5a7e405dull, 0x312d8a7d76233637ull,
    0x167ff1323d6e99acull, 0x4dde0523678105d9ull, 0x4e2513d6e4a5d3bbull, 0x9f28efa0d355b022ull, 0x773528bbae870697ull,
    0x7ab1cd294a502304ull, 0x4b9783d9c6aa8129ull, 0x133bdc3ca9412b98ull, 0x16e296a72928cfeeull, 0xfb77b732ba5f9948ull,
    0xa9d6ff3a07dbd34eull, 0x54207282314fc0deull, 0x5958cb8bfdae2d2dull, 0x15eacb2cf3218a16ull, 0x42009fe1bd6fcbceull,
    0x913caba6579c08fdull, 0x7315a664019fbd84ull, 0x468d8f473094aecbull, 0x5a2b2fe3bea73dfbull, 0x7dc671be77cf1771ull,
    0xdc3e541f9dca04bbull, 0x96587127a538fd40ull, 0x0000000008ca5921ull};

inline constexpr std::array<uint64_t, 20> hard_part_exponent = {
    0xaf444bdcaaab2f6bull, 0xefcb3800a61a66d5ull, 0xb116bba59a18123aull, 0x554e727d129be6a3ull, 0x8a65dbc1cc35fe5aull,
    0x6574220c23e5b6ccull, 0x8c72178bc76a791cull, 0xb415c7da454d4863ull, 0x37d47f639b68a630ull, 0x6a6a2b0ab1c47526ull,
    0x6c9ae9625394f594ull, 0x6163cbf00bf566e4ull, 0x877c5e22f2639411ull, 0xb0f5836ba82b62deull, 0xe3ae662e47a24ea0ull,
    0x8d69012b6d183f47ull, 0xbcf13296f7a83fceull, 0x7b69b9acc2cc45eaull, 0x4237aa494c159cdcull, 0x002e3941b8817705ull};

}  // namespace starzk::test
