// fp_t and fr_t against GMP: thousands of random operands plus edge values
// (0, 1, 2, m-1, m-2, (m±1)/2, R mod m, 2^64±1, ...) for add, sub, neg, mul,
// sqr, inverse, pow, Legendre symbol, sqrt (fp), canonical bytes and decimal.
// Operands enter through from_bytes_le, so the decoder is under test too.
// Also checks with GMP that 7 generates F_r^* (bellman's GENERATOR).
#include <gmp.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ff/ff.hpp"

namespace starzk {
namespace {

// Minimal RAII mpz.
struct mpz {
  mpz_t v;
  mpz() { mpz_init(v); }
  explicit mpz(unsigned long x) { mpz_init_set_ui(v, x); }
  mpz(const mpz& o) { mpz_init_set(v, o.v); }
  mpz& operator=(const mpz& o) {
    mpz_set(v, o.v);
    return *this;
  }
  ~mpz() { mpz_clear(v); }
  std::string dec() const {
    std::vector<char> buf(mpz_sizeinbase(v, 10) + 2);
    mpz_get_str(buf.data(), 10, v);
    return buf.data();
  }
};

template <size_t N>
mpz from_limbs(const std::array<uint64_t, N>& l) {
  mpz r;
  mpz_import(r.v, N, -1, 8, 0, 0, l.data());
  return r;
}

template <class T>
mpz to_mpz(const T& a) {
  return from_limbs(a.to_canonical());
}

// Element from an mpz in [0, m) through the little-endian byte decoder.
template <class T>
T from_mpz(const mpz& x) {
  uint8_t buf[T::n_bytes] = {};
  size_t count = 0;
  mpz_export(buf, &count, -1, 1, 0, 0, x.v);
  T r;
  EXPECT_TRUE(T::from_bytes_le(buf, r)) << x.dec();
  return r;
}

template <class T>
class GmpOracle : public ::testing::Test {
 protected:
  mpz m = from_limbs(T::modulus);
  std::mt19937_64 rng{2024};
  gmp_randstate_t gr;
  void SetUp() override {
    gmp_randinit_mt(gr);
    gmp_randseed_ui(gr, 12345);
  }
  void TearDown() override { gmp_randclear(gr); }

  // Edge values then random ones (uniform mod m, and a few with small or
  // near-2^bits magnitudes to stress carries).
  std::vector<mpz> operands(size_t n_random) {
    std::vector<mpz> v;
    auto add = [&](mpz x) {
      mpz_mod(x.v, x.v, m.v);
      v.push_back(x);
    };
    for (unsigned long s : {0ul, 1ul, 2ul, 3ul}) add(mpz(s));
    for (unsigned long s : {1ul, 2ul}) {
      mpz x;
      mpz_sub_ui(x.v, m.v, s);
      add(x);
    }
    mpz h;
    mpz_fdiv_q_2exp(h.v, m.v, 1);  // (m-1)/2
    add(h);
    mpz_add_ui(h.v, h.v, 1);  // (m+1)/2
    add(h);
    add(from_limbs(T::r1_mod));
    mpz t;
    mpz_ui_pow_ui(t.v, 2, 64);
    add(t);
    mpz_sub_ui(t.v, t.v, 1);
    add(t);
    mpz_ui_pow_ui(t.v, 2, T::modulus_bits - 1);
    add(t);
    for (size_t i = 0; i < n_random; ++i) {
      mpz x;
      if (i % 10 == 9)
        mpz_urandomb(x.v, gr, 1 + i % T::modulus_bits);
      else
        mpz_urandomm(x.v, gr, m.v);
      add(x);
    }
    return v;
  }
};
using prime_fields = ::testing::Types<fp_t, fr_t>;
TYPED_TEST_SUITE(GmpOracle, prime_fields);

TYPED_TEST(GmpOracle, AddSubNegMulSqr) {
  using T = TypeParam;
  const auto xs = this->operands(3000);
  const mpz& m = this->m;
  for (size_t i = 0; i < xs.size(); ++i) {
    const mpz& x = xs[i];
    const mpz& y = xs[(i * 7 + 3) % xs.size()];
    const T a = from_mpz<T>(x), b = from_mpz<T>(y);
    mpz e;
    mpz_add(e.v, x.v, y.v);
    mpz_mod(e.v, e.v, m.v);
    ASSERT_EQ(mpz_cmp(to_mpz(a + b).v, e.v), 0) << x.dec() << " + " << y.dec();
    mpz_sub(e.v, x.v, y.v);
    mpz_mod(e.v, e.v, m.v);
    ASSERT_EQ(mpz_cmp(to_mpz(a - b).v, e.v), 0) << x.dec() << " - " << y.dec();
    mpz_neg(e.v, x.v);
    mpz_mod(e.v, e.v, m.v);
    ASSERT_EQ(mpz_cmp(to_mpz(-a).v, e.v), 0) << "-" << x.dec();
    mpz_mul(e.v, x.v, y.v);
    mpz_mod(e.v, e.v, m.v);
    ASSERT_EQ(mpz_cmp(to_mpz(a * b).v, e.v), 0) << x.dec() << " * " << y.dec();
    mpz_mul(e.v, x.v, x.v);
    mpz_mod(e.v, e.v, m.v);
    ASSERT_EQ(mpz_cmp(to_mpz(a.sqr()).v, e.v), 0) << x.dec() << "^2";
    ASSERT_EQ(mpz_cmp(to_mpz(a.dbl()).v, to_mpz(a + a).v), 0);
  }
}

TYPED_TEST(GmpOracle, InverseAndPow) {
  using T = TypeParam;
  const auto xs = this->operands(1000);
  const mpz& m = this->m;
  for (size_t i = 0; i < xs.size(); ++i) {
    const mpz& x = xs[i];
    const T a = from_mpz<T>(x);
    if (mpz_sgn(x.v) == 0) {
      EXPECT_TRUE(a.inverse().is_zero());
    } else {
      mpz e;
      ASSERT_NE(mpz_invert(e.v, x.v, m.v), 0);
      ASSERT_EQ(mpz_cmp(to_mpz(a.inverse()).v, e.v), 0) << "1/" << x.dec();
    }
    // Exponent of 1..(n_limbs+1) limbs (may exceed m), and a u64 exponent.
    std::vector<uint64_t> ex(1 + i % (T::n_limbs + 1));
    for (auto& w : ex) w = this->rng();
    if (i % 5 == 0) ex.back() = 0;  // leading zero limb
    mpz ez, r;
    mpz_import(ez.v, ex.size(), -1, 8, 0, 0, ex.data());
    mpz_powm(r.v, x.v, ez.v, m.v);
    ASSERT_EQ(mpz_cmp(to_mpz(a.pow(std::span<const uint64_t>(ex))).v, r.v), 0) << x.dec() << "^" << ez.dec();
    mpz_powm_ui(r.v, x.v, ex[0], m.v);
    ASSERT_EQ(mpz_cmp(to_mpz(a.pow(ex[0])).v, r.v), 0);
  }
}

TYPED_TEST(GmpOracle, LegendreAndSqrt) {
  using T = TypeParam;
  const auto xs = this->operands(500);
  for (const mpz& x : xs) {
    const T a = from_mpz<T>(x);
    const int leg = mpz_legendre(x.v, this->m.v);
    ASSERT_EQ(a.legendre(), leg) << x.dec();
    if constexpr (requires(T t, T & o) { t.sqrt(o); }) {
      T r;
      const bool ok = a.sqrt(r);
      ASSERT_EQ(ok, leg >= 0) << x.dec();
      if (ok) {
        mpz s;
        mpz_mul(s.v, to_mpz(r).v, to_mpz(r).v);
        mpz_mod(s.v, s.v, this->m.v);
        ASSERT_EQ(mpz_cmp(s.v, x.v), 0) << "sqrt(" << x.dec() << ")";
      }
    }
    mpz h;
    mpz_fdiv_q_2exp(h.v, this->m.v, 1);
    ASSERT_EQ(a.lexicographically_largest(), mpz_cmp(x.v, h.v) > 0);
  }
}

TYPED_TEST(GmpOracle, BytesAndDecimal) {
  using T = TypeParam;
  const auto xs = this->operands(1000);
  for (const mpz& x : xs) {
    const T a = from_mpz<T>(x);
    ASSERT_EQ(a.to_decimal(), x.dec());
    ASSERT_EQ(T::from_decimal(x.dec()), a);
    uint8_t be[T::n_bytes] = {}, le[T::n_bytes];
    size_t count = 0;
    mpz_export(be + T::n_bytes - (mpz_sizeinbase(x.v, 256) * (mpz_sgn(x.v) != 0)), &count, 1, 1, 0, 0, x.v);
    a.to_bytes_le(le);
    for (size_t k = 0; k < T::n_bytes; ++k) ASSERT_EQ(le[k], be[T::n_bytes - 1 - k]);
    T b;
    ASSERT_TRUE(T::from_bytes_be(be, b));
    ASSERT_EQ(a, b);
    // Montgomery bytes are x·R mod m.
    mpz xr;
    mpz_mul_2exp(xr.v, x.v, 64 * T::n_limbs);
    mpz_mod(xr.v, xr.v, this->m.v);
    ASSERT_EQ(mpz_cmp(from_limbs(a.mont_limbs()).v, xr.v), 0);
  }
  // Decimal strings of m and beyond are rejected.
  mpz t = this->m;
  for (int i = 0; i < 3; ++i) {
    EXPECT_THROW(T::from_decimal(t.dec()), std::invalid_argument) << t.dec();
    mpz_mul_ui(t.v, t.v, 1000003);
  }
}

TEST(GmpFacts, SevenGeneratesFrStar) {
  // r - 1 = 2^32 · 3 · 11 · 19 · 10177 · 125527 · 859267 · 906349^2 ·
  //         2508409 · 2529403 · 52437899 · 254760293^2 (checked below).
  const std::vector<std::pair<unsigned long, unsigned>> f = {{2, 32},      {3, 1},       {11, 1},       {19, 1},
                                                             {10177, 1},   {125527, 1},  {859267, 1},   {906349, 2},
                                                             {2508409, 1}, {2529403, 1}, {52437899, 1}, {254760293, 2}};
  mpz prod(1), r = from_limbs(fr_t::modulus), rm1;
  mpz_sub_ui(rm1.v, r.v, 1);
  for (auto [q, e] : f) {
    EXPECT_NE(mpz_probab_prime_p(mpz(q).v, 30), 0) << q;
    for (unsigned i = 0; i < e; ++i) mpz_mul_ui(prod.v, prod.v, q);
  }
  ASSERT_EQ(mpz_cmp(prod.v, rm1.v), 0);
  bool five_generates = true;
  for (auto [q, e] : f) {
    mpz ex;
    mpz_divexact_ui(ex.v, rm1.v, q);
    const auto limbs = [&] {
      std::array<uint64_t, 4> l{};
      mpz_export(l.data(), nullptr, -1, 8, 0, 0, ex.v);
      return l;
    }();
    EXPECT_FALSE(fr_t::from_u64(7).pow(std::span<const uint64_t>(limbs)).is_one()) << q;
    five_generates &= !fr_t::from_u64(5).pow(std::span<const uint64_t>(limbs)).is_one();
  }
  EXPECT_FALSE(five_generates);  // 5 is a non-residue but not a generator
  EXPECT_NE(mpz_probab_prime_p(r.v, 30), 0);
  EXPECT_NE(mpz_probab_prime_p(from_limbs(fp_t::modulus).v, 30), 0);
}

}  // namespace
}  // namespace starzk
