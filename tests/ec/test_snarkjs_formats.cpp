// snarkjs encodings: the .zkey binary point form (Montgomery, little-endian)
// and the decimal strings of proof.json / verification_key.json.
//
// The binary form must be byte-for-byte our in-memory layout (the loader
// memcpy's whole sections), with O as all zeros; decoders must reject
// coordinates >= p, points off the curve and off the subgroup. The decimal
// form is checked against the generators' published coordinates and
// snarkjs's way of writing O.
#include <gtest/gtest.h>

#include <cstring>

#include "ec/encoding.hpp"
#include "ec_test_util.hpp"

namespace starzk {
namespace {

TEST(ec_snarkjs_binary, layout_is_our_memory_layout) {
  const g1_affine_t p1 = test::random_subgroup_point<g1_params>();
  const g2_affine_t p2 = test::random_subgroup_point<g2_params>();
  uint8_t b1[96], b2[192];
  encode_g1_snarkjs(p1, b1);
  encode_g2_snarkjs(p2, b2);
  // Little-endian host (x86-64, the GPU hosts): the bytes are the struct.
  EXPECT_EQ(std::memcmp(b1, &p1, 96), 0);
  EXPECT_EQ(std::memcmp(b2, &p2, 192), 0);
  // Montgomery form: the coordinate 1 is stored as R = 2^384 mod p.
  const g1_affine_t one_one{fp_t::one(), fp_t::one()};
  encode_g1_snarkjs(one_one, b1);
  uint8_t r_mod_p[48];
  for (size_t i = 0; i < 6; ++i)
    for (size_t j = 0; j < 8; ++j) r_mod_p[8 * i + j] = static_cast<uint8_t>(fp_t::r1_mod[i] >> (8 * j));
  EXPECT_EQ(std::memcmp(b1, r_mod_p, 48), 0);
  // G2 order: x.c0, x.c1, y.c0, y.c1.
  encode_g2_snarkjs(p2, b2);
  uint8_t c[48];
  p2.x.c1.to_mont_bytes_le(c);
  EXPECT_EQ(std::memcmp(b2 + 48, c, 48), 0);
  p2.y.c0.to_mont_bytes_le(c);
  EXPECT_EQ(std::memcmp(b2 + 96, c, 48), 0);
}

TEST(ec_snarkjs_binary, round_trip_and_infinity) {
  for (int i = 0; i < 8; ++i) {
    const g1_affine_t p1 = test::random_subgroup_point<g1_params>();
    const g2_affine_t p2 = test::random_subgroup_point<g2_params>();
    uint8_t b1[96], b2[192];
    encode_g1_snarkjs(p1, b1);
    encode_g2_snarkjs(p2, b2);
    g1_affine_t q1;
    g2_affine_t q2;
    ASSERT_EQ(decode_g1_snarkjs(b1, q1), decode_status::ok);
    ASSERT_EQ(decode_g2_snarkjs(b2, q2), decode_status::ok);
    EXPECT_EQ(q1, p1);
    EXPECT_EQ(q2, p2);
  }
  uint8_t z1[96] = {}, z2[192] = {};
  g1_affine_t q1 = g1_affine_t::generator();
  g2_affine_t q2 = g2_affine_t::generator();
  ASSERT_EQ(decode_g1_snarkjs(z1, q1), decode_status::ok);
  ASSERT_EQ(decode_g2_snarkjs(z2, q2), decode_status::ok);
  EXPECT_TRUE(q1.is_infinity());
  EXPECT_TRUE(q2.is_infinity());
  uint8_t e[192];
  encode_g2_snarkjs(g2_affine_t::infinity(), e);
  EXPECT_EQ(std::memcmp(e, z2, 192), 0);
}

TEST(ec_snarkjs_binary, rejects) {
  uint8_t b[96];
  g1_affine_t out = g1_affine_t::generator();
  // x >= p: all-ones limbs.
  encode_g1_snarkjs(g1_affine_t::generator(), b);
  std::memset(b, 0xff, 48);
  EXPECT_EQ(decode_g1_snarkjs(b, out), decode_status::non_canonical_coordinate);
  // Exactly p (as the y limbs) is also out of range.
  encode_g1_snarkjs(g1_affine_t::generator(), b);
  for (size_t i = 0; i < 6; ++i)
    for (size_t j = 0; j < 8; ++j) b[48 + 8 * i + j] = static_cast<uint8_t>(fp_params::modulus[i] >> (8 * j));
  EXPECT_EQ(decode_g1_snarkjs(b, out), decode_status::non_canonical_coordinate);
  // Off the curve.
  encode_g1_snarkjs(g1_affine_t::generator(), b);
  b[50] ^= 4;
  EXPECT_EQ(decode_g1_snarkjs(b, out), decode_status::not_on_curve);
  EXPECT_EQ(decode_g1_snarkjs(b, out, decode_check::none), decode_status::ok);
  // Off the subgroup.
  uint8_t b2[192];
  g2_affine_t out2;
  encode_g2_snarkjs(test::random_curve_point<g2_params>(), b2);
  EXPECT_EQ(decode_g2_snarkjs(b2, out2), decode_status::not_in_subgroup);
  EXPECT_EQ(decode_g2_snarkjs(b2, out2, decode_check::on_curve), decode_status::ok);
  encode_g1_snarkjs(g1_affine_t::generator(), b);
  b[0] ^= 1;
  out = g1_affine_t::generator();
  EXPECT_EQ(decode_g1_snarkjs(b, out), decode_status::not_on_curve);
  EXPECT_EQ(out, g1_affine_t::generator());  // untouched on failure
}

TEST(ec_snarkjs_decimal, generators) {
  const g1_decimal_t d1 = g1_to_decimal(g1_affine_t::generator());
  EXPECT_EQ(d1[0],
            "3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947676345821548104"
            "185464507");
  EXPECT_EQ(d1[1],
            "1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724655353366534992391"
            "756441569");
  EXPECT_EQ(d1[2], "1");
  const g2_decimal_t d2 = g2_to_decimal(g2_affine_t::generator());
  EXPECT_EQ(d2[0][0],
            "3527010695874666181871391160110601448900299527927752402199086442397937857357150268733476003438651759527619"
            "26303160");
  EXPECT_EQ(d2[0][1],
            "3059144344244213709971259814753781636986470325476647558659373206291635324768958432433509563104347017837885"
            "763365758");
  EXPECT_EQ(d2[2][0], "1");
  EXPECT_EQ(d2[2][1], "0");
  g1_affine_t p1;
  g2_affine_t p2;
  ASSERT_EQ(g1_from_decimal(d1, p1), decode_status::ok);
  ASSERT_EQ(g2_from_decimal(d2, p2), decode_status::ok);
  EXPECT_EQ(p1, g1_affine_t::generator());
  EXPECT_EQ(p2, g2_affine_t::generator());
}

TEST(ec_snarkjs_decimal, infinity_is_written_like_snarkjs) {
  EXPECT_EQ(g1_to_decimal(g1_affine_t::infinity()), (g1_decimal_t{"0", "1", "0"}));
  EXPECT_EQ(g2_to_decimal(g2_affine_t::infinity()), (g2_decimal_t{{{"0", "0"}, {"1", "0"}, {"0", "0"}}}));
  g1_affine_t p1 = g1_affine_t::generator();
  g2_affine_t p2 = g2_affine_t::generator();
  ASSERT_EQ(g1_from_decimal({"0", "1", "0"}, p1), decode_status::ok);
  ASSERT_EQ(g2_from_decimal({{{"0", "0"}, {"1", "0"}, {"0", "0"}}}, p2), decode_status::ok);
  EXPECT_TRUE(p1.is_infinity());
  EXPECT_TRUE(p2.is_infinity());
}

TEST(ec_snarkjs_decimal, round_trip_random) {
  for (int i = 0; i < 4; ++i) {
    const g2_affine_t p = test::random_subgroup_point<g2_params>();
    g2_affine_t q;
    ASSERT_EQ(g2_from_decimal(g2_to_decimal(p), q), decode_status::ok);
    EXPECT_EQ(q, p);
  }
}

TEST(ec_snarkjs_decimal, rejects) {
  g1_decimal_t d = g1_to_decimal(g1_affine_t::generator());
  g1_affine_t out;
  auto with = [&](size_t i, const std::string& v) {
    g1_decimal_t e = d;
    e[i] = v;
    return g1_from_decimal(e, out);
  };
  EXPECT_EQ(with(0, ""), decode_status::bad_decimal);
  EXPECT_EQ(with(0, "12a"), decode_status::bad_decimal);
  EXPECT_EQ(with(1, "-5"), decode_status::bad_decimal);
  const std::string p_decimal =
      "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559"
      "787";
  EXPECT_EQ(with(0, p_decimal), decode_status::bad_decimal);  // p itself
  EXPECT_EQ(with(2, "2"), decode_status::bad_projective);
  EXPECT_EQ(with(2, "0"), decode_status::bad_projective);  // z = 0 but (x, y) != (0, 1)
  EXPECT_EQ(with(1, "5"), decode_status::not_on_curve);
  EXPECT_EQ(g1_from_decimal({"0", "0", "1"}, out), decode_status::not_on_curve);
  // An off-subgroup point, and the same with the subgroup test off.
  const g1_affine_t q = test::random_curve_point<g1_params>();
  EXPECT_EQ(g1_from_decimal(g1_to_decimal(q), out), decode_status::not_in_subgroup);
  ASSERT_EQ(g1_from_decimal(g1_to_decimal(q), out, decode_check::on_curve), decode_status::ok);
  EXPECT_EQ(out, q);

  g2_decimal_t d2 = g2_to_decimal(g2_affine_t::generator());
  g2_affine_t out2;
  d2[2] = {"1", "1"};
  EXPECT_EQ(g2_from_decimal(d2, out2), decode_status::bad_projective);
  d2[2] = {"1", "0"};
  d2[1][1] = "x";
  EXPECT_EQ(g2_from_decimal(d2, out2), decode_status::bad_decimal);
}

}  // namespace
}  // namespace starzk
