// zcash / Filecoin encodings: known answers and every decoder rejection.
//
// Known answers: compressed [1]G, [2]G, [3]G for G1 and G2 (the generators'
// encodings are those of the zcash BLS12-381 spec; the multiples were taken
// from @noble/curves 2.4.0, and tests/ec/test_noble.cpp recomputes such
// values live) and the encodings of O. Rejections: every combination of
// the three flag bits on both a point and O, coordinates >= p, x with no
// square root, (x, y) off the curve, points off the subgroup, wrong length.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ec/encoding.hpp"
#include "ec_test_util.hpp"

namespace starzk {
namespace {

using test::from_hex;
using test::to_hex;

const char* const g1_compressed_kat[3] = {
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb",
    "a572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e",
    "89ece308f9d1f0131765212deca99697b112d61f9be9a5f1f3780a51335b3ff981747a0b2ca2179b96d2c0c9024e5224",
};
const char* const g2_compressed_kat[3] = {
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
    "aa4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c33577"
    "1638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a053",
    "89380275bbc8e5dcea7dc4dd7e0550ff2ac480905396eda55062650f8d251c96eb480673937cc6d9d6a44aaa56ca66dc"
    "122915c824a0857e2ee414a3dccb23ae691ae54329781315a0c75df1c04d6d7a50a030fc866f09d516020ef82324afae",
};
// The G1 generator uncompressed: x || y (zcash spec).
const char* const g1_gen_uncompressed =
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";

TEST(ec_encoding, known_answers_g1) {
  for (uint64_t k = 1; k <= 3; ++k) {
    const g1_affine_t p = mul_u64(g1_affine_t::generator(), k).to_affine();
    uint8_t buf[48];
    encode_g1_compressed(p, buf);
    EXPECT_EQ(to_hex(buf, 48), g1_compressed_kat[k - 1]) << "k = " << k;
    g1_affine_t back;
    ASSERT_EQ(decode_g1_compressed(buf, back), decode_status::ok);
    EXPECT_EQ(back, p);
  }
  uint8_t u[96];
  encode_g1_uncompressed(g1_affine_t::generator(), u);
  EXPECT_EQ(to_hex(u, 96), g1_gen_uncompressed);
}

TEST(ec_encoding, known_answers_g2) {
  for (uint64_t k = 1; k <= 3; ++k) {
    const g2_affine_t p = mul_u64(g2_affine_t::generator(), k).to_affine();
    uint8_t buf[96];
    encode_g2_compressed(p, buf);
    EXPECT_EQ(to_hex(buf, 96), g2_compressed_kat[k - 1]) << "k = " << k;
    g2_affine_t back;
    ASSERT_EQ(decode_g2_compressed(buf, back), decode_status::ok);
    EXPECT_EQ(back, p);
  }
}

TEST(ec_encoding, infinity) {
  uint8_t c1[48], u1[96], c2[96], u2[192];
  encode_g1_compressed(g1_affine_t::infinity(), c1);
  encode_g1_uncompressed(g1_affine_t::infinity(), u1);
  encode_g2_compressed(g2_affine_t::infinity(), c2);
  encode_g2_uncompressed(g2_affine_t::infinity(), u2);
  EXPECT_EQ(c1[0], 0xc0);
  EXPECT_EQ(u1[0], 0x40);
  EXPECT_EQ(c2[0], 0xc0);
  EXPECT_EQ(u2[0], 0x40);
  EXPECT_TRUE(std::all_of(c1 + 1, c1 + 48, [](uint8_t b) { return b == 0; }));
  EXPECT_TRUE(std::all_of(u2 + 1, u2 + 192, [](uint8_t b) { return b == 0; }));
  g1_affine_t p1 = g1_affine_t::generator();
  g2_affine_t p2 = g2_affine_t::generator();
  ASSERT_EQ(decode_g1_compressed(c1, p1), decode_status::ok);
  EXPECT_TRUE(p1.is_infinity());
  p1 = g1_affine_t::generator();
  ASSERT_EQ(decode_g1_uncompressed(u1, p1), decode_status::ok);
  EXPECT_TRUE(p1.is_infinity());
  ASSERT_EQ(decode_g2_compressed(c2, p2), decode_status::ok);
  EXPECT_TRUE(p2.is_infinity());
  p2 = g2_affine_t::generator();
  ASSERT_EQ(decode_g2_uncompressed(u2, p2), decode_status::ok);
  EXPECT_TRUE(p2.is_infinity());
}

// Round trips of random subgroup points through all four forms; both values
// of the sort flag must occur.
template <class P, class Enc, class Dec>
void round_trip(size_t n, Enc enc, Dec dec, bool compressed) {
  int sort_set = 0;
  for (int i = 0; i < 16; ++i) {
    const affine_t<P> p = test::random_subgroup_point<P>();
    std::vector<uint8_t> buf(n);
    enc(p, buf.data());
    if (buf[0] & 0x20) ++sort_set;
    affine_t<P> back;
    ASSERT_EQ(dec(buf.data(), back, decode_check::full), decode_status::ok);
    EXPECT_EQ(back, p);
  }
  if (compressed) {
    EXPECT_GT(sort_set, 0);
    EXPECT_LT(sort_set, 16);
  } else {
    EXPECT_EQ(sort_set, 0);
  }
}

TEST(ec_encoding, round_trips) {
  round_trip<g1_params>(
      48, encode_g1_compressed,
      [](const uint8_t* b, g1_affine_t& p, decode_check c) { return decode_g1_compressed(b, p, c); }, true);
  round_trip<g1_params>(
      96, encode_g1_uncompressed,
      [](const uint8_t* b, g1_affine_t& p, decode_check c) { return decode_g1_uncompressed(b, p, c); }, false);
  round_trip<g2_params>(
      96, encode_g2_compressed,
      [](const uint8_t* b, g2_affine_t& p, decode_check c) { return decode_g2_compressed(b, p, c); }, true);
  round_trip<g2_params>(
      192, encode_g2_uncompressed,
      [](const uint8_t* b, g2_affine_t& p, decode_check c) { return decode_g2_uncompressed(b, p, c); }, false);
}

// Every flag combination on a valid compressed point and on compressed O.
TEST(ec_encoding, compressed_flag_combinations) {
  uint8_t point[48], inf[48];
  const g1_affine_t g = g1_affine_t::generator();
  encode_g1_compressed(g, point);
  encode_g1_compressed(g1_affine_t::infinity(), inf);
  const uint8_t sort_of_g = point[0] & 0x20;
  for (unsigned flags = 0; flags < 8; ++flags) {
    const uint8_t f = static_cast<uint8_t>(flags << 5);
    const bool c = f & 0x80, i = f & 0x40, s = f & 0x20;
    uint8_t b[48];
    std::memcpy(b, point, 48);
    b[0] = static_cast<uint8_t>((b[0] & 0x1f) | f);
    g1_affine_t out = g1_affine_t::generator();
    const decode_status st = decode_g1_compressed(b, out);
    decode_status want;
    if (!c)
      want = decode_status::wrong_compression_flag;
    else if (i && s)
      want = decode_status::sort_flag_on_infinity;
    else if (i)
      want = decode_status::bad_infinity_encoding;  // x bits are not zero
    else
      want = decode_status::ok;
    EXPECT_EQ(st, want) << "point, flags " << flags;
    if (want == decode_status::ok) {
      EXPECT_EQ(out, s == bool(sort_of_g) ? g : -g);
    }

    std::memcpy(b, inf, 48);
    b[0] = f;
    const decode_status st_inf = decode_g1_compressed(b, out);
    if (!c)
      want = decode_status::wrong_compression_flag;
    else if (i && s)
      want = decode_status::sort_flag_on_infinity;
    else if (i)
      want = decode_status::ok;
    // x = 0 without the infinity flag: y^2 = 4 gives the curve points
    // (0, +-2), which have order 3, so not in the subgroup.
    else
      want = decode_status::not_in_subgroup;
    EXPECT_EQ(st_inf, want) << "infinity, flags " << flags;
  }
  // O with a stray bit anywhere in x.
  for (size_t pos : {size_t(0), size_t(1), size_t(47)}) {
    uint8_t b[48];
    std::memcpy(b, inf, 48);
    b[pos] |= pos == 0 ? 0x01 : 0x80;
    g1_affine_t out;
    EXPECT_EQ(decode_g1_compressed(b, out), decode_status::bad_infinity_encoding) << "byte " << pos;
  }
}

TEST(ec_encoding, uncompressed_flag_combinations) {
  uint8_t point[192], inf[192];
  const g2_affine_t g = g2_affine_t::generator();
  encode_g2_uncompressed(g, point);
  encode_g2_uncompressed(g2_affine_t::infinity(), inf);
  for (unsigned flags = 0; flags < 8; ++flags) {
    const uint8_t f = static_cast<uint8_t>(flags << 5);
    const bool c = f & 0x80, i = f & 0x40, s = f & 0x20;
    for (const uint8_t* base : {point, inf}) {
      const bool is_inf = base == inf;
      uint8_t b[192];
      std::memcpy(b, base, 192);
      b[0] = static_cast<uint8_t>((b[0] & 0x1f) | f);
      g2_affine_t out;
      decode_status want;
      if (c)
        want = decode_status::wrong_compression_flag;
      else if (s)
        want = decode_status::sort_flag_on_uncompressed;
      else if (i)
        want = is_inf ? decode_status::ok : decode_status::bad_infinity_encoding;
      else
        want = is_inf ? decode_status::not_on_curve : decode_status::ok;  // (0, 0) without the flag
      EXPECT_EQ(decode_g2_uncompressed(b, out), want) << (is_inf ? "infinity" : "point") << ", flags " << flags;
    }
  }
}

// p, big-endian, and p + 1: both must be rejected as coordinates.
std::vector<uint8_t> modulus_be(unsigned add) {
  std::vector<uint8_t> v(48);
  for (size_t i = 0; i < 6; ++i)
    for (size_t j = 0; j < 8; ++j) v[47 - (8 * i + j)] = static_cast<uint8_t>(fp_params::modulus[i] >> (8 * j));
  v[47] = static_cast<uint8_t>(v[47] + add);  // p ends in 0xab: no carry for small add
  return v;
}

TEST(ec_encoding, non_canonical_coordinates) {
  for (unsigned add : {0u, 1u, 4u}) {
    const std::vector<uint8_t> p = modulus_be(add);
    uint8_t b1[48];
    std::memcpy(b1, p.data(), 48);
    b1[0] |= 0x80;
    g1_affine_t o1;
    EXPECT_EQ(decode_g1_compressed(b1, o1), decode_status::non_canonical_coordinate);
    // G2: either half (c1 first, then c0) out of range.
    for (int half = 0; half < 2; ++half) {
      uint8_t b2[96];
      encode_g2_compressed(g2_affine_t::generator(), b2);
      const uint8_t flags = b2[0] & 0xe0;
      std::memcpy(b2 + 48 * half, p.data(), 48);
      b2[0] = static_cast<uint8_t>((b2[0] & 0x1f) | flags);
      g2_affine_t o2;
      EXPECT_EQ(decode_g2_compressed(b2, o2), decode_status::non_canonical_coordinate) << "half " << half;
    }
    // Uncompressed G1: y = p.
    uint8_t u[96];
    encode_g1_uncompressed(g1_affine_t::generator(), u);
    std::memcpy(u + 48, p.data(), 48);
    EXPECT_EQ(decode_g1_uncompressed(u, o1), decode_status::non_canonical_coordinate);
  }
}

TEST(ec_encoding, x_not_on_curve_and_point_not_on_curve) {
  // Find x with x^3 + 4 not a square.
  fp_t x = fp_t::from_u64(1);
  fp_t y;
  while ((x.sqr() * x + g1_params::b()).sqrt(y)) x = x + fp_t::one();
  uint8_t b[48];
  x.to_bytes_be(b);
  b[0] |= 0x80;
  g1_affine_t out = g1_affine_t::generator();
  EXPECT_EQ(decode_g1_compressed(b, out, decode_check::none), decode_status::no_square_root);
  EXPECT_EQ(out, g1_affine_t::generator());  // untouched on failure

  fp2_t x2 = fp2_t::one();
  fp2_t y2;
  while ((x2.sqr() * x2 + g2_params::b()).sqrt(y2)) x2 = x2 + fp2_t::one();
  uint8_t b2[96];
  x2.c1.to_bytes_be(b2);
  x2.c0.to_bytes_be(b2 + 48);
  b2[0] |= 0x80;
  g2_affine_t out2;
  EXPECT_EQ(decode_g2_compressed(b2, out2), decode_status::no_square_root);

  uint8_t u[96];
  encode_g1_uncompressed(g1_affine_t::generator(), u);
  u[95] ^= 1;
  EXPECT_EQ(decode_g1_uncompressed(u, out), decode_status::not_on_curve);
  EXPECT_EQ(decode_g1_uncompressed(u, out, decode_check::on_curve), decode_status::not_on_curve);
  EXPECT_EQ(decode_g1_uncompressed(u, out, decode_check::none), decode_status::ok);
  uint8_t u2[192];
  encode_g2_uncompressed(g2_affine_t::generator(), u2);
  u2[100] ^= 1;
  EXPECT_EQ(decode_g2_uncompressed(u2, out2), decode_status::not_on_curve);
}

TEST(ec_encoding, off_subgroup_points) {
  const g1_affine_t q1 = test::random_curve_point<g1_params>();
  const g2_affine_t q2 = test::random_curve_point<g2_params>();
  ASSERT_FALSE(q1.is_in_subgroup_slow());
  ASSERT_FALSE(q2.is_in_subgroup_slow());
  uint8_t c1[48], u1[96], c2[96], u2[192];
  encode_g1_compressed(q1, c1);
  encode_g1_uncompressed(q1, u1);
  encode_g2_compressed(q2, c2);
  encode_g2_uncompressed(q2, u2);
  g1_affine_t o1;
  g2_affine_t o2;
  EXPECT_EQ(decode_g1_compressed(c1, o1), decode_status::not_in_subgroup);
  EXPECT_EQ(decode_g1_uncompressed(u1, o1), decode_status::not_in_subgroup);
  EXPECT_EQ(decode_g2_compressed(c2, o2), decode_status::not_in_subgroup);
  EXPECT_EQ(decode_g2_uncompressed(u2, o2), decode_status::not_in_subgroup);
  // Asked not to check the subgroup, they decode to the point itself.
  ASSERT_EQ(decode_g1_compressed(c1, o1, decode_check::on_curve), decode_status::ok);
  EXPECT_EQ(o1, q1);
  ASSERT_EQ(decode_g2_uncompressed(u2, o2, decode_check::on_curve), decode_status::ok);
  EXPECT_EQ(o2, q2);
}

TEST(ec_encoding, wrong_length_spans) {
  uint8_t c[48];
  encode_g1_compressed(g1_affine_t::generator(), c);
  std::vector<uint8_t> v(c, c + 48);
  g1_affine_t o;
  EXPECT_EQ(decode_g1_compressed(std::span<const uint8_t>(v), o), decode_status::ok);
  EXPECT_EQ(decode_g1_compressed(std::span<const uint8_t>(v.data(), 47), o), decode_status::wrong_length);
  EXPECT_EQ(decode_g1_compressed(std::span<const uint8_t>(), o), decode_status::wrong_length);
  v.push_back(0);
  EXPECT_EQ(decode_g1_compressed(std::span<const uint8_t>(v), o), decode_status::wrong_length);
  std::vector<uint8_t> u(96);
  g2_affine_t o2;
  EXPECT_EQ(decode_g1_uncompressed(std::span<const uint8_t>(u.data(), 95), o), decode_status::wrong_length);
  EXPECT_EQ(decode_g2_compressed(std::span<const uint8_t>(u.data(), 48), o2), decode_status::wrong_length);
  EXPECT_EQ(decode_g2_uncompressed(std::span<const uint8_t>(u), o2), decode_status::wrong_length);
}

TEST(ec_encoding, describe_and_throw) {
  for (int s = 0; s <= static_cast<int>(decode_status::bad_projective); ++s) {
    const char* d = describe(static_cast<decode_status>(s));
    ASSERT_NE(d, nullptr);
    EXPECT_GT(std::strlen(d), 1u);
    EXPECT_STRNE(d, "unknown decode status");
  }
  EXPECT_NO_THROW(throw_if_failed(decode_status::ok, "x"));
  try {
    throw_if_failed(decode_status::not_in_subgroup, "params: h[17]");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("params: h[17]"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("subgroup"), std::string::npos);
  }
}

}  // namespace
}  // namespace starzk
