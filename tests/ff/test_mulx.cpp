// The mulx/adcx/adox Montgomery product (ff/mulx.hpp) against the portable
// kernels, for F_p (6 limbs) and F_r (4 limbs): fresh random operands,
// operands whose limbs are 0, 1 and all-ones (the carry chains' worst case),
// the edge values 0, 1, R mod m, m-1 and second operands >= m, which the
// product accepts (a < m, b any N-limb value); the raw rows' output t < 2m
// and the final conditional subtraction on values in [m, 2m); the run-time
// switch (ff_path) and its environment variable; and the tower F_p2..F_p12
// giving the same products with the switch on and off. Skipped where the CPU
// lacks BMI2/ADX (the portable path is then the only one).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "ff/ff.hpp"

namespace starzk {
namespace {

template <class T>
using limbs_of = typename T::limbs_t;

// Restores the switch a test changed.
struct fast_guard {
  bool was = ff_path::fast();
  ~fast_guard() { ff_path::set_fast(was); }
};

// Limbs drawn from {0, 1, all-ones, all-ones - 1, random}: long carry runs.
template <class T>
limbs_of<T> spiky(std::mt19937_64& g) {
  limbs_of<T> v{};
  for (auto& w : v) {
    switch (g() % 5) {
      case 0:
        w = 0;
        break;
      case 1:
        w = 1;
        break;
      case 2:
        w = ~uint64_t(0);
        break;
      case 3:
        w = ~uint64_t(0) - 1;
        break;
      default:
        w = g();
    }
  }
  return v;
}

// Edge operands below m, and second operands at or above m.
template <class T>
std::vector<limbs_of<T>> edges_below_m() {
  limbs_of<T> one_plain{};
  one_plain[0] = 1;
  return {limbs_of<T>{}, one_plain, T::r1_mod, T::r2_mod, T::m_minus_1, T::m_minus_2, T::half_m};
}
template <class T>
std::vector<limbs_of<T>> edges_at_or_above_m() {
  limbs_of<T> all_ones;
  all_ones.fill(~uint64_t(0));
  limbs_of<T> top_bit{};
  top_bit[T::n_limbs - 1] = uint64_t(1) << 63;
  return {T::modulus, limbs::add_small(T::modulus, 1), all_ones, top_bit};
}

template <class T>
class MulxField : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ff_path::cpu_has_mulx()) GTEST_SKIP() << "CPU without BMI2/ADX: portable path only";
  }
};
using fields = ::testing::Types<fp_t, fr_t>;
TYPED_TEST_SUITE(MulxField, fields);

// mul_raw_mulx(a, b) == mul_raw_portable(a, b) == mul_raw_cios(a, b).
template <class T>
void expect_same_product(const limbs_of<T>& a, const limbs_of<T>& b) {
  uint64_t x[T::n_limbs], y[T::n_limbs], z[T::n_limbs];
  T::mul_raw_mulx(x, a.data(), b.data());
  T::mul_raw_portable(y, a.data(), b.data());
  T::mul_raw_cios(z, a.data(), b.data());
  for (size_t i = 0; i < T::n_limbs; ++i) {
    ASSERT_EQ(x[i], y[i]) << T::n_limbs << " limbs, "
                          << " limb " << i;
    ASSERT_EQ(x[i], z[i]) << T::n_limbs << " limbs, "
                          << " limb " << i;
  }
  limbs_of<T> xr;
  for (size_t i = 0; i < T::n_limbs; ++i) xr[i] = x[i];
  ASSERT_TRUE(limbs::less(xr, T::modulus)) << T::n_limbs << " limbs, "
                                           << ": product not reduced";
}

TYPED_TEST(MulxField, RandomProductsAndSquares) {
  using T = TypeParam;
  std::mt19937_64 g(std::random_device{}());
  for (int i = 0; i < 20000; ++i) {
    const T a = T::random(g), b = T::random(g);
    expect_same_product<T>(a.mont_limbs(), b.mont_limbs());
    expect_same_product<T>(a.mont_limbs(), a.mont_limbs());  // squaring
  }
}

TYPED_TEST(MulxField, CarryHeavyOperands) {
  using T = TypeParam;
  std::mt19937_64 g(std::random_device{}());
  for (int i = 0; i < 20000; ++i) {
    limbs_of<T> a = spiky<T>(g);
    a[T::n_limbs - 1] &= T::top_mask >> 1;  // below m (m's top limb exceeds top_mask / 2)
    ASSERT_TRUE(limbs::less(a, T::modulus));
    const limbs_of<T> b = spiky<T>(g);  // any N-limb value
    expect_same_product<T>(a, b);
    expect_same_product<T>(a, a);
  }
}

TYPED_TEST(MulxField, EdgeValues) {
  using T = TypeParam;
  std::mt19937_64 g(std::random_device{}());
  std::vector<limbs_of<T>> bs = edges_below_m<T>();
  for (const auto& v : edges_at_or_above_m<T>()) bs.push_back(v);
  for (int i = 0; i < 4; ++i) bs.push_back(T::random(g).mont_limbs());
  for (const auto& a : edges_below_m<T>()) {
    for (const auto& b : bs) expect_same_product<T>(a, b);
  }
}

// The assembly rows alone: t < 2m and t ≡ a·b·R^-1; then reduce_once on
// values in [m, 2m) and below m.
TYPED_TEST(MulxField, RowsAndFinalSubtraction) {
  using T = TypeParam;
  std::mt19937_64 g(std::random_device{}());
  limbs_of<T> two_m{};
  ASSERT_EQ(limbs::add(two_m, T::modulus, T::modulus), 0u);
  const limbs_of<T> big = T::m_minus_1;
  limbs_of<T> all_ones;
  all_ones.fill(~uint64_t(0));
  for (int i = 0; i < 5000; ++i) {
    const limbs_of<T> a = i == 0 ? big : T::random(g).mont_limbs();
    const limbs_of<T> b = i == 0 ? all_ones : spiky<T>(g);
    limbs_of<T> t{}, r{}, want{};
    mulx::mont_rows<T::n_limbs>(t.data(), a.data(), b.data(), T::modulus.data(), T::m_inv);
    ASSERT_TRUE(limbs::less(t, two_m));
    T::reduce_once(r.data(), t.data());
    T::mul_raw_portable(want.data(), a.data(), b.data());
    ASSERT_EQ(r, want);
  }
  // reduce_once: x + m -> x for x < m; x -> x.
  for (int i = 0; i < 1000; ++i) {
    const limbs_of<T> x = i == 0 ? T::m_minus_1 : i == 1 ? limbs_of<T>{} : T::random(g).mont_limbs();
    limbs_of<T> xm{}, r{};
    ASSERT_EQ(limbs::add(xm, x, T::modulus), 0u);
    T::reduce_once(r.data(), xm.data());
    ASSERT_EQ(r, x);
    T::reduce_once(r.data(), x.data());
    ASSERT_EQ(r, x);
  }
}

TEST(MulxSwitch, OnOffAndEnvironment) {
  fast_guard keep;
  EXPECT_FALSE(ff_path::set_fast(false));
  EXPECT_FALSE(ff_path::fast());
  EXPECT_EQ(ff_path::set_fast(true), ff_path::cpu_has_mulx());
  const char* old = std::getenv("STARZK_FF_PORTABLE");
  const std::string saved = old ? old : "";
  setenv("STARZK_FF_PORTABLE", "1", 1);
  EXPECT_FALSE(ff_path::initial_choice());
  setenv("STARZK_FF_PORTABLE", "0", 1);
  EXPECT_EQ(ff_path::initial_choice(), ff_path::cpu_has_mulx());
  if (old)
    setenv("STARZK_FF_PORTABLE", saved.c_str(), 1);
  else
    unsetenv("STARZK_FF_PORTABLE");
}

// Every caller goes through mul_raw: the same tower results both ways
// (and so the existing field, curve and pairing tests cover both paths).
TEST(MulxSwitch, TowerAgreesBothWays) {
  if (!ff_path::cpu_has_mulx()) GTEST_SKIP() << "CPU without BMI2/ADX";
  fast_guard keep;
  std::mt19937_64 g(std::random_device{}());
  for (int i = 0; i < 50; ++i) {
    const fp12_t a = fp12_t::random(g), b = fp12_t::random(g);
    const fp_t x = fp_t::random(g);
    const fr_t y = fr_t::random(g);
    ff_path::set_fast(false);
    const fp12_t slow = a * b, slow_sq = a.sqr();
    const fp_t slow_inv = x.inverse(), slow_sqrt = x.sqr().pow(uint64_t(12345));
    const fr_t slow_r = y.inverse() * y.sqr();
    ff_path::set_fast(true);
    EXPECT_EQ(a * b, slow);
    EXPECT_EQ(a.sqr(), slow_sq);
    EXPECT_EQ(x.inverse(), slow_inv);
    EXPECT_EQ(x.sqr().pow(uint64_t(12345)), slow_sqrt);
    EXPECT_EQ(y.inverse() * y.sqr(), slow_r);
  }
}

}  // namespace
}  // namespace starzk
