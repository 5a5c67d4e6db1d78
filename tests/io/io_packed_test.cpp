// The packed key (.szpk) and the in-place container writer under it: round
// trips of development keys in both conventions (a circuit with unused
// wires, so A and B really drop points), the streaming setup (setup_to into
// a packed file gives the same bytes as packing the in-memory key made from
// the same toxic waste), and malformed files: lying counts and bitmaps,
// a point outside the subgroup or at infinity where the query forbids it
// (the error names the query and the point), corrupt data under valid
// checksums, and a setup that throws half-way (no file left behind).
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "ec/encoding.hpp"
#include "ec/subgroup.hpp"
#include "gen/filecoin_shape.hpp"
#include "gen/write.hpp"
#include "groth16/setup.hpp"
#include "io/packed_key.hpp"
#include "mapped_test_util.hpp"

namespace starzk::test {
namespace {

toxic_waste_t fixed_waste() {
  return {fr_t::from_u64(12345), fr_t::from_u64(7), fr_t::from_u64(11), fr_t::from_u64(13), fr_t::from_u64(17)};
}

proving_key_t packed_roundtrip(const fs::path& file, const proving_key_t& k) {
  write_packed_key(file, k);
  const packed_key_view_t v(file);
  v.verify_checksums();
  auto dec = cpu_point_decoder(2);
  return unpack_packed_key(v, true, *dec, 2);
}

// The key as a packed key holds it: no zkey matrices.
proving_key_t without_matrices(proving_key_t k) {
  k.zkey_a = {};
  k.zkey_b = {};
  return k;
}

class packed_key_roundtrip : public ::testing::TestWithParam<root_convention_t> {
 protected:
  scratch_t tmp;
};

TEST_P(packed_key_roundtrip, write_view_unpack) {
  // holey_circuit: wire 4 is in no row (O in a, b and l), wires 1 and 2 in
  // no B row; the input rows put wires 0 and 1 into A.
  const proving_key_t k = setup(holey_circuit(), GetParam(), fixed_waste());
  ASSERT_TRUE(k.a[4].is_infinity() && k.b_g1[2].is_infinity() && k.l[4 - 2].is_infinity());
  const fs::path file = tmp / "key.szpk";
  EXPECT_EQ(packed_roundtrip(file, k), without_matrices(k));
  const packed_key_view_t v(file);
  EXPECT_EQ(v.shape().n_a, 4u);  // wires 0, 1 (input rows) and 2, 3
  EXPECT_EQ(v.shape().n_b, 2u);  // wires 0 and 3
  EXPECT_EQ(v.shape().file_bytes(), fs::file_size(file));
  auto dec = cpu_point_decoder(1);
  EXPECT_EQ(unpack_packed_vk(v, *dec), k.vk);
}

TEST_P(packed_key_roundtrip, streaming_setup_gives_the_same_file) {
  const r1cs_t cs = generate_circuit({10, 4, 3});
  const proving_key_t k = setup(cs, GetParam(), fixed_waste());
  write_packed_key(tmp / "whole.szpk", k);

  packed_key_sink_t sink(tmp / "streamed.szpk", 2);
  setup_options_t so;
  so.device = setup_device_t::cpu;
  so.threads = 2;
  setup_to(cs, GetParam(), fixed_waste(), so, sink);
  sink.commit();
  EXPECT_EQ(read_bytes(tmp / "streamed.szpk"), read_bytes(tmp / "whole.szpk"));

  // The gen writer is the same stream.
  write_packed_dev_key(cs, GetParam(), so, tmp / "gen.szpk", 2);
  const packed_key_view_t v(tmp / "gen.szpk");
  EXPECT_EQ(v.shape().n_a, packed_key_view_t(tmp / "whole.szpk").shape().n_a);
}

INSTANTIATE_TEST_SUITE_P(conventions, packed_key_roundtrip,
                         ::testing::Values(root_convention_t::bellman, root_convention_t::snarkjs));

// ---- malformed ------------------------------------------------------------------

class packed_key_malformed : public ::testing::Test {
 protected:
  void SetUp() override {
    key_ = setup(holey_circuit(), root_convention_t::bellman, fixed_waste());
    write_packed_key(good_, key_);
    bytes_ = read_bytes(good_);
  }
  size_t offset(size_t i) const { return size_t(section_offset(bytes_, i)); }
  void unpack_expect(const std::string& problem) {
    write_bytes(bad_, bytes_);
    expect_io_error(
        [&] {
          const packed_key_view_t v(bad_);
          v.verify_checksums();
          auto dec = cpu_point_decoder(1);
          unpack_packed_key(v, true, *dec);
        },
        bad_, problem);
  }
  scratch_t tmp;
  fs::path good_ = tmp / "good.szpk", bad_ = tmp / "bad.szpk";
  proving_key_t key_;
  std::vector<uint8_t> bytes_;
};

TEST_F(packed_key_malformed, truncated_and_wrong_magic) {
  bytes_.resize(bytes_.size() - 1);
  unpack_expect("truncated");
  bytes_ = read_bytes(good_);
  bytes_[0] = 'x';
  unpack_expect("wrong magic");
}

TEST_F(packed_key_malformed, corrupt_point_caught_by_checksum) {
  bytes_[offset(1) + 5] ^= 1;
  unpack_expect("checksum mismatch");
}

TEST_F(packed_key_malformed, density_bit_without_a_point) {
  // One more bit in the A bitmap: the popcount no longer counts the points.
  const size_t at = offset(6);
  uint64_t w = load_u64_le(bytes_.data() + at);
  w |= uint64_t(1) << 4;  // wire 4 has no A point
  store_u64_le(bytes_.data() + at, w);
  reseal(bytes_, 6);
  unpack_expect("A density bitmap");
}

TEST_F(packed_key_malformed, point_outside_the_subgroup_named) {
  // A curve point outside the order-r subgroup as H point 1, resealed.
  g1_affine_t p = g1_affine_t::generator();
  fp_t x = fp_t::one();
  for (;;) {  // the first x = 1, 2, ... on the curve
    fp_t y;
    if ((x.sqr() * x + g1_params::b()).sqrt(y)) {
      p = {x, y};
      break;
    }
    x = x + fp_t::one();
  }
  ASSERT_TRUE(p.is_on_curve());
  ASSERT_FALSE(p.is_in_subgroup());
  encode_g1_compressed(p, bytes_.data() + offset(1) + 48);
  reseal(bytes_, 1);
  unpack_expect("h query point 1");
  // Without the subgroup test (a key validated before) it is accepted.
  write_bytes(bad_, bytes_);
  auto dec = cpu_point_decoder(1);
  EXPECT_NO_THROW(unpack_packed_key(packed_key_view_t(bad_), false, *dec));
}

TEST_F(packed_key_malformed, infinity_where_forbidden) {
  g1_affine_t o = g1_affine_t::infinity();
  encode_g1_compressed(o, bytes_.data() + offset(3));  // the first A point
  reseal(bytes_, 3);
  unpack_expect("a query point 0");
}

TEST(packed_key_writer, failed_writer_leaves_nothing) {
  scratch_t tmp;
  const fs::path file = tmp / "k.szpk";
  {
    packed_key_writer_t w(file, {root_convention_t::bellman, 3, 1, 4, 1, 1});
    std::vector<g1_affine_t> one(1, g1_affine_t::generator());
    EXPECT_THROW(w.put(packed_section_t::a, 1, one), io_error);  // past the section
  }                                                              // never committed
  EXPECT_FALSE(fs::exists(file));
  for (const auto& e : fs::directory_iterator(tmp.dir())) ADD_FAILURE() << "left behind: " << e.path();
}

}  // namespace
}  // namespace starzk::test
