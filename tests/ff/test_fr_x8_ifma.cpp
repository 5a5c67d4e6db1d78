// The 8-lane F_r of the NTT (ff/fr_x8_ifma.hpp) against fr_t: the product
// by a twiddle-form constant, sums and differences, on fresh random
// elements with a different value in every lane and on the edges of the
// lane form (0, 1, the element 1, r − 1, r, r + 1, 2r − 1: inputs may be
// any integer below 2r) at every lane position. Skipped where the CPU lacks
// AVX-512 IFMA.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include "ff/fr.hpp"
#include "ff/fr_x8_ifma.hpp"

namespace starzk {
namespace {

using limbs4_t = std::array<uint64_t, 4>;

class FrX8 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ff_path::cpu_has_ifma()) GTEST_SKIP() << "CPU without AVX-512 IFMA: the 8-lane F_r is never used";
  }
  std::mt19937_64 g{std::random_device{}()};
};

// The fr_t whose stored limbs are w (w < 2r, w ≥ r standing for w − r).
fr_t raw(const limbs4_t& w) { return fr_t::from_mont_limbs(w); }
fr_t reduced(limbs4_t w) {
  if (!limbs::less(w, fr_t::modulus)) limbs::sub(w, w, fr_t::modulus);
  return fr_t::from_mont_limbs(w);
}

std::vector<limbs4_t> edges() {
  const limbs4_t r = fr_t::modulus;
  limbs4_t two_r{};
  limbs::add(two_r, r, r);
  return {
      limbs4_t{}, limbs4_t{1}, fr_t::r1_mod, fr_t::m_minus_1, r, limbs::add_small(r, 1), limbs::sub_small(two_r, 1)};
}

// Eight lanes from a list of values, value i at lane (i + shift) mod 8.
std::array<limbs4_t, 8> rotate(const std::vector<limbs4_t>& v, size_t start, unsigned shift) {
  std::array<limbs4_t, 8> out{};
  for (unsigned l = 0; l < 8; ++l) out[(l + shift) % 8] = v[(start + l) % v.size()];
  return out;
}

void check_all(const std::array<limbs4_t, 8>& a, const std::array<limbs4_t, 8>& b) {
  fr_t x[8], y[8], tw[8], got[8];
  for (unsigned l = 0; l < 8; ++l) {
    x[l] = raw(a[l]);
    y[l] = raw(b[l]);
    tw[l] = reduced(b[l]);  // a twiddle is a canonical element
  }
  ifma::fr_mul_tw_x8(got, x, tw);
  for (unsigned l = 0; l < 8; ++l) EXPECT_EQ(got[l], reduced(a[l]) * tw[l]) << "mul lane " << l;
  ifma::fr_add_x8(got, x, y);
  for (unsigned l = 0; l < 8; ++l) EXPECT_EQ(got[l], reduced(a[l]) + reduced(b[l])) << "add lane " << l;
  ifma::fr_sub_x8(got, x, y);
  for (unsigned l = 0; l < 8; ++l) EXPECT_EQ(got[l], reduced(a[l]) - reduced(b[l])) << "sub lane " << l;
}

TEST_F(FrX8, RandomElements) {
  for (int round = 0; round < 200; ++round) {
    std::array<limbs4_t, 8> a, b;
    for (unsigned l = 0; l < 8; ++l) {
      a[l] = fr_t::random(g).mont_limbs();
      b[l] = fr_t::random(g).mont_limbs();
      if (round % 2) limbs::add(a[l], a[l], fr_t::modulus);  // the same element, at or above r
    }
    check_all(a, b);
  }
}

TEST_F(FrX8, EdgesAtEveryLane) {
  const auto e = edges();
  for (size_t i = 0; i < e.size(); ++i)
    for (size_t j = 0; j < e.size(); ++j)
      for (unsigned shift = 0; shift < 8; ++shift) check_all(rotate(e, i, shift), rotate(e, j, shift + 3));
}

}  // namespace
}  // namespace starzk
