// Tests of domain_t and the forward / inverse / coset NTT against naive
// oracles (tests/ntt/ntt_test_util.hpp), for both root conventions and
// several thread counts (1 = inline, 3 = uneven chunks).
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "ntt/ntt.hpp"
#include "ntt_test_util.hpp"

namespace starzk {
namespace {

using test::random_vector;

const root_convention_t conventions[] = {root_convention_t::snarkjs, root_convention_t::bellman};

TEST(Domain, RootsHaveExactOrder) {
  for (auto conv : conventions) {
    for (unsigned k = 0; k <= 20; ++k) {
      const domain_t d(k, conv, 2);
      const fr_t w = d.omega();
      fr_t p = w;
      for (unsigned i = 0; i < k; ++i) p = p.sqr();
      EXPECT_TRUE(p.is_one()) << "ω^n != 1 at k = " << k;
      if (k > 0) {
        fr_t h = w;
        for (unsigned i = 1; i < k; ++i) h = h.sqr();
        EXPECT_EQ(h, -fr_t::one()) << "ω^(n/2) != −1 at k = " << k;
      }
      EXPECT_TRUE((w * d.omega_inv()).is_one());
      EXPECT_TRUE((d.size_inv() * fr_t::from_u64(d.size())).is_one());
      ASSERT_EQ(d.twiddles().size(), d.size() / 2);
      fr_t wi = fr_t::one();
      for (size_t i = 0; i < d.twiddles().size(); ++i, wi *= w) ASSERT_EQ(d.twiddles()[i], wi) << i;
    }
  }
}

TEST(Domain, ConventionsAgreeUpToFourAndDifferFromEight) {
  for (unsigned k = 0; k <= 2; ++k)
    EXPECT_EQ(root_of_unity(k, root_convention_t::snarkjs), root_of_unity(k, root_convention_t::bellman));
  for (unsigned k = 3; k <= 32; ++k)
    EXPECT_NE(root_of_unity(k, root_convention_t::snarkjs), root_of_unity(k, root_convention_t::bellman));
  // Squaring walks down the family: ω_{2n}^2 = ω_n.
  for (auto conv : conventions)
    for (unsigned k = 0; k < 32; ++k) EXPECT_EQ(root_of_unity(k + 1, conv).sqr(), root_of_unity(k, conv));
}

// What each convention names (ntt/convention.hpp): its root family (the
// 5-based and 7-based ones of ff/fr.hpp, pinned there) and its H-phase coset
// shift s. bellman: s = 7, off H (s^n ≠ 1). snarkjs: s = ω_{2n}, with
// s^2 = ω_n and s^n = −1, so s·ω_n^i = ω_{2n}^(2i+1) are the odd 2n-th roots.
TEST(Domain, ConventionRootsAndCosetShifts) {
  for (unsigned k = 0; k <= 31; ++k) {
    EXPECT_EQ(root_of_unity(k, root_convention_t::snarkjs), fr_t::root_of_unity(k)) << k;
    EXPECT_EQ(root_of_unity(k, root_convention_t::bellman), fr_t::bellman_root_of_unity(k)) << k;
    auto nth_power = [k](fr_t x) {  // x^n = x^(2^k), k squarings
      for (unsigned i = 0; i < k; ++i) x = x.sqr();
      return x;
    };
    const fr_t g = h_coset_shift(k, root_convention_t::bellman);
    EXPECT_EQ(g, fr_t::from_u64(7)) << k;
    EXPECT_FALSE(nth_power(g).is_one()) << k;
    const fr_t s = h_coset_shift(k, root_convention_t::snarkjs);
    EXPECT_EQ(s.sqr(), root_of_unity(k, root_convention_t::snarkjs)) << k;
    EXPECT_EQ(nth_power(s), -fr_t::one()) << k;
  }
}

TEST(Domain, BadSizesThrow) {
  EXPECT_THROW(domain_t(domain_t::max_log_size + 1), std::invalid_argument);
  EXPECT_EQ(domain_t::for_size(0).size(), 1u);
  EXPECT_EQ(domain_t::for_size(5).size(), 8u);
  EXPECT_EQ(domain_t::for_size(8).size(), 8u);
  EXPECT_EQ(log2_ceil(1), 0u);
  EXPECT_EQ(log2_ceil(1025), 11u);
}

TEST(Ntt, MatchesNaiveDftUpTo256) {
  std::mt19937_64 g(101);
  for (auto conv : conventions) {
    for (unsigned k = 0; k <= 8; ++k) {
      const domain_t d(k, conv, 1);
      const auto a = random_vector(g, d.size());
      const auto expect = test::naive_dft(a, d.omega());
      const auto expect_inv = test::naive_dft(a, d.omega_inv());
      for (unsigned threads : {1u, 3u}) {
        auto f = a;
        ntt(f, d, threads);
        EXPECT_EQ(f, expect) << "k = " << k << " threads = " << threads;
        auto b = a;
        intt(b, d, threads);
        for (auto& x : b) x *= fr_t::from_u64(d.size());  // undo n^−1
        EXPECT_EQ(b, expect_inv) << "k = " << k << " threads = " << threads;
      }
    }
  }
}

// Sizes past the 4096-element block, where the cross-block stages run:
// spot-check entries against Horner evaluation at ω^i.
TEST(Ntt, LargeSizesMatchHornerAtSampledPoints) {
  std::mt19937_64 g(102);
  for (unsigned k : {13u, 15u}) {
    const domain_t d(k, root_convention_t::snarkjs, 2);
    const auto a = random_vector(g, d.size());
    auto f = a;
    ntt(f, d, 3);
    std::uniform_int_distribution<size_t> pick(0, d.size() - 1);
    for (int t = 0; t < 12; ++t) {
      const size_t i = t == 0 ? 0 : (t == 1 ? d.size() - 1 : pick(g));
      EXPECT_EQ(f[i], test::horner(a, d.omega().pow(uint64_t(i)))) << "k = " << k << " i = " << i;
    }
  }
}

TEST(Ntt, InverseUndoesForwardUpTo65536) {
  std::mt19937_64 g(103);
  for (unsigned k = 0; k <= 16; ++k) {
    const domain_t d(k, k % 2 ? root_convention_t::bellman : root_convention_t::snarkjs, 2);
    const auto a = random_vector(g, d.size());
    auto v = a;
    ntt(v, d, 2);
    if (k >= 2) {
      EXPECT_NE(v, a);
    }
    intt(v, d, 2);
    EXPECT_EQ(v, a) << "intt(ntt(a)) != a at k = " << k;
    intt(v, d, 3);
    ntt(v, d, 3);
    EXPECT_EQ(v, a) << "ntt(intt(a)) != a at k = " << k;
  }
}

TEST(Ntt, EdgeValues) {
  const domain_t d(6, root_convention_t::snarkjs, 1);
  // δ_0 transforms to all ones; all ones to n·δ_0.
  std::vector<fr_t> v(d.size(), fr_t::zero());
  v[0] = fr_t::one();
  ntt(v, d);
  for (const auto& x : v) EXPECT_TRUE(x.is_one());
  ntt(v, d);
  EXPECT_EQ(v[0], fr_t::from_u64(d.size()));
  for (size_t i = 1; i < v.size(); ++i) EXPECT_TRUE(v[i].is_zero());
  // r − 1 everywhere: −(all ones).
  std::vector<fr_t> m(d.size(), -fr_t::one());
  ntt(m, d);
  EXPECT_EQ(m[0], -fr_t::from_u64(d.size()));
  for (size_t i = 1; i < m.size(); ++i) EXPECT_TRUE(m[i].is_zero());
}

TEST(Ntt, CosetMatchesDirectEvaluation) {
  std::mt19937_64 g(104);
  for (auto conv : conventions) {
    for (unsigned k : {0u, 1u, 3u, 6u}) {
      const domain_t d(k, conv, 1);
      const auto a = random_vector(g, d.size());
      const fr_t shifts[] = {d.coset_gen(), fr_t::random(g)};
      for (const fr_t& s : shifts) {
        auto v = a;
        coset_ntt(v, d, s, 3);
        fr_t x = s;  // s ω^i
        for (size_t i = 0; i < d.size(); ++i, x *= d.omega()) ASSERT_EQ(v[i], test::horner(a, x)) << i;
        coset_intt(v, d, s, 3);
        EXPECT_EQ(v, a);
      }
      auto v = a;
      coset_ntt(v, d);
      EXPECT_EQ(v[0], test::horner(a, fr_t::from_u64(7)));
      coset_intt(v, d);
      EXPECT_EQ(v, a);
    }
  }
}

TEST(Ntt, ScaleByPowers) {
  std::mt19937_64 g(105);
  const auto a = random_vector(g, 5000);
  const fr_t s = fr_t::random(g);
  auto v = a;
  scale_by_powers(v, s, 3);
  fr_t p = fr_t::one();
  for (size_t i = 0; i < a.size(); ++i, p *= s) ASSERT_EQ(v[i], a[i] * p) << i;
}

TEST(Ntt, BitReversal) {
  std::vector<fr_t> v(8);
  for (size_t i = 0; i < 8; ++i) v[i] = fr_t::from_u64(i);
  bit_reverse_permute(v, 2);
  const uint64_t expect[] = {0, 4, 2, 6, 1, 5, 3, 7};
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(v[i], fr_t::from_u64(expect[i]));
  std::vector<fr_t> bad(6);
  EXPECT_THROW(bit_reverse_permute(bad), std::invalid_argument);
}

// Every length 2^1 .. 2^18 against the bit-by-bit reversal; twice is the identity.
TEST(Ntt, BitReversalEveryLength) {
  for (unsigned k = 1; k <= 18; ++k) {
    const size_t n = size_t(1) << k;
    std::vector<fr_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = fr_t::from_u64(i);
    bit_reverse_permute(v, 2);
    for (size_t i = 0; i < n; ++i) {
      size_t r = 0;
      for (unsigned b = 0; b < k; ++b) r |= ((i >> b) & 1) << (k - 1 - b);
      ASSERT_EQ(v[i], fr_t::from_u64(r)) << "n = 2^" << k << ", i = " << i;
    }
    bit_reverse_permute(v, 3);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], fr_t::from_u64(i)) << "n = 2^" << k << ", i = " << i;
  }
}

TEST(Ntt, WrongLengthThrows) {
  const domain_t d(4);
  std::vector<fr_t> v(8);
  EXPECT_THROW(ntt(v, d), std::invalid_argument);
  EXPECT_THROW(intt(v, d), std::invalid_argument);
  EXPECT_THROW(coset_ntt(v, d), std::invalid_argument);
  EXPECT_THROW(coset_intt(v, d), std::invalid_argument);
}

}  // namespace
}  // namespace starzk
