// Byte, decimal and hex codecs of fp_t and fr_t: round trips, endianness,
// and that every non-canonical input (value >= modulus, junk characters,
// empty strings) is rejected rather than reduced.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "ff/ff.hpp"

namespace starzk {
namespace {

template <class T>
class Codec : public ::testing::Test {};
using prime_fields = ::testing::Types<fp_t, fr_t>;
TYPED_TEST_SUITE(Codec, prime_fields);

template <class T>
std::vector<uint8_t> le_bytes(const typename T::limbs_t& v) {
  std::vector<uint8_t> b(T::n_bytes);
  for (size_t i = 0; i < T::n_bytes; ++i) b[i] = uint8_t(v[i / 8] >> (8 * (i % 8)));
  return b;
}

TYPED_TEST(Codec, BytesRoundTrip) {
  using T = TypeParam;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) {
    const T a = i == 0 ? T::zero() : i == 1 ? -T::one() : T::random(rng);
    uint8_t le[T::n_bytes], be[T::n_bytes], mont[T::n_bytes];
    a.to_bytes_le(le);
    a.to_bytes_be(be);
    a.to_mont_bytes_le(mont);
    for (size_t k = 0; k < T::n_bytes; ++k) EXPECT_EQ(le[k], be[T::n_bytes - 1 - k]);
    EXPECT_EQ(le_bytes<T>(a.to_canonical()), std::vector<uint8_t>(le, le + T::n_bytes));
    T b, c, d;
    ASSERT_TRUE(T::from_bytes_le(le, b));
    ASSERT_TRUE(T::from_bytes_be(be, c));
    ASSERT_TRUE(T::from_mont_bytes_le(mont, d));
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, c);
    EXPECT_EQ(a, d);
  }
  // 1 encodes as 01 00 .. 00 (LE), its Montgomery bytes are R mod m.
  uint8_t le[T::n_bytes];
  T::one().to_bytes_le(le);
  EXPECT_EQ(le[0], 1);
  for (size_t k = 1; k < T::n_bytes; ++k) EXPECT_EQ(le[k], 0);
  T::one().to_mont_bytes_le(le);
  EXPECT_EQ(std::vector<uint8_t>(le, le + T::n_bytes), le_bytes<T>(T::r1_mod));
}

TYPED_TEST(Codec, BytesRejectOutOfRange) {
  using T = TypeParam;
  const T sentinel = T::from_u64(77);
  auto rejects = [&](const typename T::limbs_t& v) {
    std::vector<uint8_t> le = le_bytes<T>(v), be(le.rbegin(), le.rend());
    T x = sentinel, y = sentinel, z = sentinel;
    const bool ok_le = T::from_bytes_le(le.data(), x);
    const bool ok_be = T::from_bytes_be(be.data(), y);
    const bool ok_mont = T::from_mont_bytes_le(le.data(), z);
    EXPECT_EQ(ok_le, ok_be);
    EXPECT_EQ(ok_le, ok_mont);
    if (!ok_le) {
      EXPECT_EQ(x, sentinel);  // output untouched on failure
      EXPECT_EQ(y, sentinel);
      EXPECT_EQ(z, sentinel);
    }
    return !ok_le;
  };
  EXPECT_TRUE(rejects(T::modulus));
  EXPECT_TRUE(rejects(limbs::add_small(T::modulus, 1)));
  typename T::limbs_t all_ones;
  all_ones.fill(~uint64_t(0));
  EXPECT_TRUE(rejects(all_ones));  // 2^(8·n_bytes) - 1
  typename T::limbs_t top_bit{};
  top_bit[T::n_limbs - 1] = uint64_t(1) << (T::modulus_bits % 64);  // 2^bits > m
  EXPECT_TRUE(rejects(top_bit));
  if constexpr (T::n_limbs == 6) {  // fp: values near 2^381 with flag bits set
    typename T::limbs_t flags = T::one().to_canonical();
    flags[5] |= uint64_t(1) << 63;  // compression flag of the zcash encoding
    EXPECT_TRUE(rejects(flags));
  }
  EXPECT_FALSE(rejects(T::m_minus_1));
  EXPECT_FALSE(rejects(typename T::limbs_t{}));
}

TYPED_TEST(Codec, DecimalAndHex) {
  using T = TypeParam;
  EXPECT_EQ(T::zero().to_decimal(), "0");
  EXPECT_EQ(T::from_u64(10000000000000000000ull).to_decimal(), "10000000000000000000");
  EXPECT_EQ(T::from_decimal("0"), T::zero());
  EXPECT_EQ(T::from_decimal("000042"), T::from_u64(42));
  EXPECT_EQ(T::from_decimal("18446744073709551616"), T::from_u64(uint64_t(1) << 32).sqr());
  EXPECT_EQ(T::from_hex("0x2a"), T::from_u64(42));
  EXPECT_EQ(T::from_hex("2A"), T::from_u64(42));
  EXPECT_EQ(T::one().to_hex().size(), 2 + 2 * T::n_bytes);
  std::mt19937_64 rng(9);
  for (int i = 0; i < 100; ++i) {
    const T a = T::random(rng);
    EXPECT_EQ(T::from_decimal(a.to_decimal()), a);
    EXPECT_EQ(T::from_hex(a.to_hex()), a);
  }
  const std::string m_minus_1 = (-T::one()).to_decimal();
  // m itself: last digit of m-1 plus one (m is odd, m-1 even, so no carry).
  std::string m_dec = m_minus_1;
  m_dec.back() = char(m_dec.back() + 1);
  EXPECT_THROW(T::from_decimal(m_dec), std::invalid_argument);
  EXPECT_THROW(T::from_decimal(m_minus_1 + "0"), std::invalid_argument);
  EXPECT_THROW(T::from_decimal(std::string(200, '9')), std::invalid_argument);
  for (const char* junk : {"", "-1", "+1", " 1", "1 ", "12a", "1.0", "0x10", "1e5"})
    EXPECT_THROW(T::from_decimal(junk), std::invalid_argument) << junk;
  for (const char* junk : {"", "0x", "0xg", "0x 1", "-0x1"})
    EXPECT_THROW(T::from_hex(junk), std::invalid_argument) << junk;
  EXPECT_THROW(T::from_hex("0x" + std::string(2 * T::n_bytes, 'f')), std::invalid_argument);
  EXPECT_THROW(T::from_hex("0x1" + std::string(2 * T::n_bytes, '0')), std::invalid_argument);
  try {
    T::from_decimal("12x");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(T::n_limbs == 6 ? "fp_t" : "fr_t"), std::string::npos);
  }
}

TYPED_TEST(Codec, FromCanonical) {
  using T = TypeParam;
  EXPECT_THROW(T::from_canonical(T::modulus), std::invalid_argument);
  EXPECT_EQ(T::from_canonical(typename T::limbs_t{5}), T::from_u64(5));
  EXPECT_EQ(T::from_canonical(T::m_minus_1).to_canonical(), T::m_minus_1);
}

}  // namespace
}  // namespace starzk
