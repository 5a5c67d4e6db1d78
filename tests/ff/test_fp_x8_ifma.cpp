// The 8-lane AVX-512 IFMA field (ff/fp_x8_ifma.hpp) against fp_t: products,
// squares, sums and differences of fresh random elements with a different
// value in every lane; the conversions in and out (inputs >= p included,
// as fp_t's Montgomery limbs may hold any 384-bit integer there); the edges
// of the vector form itself (0, 1, p - 1, p, 2p - 1, values near 2^381)
// with every edge at every lane position; long runs of sums and
// differences that pass the bound at which operands are reduced; the
// switch and its environment variable. Skipped where the CPU lacks AVX-512 IFMA.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ff/fp.hpp"
#include "ff/fp_x8_ifma.hpp"

namespace starzk {
namespace {

using limbs6_t = std::array<uint64_t, 6>;
using ifma::limbs52_t;

class FpX8 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ff_path::cpu_has_ifma()) GTEST_SKIP() << "CPU without AVX-512 IFMA: the 8-lane field is never used";
  }
  std::mt19937_64 g{std::random_device{}()};
};

// w mod p for any 384-bit w (2^384 < 10 p: at most 9 subtractions).
limbs6_t mod_p(limbs6_t w) {
  while (!limbs::less(w, fp_t::modulus)) limbs::sub(w, w, fp_t::modulus);
  return w;
}
// The element whose Montgomery limbs are w (w >= p stands for w mod p).
fp_t elem(const limbs6_t& w) { return fp_t::from_mont_limbs(mod_p(w)); }

limbs6_t random384(std::mt19937_64& g) {
  limbs6_t w;
  for (auto& x : w) x = g();
  return w;
}

// 384-bit edge integers: 0, 1, R mod p (the element 1), p - 1, p, p + 1,
// 2p - 1, 2^381 - 1, 2^381, 2^384 - 1.
std::vector<limbs6_t> edges384() {
  limbs6_t one{1}, p = fp_t::modulus, two_p{}, top381{}, all{};
  limbs::add(two_p, p, p);
  top381[5] = uint64_t(1) << 61;  // 2^381
  for (auto& x : all) x = ~uint64_t(0);
  return {limbs6_t{},
          one,
          fp_t::r1_mod,
          fp_t::m_minus_1,
          p,
          limbs::add_small(p, 1),
          limbs::sub_small(two_p, 1),
          limbs::sub_small(top381, 1),
          top381,
          all};
}

// Eight lanes for round `k`: lane j gets edges[(j + k) % n], so over n
// rounds every edge sits at every lane position; lanes past the edges are
// fresh random values, all distinct.
std::array<limbs6_t, 8> lanes_of(const std::vector<limbs6_t>& edges, size_t k, std::mt19937_64& g) {
  std::array<limbs6_t, 8> v;
  for (size_t j = 0; j < 8; ++j) v[j] = j < edges.size() ? edges[(j + k) % edges.size()] : random384(g);
  return v;
}

void check_ops(const std::array<limbs6_t, 8>& a, const std::array<limbs6_t, 8>& b) {
  fp_t fa[8], fb[8], r[8];
  for (size_t j = 0; j < 8; ++j) fa[j] = fp_t::from_mont_limbs(a[j]), fb[j] = fp_t::from_mont_limbs(b[j]);
  ifma::mul_x8(r, fa, fb);
  for (size_t j = 0; j < 8; ++j) EXPECT_EQ(r[j], elem(a[j]) * elem(b[j])) << "mul lane " << j;
  ifma::sqr_x8(r, fa);
  for (size_t j = 0; j < 8; ++j) EXPECT_EQ(r[j], elem(a[j]).sqr()) << "sqr lane " << j;
  ifma::add_x8(r, fa, fb);
  for (size_t j = 0; j < 8; ++j) EXPECT_EQ(r[j], elem(a[j]) + elem(b[j])) << "add lane " << j;
  ifma::sub_x8(r, fa, fb);
  for (size_t j = 0; j < 8; ++j) EXPECT_EQ(r[j], elem(a[j]) - elem(b[j])) << "sub lane " << j;
  ifma::round_trip_x8(r, fa);
  for (size_t j = 0; j < 8; ++j) EXPECT_EQ(r[j], elem(a[j])) << "round trip lane " << j;
}

TEST_F(FpX8, RandomElementsAgreeWithFp) {
  for (int round = 0; round < 500; ++round) {
    std::array<limbs6_t, 8> a, b;
    for (size_t j = 0; j < 8; ++j) a[j] = fp_t::random(g).mont_limbs(), b[j] = fp_t::random(g).mont_limbs();
    check_ops(a, b);
    if (HasFailure()) return;
  }
}

TEST_F(FpX8, EdgeAndOutOfRangeInputs) {
  const auto edges = edges384();
  for (size_t k = 0; k < edges.size(); ++k) {
    for (size_t k2 = 0; k2 < edges.size(); ++k2) {
      check_ops(lanes_of(edges, k, g), lanes_of(edges, k2, g));
      if (HasFailure()) return;
    }
  }
  // Any 384-bit integers.
  for (int round = 0; round < 200; ++round) {
    std::array<limbs6_t, 8> a, b;
    for (size_t j = 0; j < 8; ++j) a[j] = random384(g), b[j] = random384(g);
    check_ops(a, b);
  }
}

// ---- the vector form itself: values v < 2p, v ≡ a·2^416 ----

limbs52_t as52(const limbs6_t& w) { return ifma::to_radix52(w); }
limbs6_t as64(const limbs52_t& v) { return ifma::from_radix52(v); }

// The element v stands for, as fp_t: v·2^-416 = (v·2^-384)·2^-32, and
// (x·2^-32) = x·(2^352 mod p) in fp_t's Montgomery product.
fp_t elem52(const limbs52_t& v) {
  static const fp_t two_352 = fp_t::from_mont_limbs(limbs::pow2_mod(352, fp_t::modulus));
  return elem(as64(v)) * two_352;
}

// A result must be in the form: every limb < 2^52, value < bound·p.
void expect_in_form(const limbs52_t& v, uint64_t bound, const char* what, size_t lane) {
  limbs6_t bp{};
  for (uint64_t k = 0; k < bound; ++k) limbs::add(bp, bp, fp_t::modulus);
  for (uint64_t x : v) EXPECT_LT(x, uint64_t(1) << 52) << what << " lane " << lane << ": limb not normalised";
  EXPECT_TRUE(limbs::less(as64(v), bp)) << what << " lane " << lane << ": value >= " << bound << "p";
}

TEST_F(FpX8, VectorFormEdges) {
  limbs6_t p = fp_t::modulus, two_p{};
  limbs::add(two_p, p, p);
  const std::vector<limbs6_t> edges = {limbs6_t{},
                                       limbs6_t{1},
                                       limbs::sub_small(p, 1),
                                       p,
                                       limbs::add_small(p, 1),
                                       limbs::sub_small(two_p, 1),
                                       limbs::sub_small(two_p, 2),
                                       ifma::from_radix52(ifma::consts::one52)};
  auto below_2p = [&] {
    for (;;) {
      limbs6_t w = random384(g);
      w[5] >>= 2;  // < 2^382
      if (limbs::less(w, two_p)) return w;
    }
  };
  for (size_t k = 0; k < edges.size(); ++k) {
    for (size_t k2 = 0; k2 < edges.size() + 3; ++k2) {
      limbs52_t a[8], b[8], r[8];
      for (size_t j = 0; j < 8; ++j) {
        a[j] = as52(edges[(j + k) % edges.size()]);
        // k2 past the edges: fresh random values below 2p in b.
        b[j] = as52(k2 < edges.size() ? edges[(j + k2) % edges.size()] : below_2p());
      }
      ifma::mul_x8_raw(r, a, b);
      for (size_t j = 0; j < 8; ++j) {
        expect_in_form(r[j], 2, "mul", j);
        EXPECT_EQ(elem52(r[j]), elem52(a[j]) * elem52(b[j])) << "mul lane " << j;
      }
      ifma::add_x8_raw(r, a, b);
      for (size_t j = 0; j < 8; ++j) {
        expect_in_form(r[j], 4, "add", j);
        EXPECT_EQ(elem52(r[j]), elem52(a[j]) + elem52(b[j])) << "add lane " << j;
      }
      ifma::sub_x8_raw(r, a, b);
      for (size_t j = 0; j < 8; ++j) {
        expect_in_form(r[j], 4, "sub", j);
        EXPECT_EQ(elem52(r[j]), elem52(a[j]) - elem52(b[j])) << "sub lane " << j;
      }
      if (HasFailure()) return;
    }
  }
}

// Long runs of sums and differences: the bound grows past max_bound and
// the operands are reduced on the way; n·a and -n·a must come out.
TEST_F(FpX8, LongRunsOfSumsAndDifferences) {
  fp_t a[8], r[8];
  for (auto& x : a) x = fp_t::random(g);
  a[0] = -fp_t::one();  // p - 1
  for (unsigned n : {1u, 2u, 3u, 1000u, 40000u, 100000u}) {
    ifma::repeated_add_x8(r, a, n);
    for (size_t j = 0; j < 8; ++j) EXPECT_EQ(r[j], a[j] * fp_t::from_u64(n)) << "n = " << n << " lane " << j;
    ifma::repeated_sub_x8(r, a, n);
    for (size_t j = 0; j < 8; ++j) EXPECT_EQ(r[j], -(a[j] * fp_t::from_u64(n))) << "n = " << n << " lane " << j;
  }
}

// Sets an environment variable for a scope, restoring it after.
struct env_guard {
  std::string name, saved;
  bool had;
  env_guard(const char* n, const char* value) : name(n) {
    const char* old = std::getenv(n);
    had = old != nullptr;
    if (had) saved = old;
    setenv(n, value, 1);
  }
  ~env_guard() {
    if (had)
      setenv(name.c_str(), saved.c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

TEST(FpX8Switch, OnOffAndEnvironment) {
  const bool was = ff_path::wide();
  EXPECT_FALSE(ff_path::set_wide(false));
  EXPECT_FALSE(ff_path::wide());
  EXPECT_EQ(ff_path::set_wide(true), ff_path::cpu_has_ifma());
  {
    env_guard portable("STARZK_FF_PORTABLE", "1");
    EXPECT_FALSE(ff_path::initial_wide_choice());
  }
  {
    env_guard portable("STARZK_FF_PORTABLE", "0");
    EXPECT_EQ(ff_path::initial_wide_choice(), ff_path::cpu_has_ifma());
    env_guard ifma("STARZK_FF_IFMA", "off");
    EXPECT_FALSE(ff_path::initial_wide_choice());
  }
  {
    env_guard ifma("STARZK_FF_IFMA", "maybe");  // refused by the start check; off here
    EXPECT_FALSE(ff_path::initial_wide_choice());
  }
  ff_path::set_wide(was);
}

}  // namespace
}  // namespace starzk
