// batch_add, prep_msm and split_msm: the classification is checked entry by
// entry against the definition, and split_msm against msm_naive on
// boolean-heavy scalars (45% zeros, 45% ones, 10% random, as in a Filecoin
// witness), on G1 and G2, with and without a forced public-input range.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "msm/batch_add.hpp"
#include "msm/prep_msm.hpp"
#include "msm_test_util.hpp"

namespace starzk {
namespace {

template <class P>
class SplitMsm : public ::testing::Test {};
using curves = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(SplitMsm, curves);

std::vector<fr_t> boolean_heavy(std::mt19937_64& g, size_t n) {
  std::vector<fr_t> s(n);
  std::uniform_int_distribution<int> pct(0, 99);
  for (auto& x : s) {
    const int p = pct(g);
    x = p < 45 ? fr_t::zero() : (p < 90 ? fr_t::one() : fr_t::random(g));
  }
  return s;
}

TYPED_TEST(SplitMsm, BatchAddMatchesPlainSum) {
  using P = TypeParam;
  std::mt19937_64 g(401);
  for (size_t n : {0u, 1u, 63u, 64u, 65u, 1000u, 9001u}) {
    auto bases = test::random_bases<P>(g, n);
    if (n > 5) bases[5] = affine_t<P>::infinity();
    // Repeated and opposite bases, so that the affine buckets meet P + P and
    // P + (−P) (a chunk's base j goes to bucket j mod B: the runs of equal
    // bases below land in one bucket one after the other).
    for (size_t i = 100; i + 40 < n; i += 997) {
      for (size_t k = 1; k < 20; ++k) bases[i + k] = bases[i];
      for (size_t k = 20; k < 40; ++k) bases[i + k] = -bases[i];
    }
    // A third of the largest set at infinity, as a key's B query holds O for
    // every wire its polynomial does not use.
    if (n > 5000)
      for (size_t i = 1; i < n; i += 3) bases[i] = affine_t<P>::infinity();
    std::vector<uint64_t> bitmap(bitmap_words(n), 0);
    jacobian_t<P> expect = jacobian_t<P>::infinity();
    for (size_t i = 0; i < n; ++i) {
      if (g() % 4 != 0 || (i % 997 >= 100 && i % 997 < 140)) {
        bitmap[i / 64] |= uint64_t(1) << (i % 64);
        expect = expect.add_mixed(bases[i]);
      }
    }
    for (unsigned threads : {1u, 5u}) {
      EXPECT_EQ(batch_add<P>(bases, bitmap, threads), expect) << "n = " << n;
      // The XYZZ sums alone, and the affine buckets without the lanes.
      EXPECT_EQ(batch_add<P>(bases, bitmap, msm_config_t{.threads = threads, .affine_buckets = false}), expect)
          << "n = " << n;
      EXPECT_EQ(batch_add<P>(bases, bitmap, msm_config_t{.threads = threads, .lanes = false}), expect) << "n = " << n;
    }
  }
}

TEST(BatchAdd, BadBitmapThrows) {
  std::mt19937_64 g(402);
  const auto bases = test::random_bases<g1_params>(g, 70);
  std::vector<uint64_t> bitmap(2, 0);
  bitmap[1] = uint64_t(1) << 6;  // entry 70: past the bases
  EXPECT_THROW(batch_add<g1_params>(bases, bitmap), std::invalid_argument);
  std::vector<uint64_t> short_map(1, 0);
  EXPECT_THROW(batch_add<g1_params>(bases, short_map), std::invalid_argument);
  bitmap[1] = uint64_t(1) << 5;  // entry 69: fine
  EXPECT_EQ(batch_add<g1_params>(bases, bitmap), jacobian_t<g1_params>::from_affine(bases[69]));
}

TEST(PrepMsm, ClassifiesByDefinition) {
  std::mt19937_64 g(403);
  const size_t n = 5000, forced = 11;
  auto s = boolean_heavy(g, n);
  s[0] = fr_t::one();  // inside the forced range: must still go to the tail
  s[1] = fr_t::zero();
  s[n - 1] = -fr_t::one();
  for (unsigned threads : {1u, 3u, 16u}) {
    const prep_msm_t prep = prep_msm(s, forced, threads);
    ASSERT_EQ(prep.n, n);
    ASSERT_EQ(prep.ones.size(), bitmap_words(n));
    size_t tail_pos = 0, zeros = 0, ones = 0;
    for (size_t i = 0; i < n; ++i) {
      const bool bit = (prep.ones[i / 64] >> (i % 64)) & 1;
      const bool is_one = i >= forced && s[i].is_one();
      const bool is_zero = i >= forced && s[i].is_zero();
      ASSERT_EQ(bit, is_one) << i;
      ones += is_one;
      zeros += is_zero;
      if (!is_one && !is_zero) {
        ASSERT_LT(tail_pos, prep.tail_index.size());
        ASSERT_EQ(prep.tail_index[tail_pos], i);
        ASSERT_EQ(prep.tail_scalars[tail_pos], s[i]);
        ++tail_pos;
      }
    }
    EXPECT_EQ(tail_pos, prep.tail_index.size());
    EXPECT_EQ(prep.n_one, ones);
    EXPECT_EQ(prep.n_zero, zeros);
    EXPECT_EQ(prep.n_one + prep.n_zero + prep.tail_index.size(), n);
    EXPECT_GT(ones, n / 3);  // the mix is what the test means it to be
    EXPECT_GT(zeros, n / 3);
  }
  EXPECT_THROW(prep_msm(s, n + 1), std::invalid_argument);
  const prep_msm_t empty = prep_msm(std::span<const fr_t>(), 0);
  EXPECT_EQ(empty.n, 0u);
  EXPECT_TRUE(empty.ones.empty() && empty.tail_index.empty());
}

TYPED_TEST(SplitMsm, MatchesNaiveOnBooleanHeavyScalars) {
  using P = TypeParam;
  std::mt19937_64 g(404);
  const size_t n = std::is_same_v<P, g1_params> ? 4096 + 1 : 1025;
  auto bases = test::random_bases<P>(g, n);
  bases[7] = affine_t<P>::infinity();
  bases[9] = bases[8];
  const auto s = boolean_heavy(g, n);
  const auto expect = msm_naive<P>(bases, s);
  for (size_t forced : {size_t(0), size_t(1), size_t(33)}) {
    const prep_msm_t prep = prep_msm(s, forced, 3);
    EXPECT_EQ(split_msm<P>(bases, prep, 3), expect) << P::name << " forced = " << forced;
  }
  // All zeros, all ones.
  const std::vector<fr_t> zeros(n, fr_t::zero()), ones(n, fr_t::one());
  EXPECT_TRUE(split_msm<P>(bases, prep_msm(zeros)).is_infinity());
  jacobian_t<P> sum = jacobian_t<P>::infinity();
  for (const auto& b : bases) sum = sum.add_mixed(b);
  EXPECT_EQ(split_msm<P>(bases, prep_msm(ones, 0, 2), 2), sum);
  // A wrong split must not pass: bases of another length throw.
  EXPECT_THROW(split_msm<P>(std::span(bases).first(n - 1), prep_msm(s)), std::invalid_argument);
}

}  // namespace
}  // namespace starzk
