// Device Fp, Fr and Fp2 against the host fp_t / fr_t / fp2_t (src/ff): every
// operation on 1e5 random operands plus the edge values 0, 1, 2, m-1, m-2,
// (m-1)/2 and R mod m paired with each other. Skipped without a GPU.
#include <vector>

#include "gpu_test_util.hpp"

namespace starzk::gpu::test {
namespace {

constexpr size_t n_random = 100000;

template <class F>
std::vector<F> edge_values() {
  using L = typename F::limbs_t;
  std::vector<F> e = {F::zero(),
                      F::one(),
                      F::from_u64(2),
                      -F::one(),
                      -F::from_u64(2),
                      F::from_mont_limbs(F::m_minus_1),  // raw limbs m-1: largest valid Montgomery word
                      F::from_reduced(F::half_m),
                      F::from_mont_limbs(L{1})};
  return e;
}

// a and b: random operands, then every (edge, edge) pair.
template <class F>
void make_operands(std::mt19937_64& rng, std::vector<F>& a, std::vector<F>& b) {
  for (size_t i = 0; i < n_random; ++i) {
    a.push_back(F::random(rng));
    b.push_back(F::random(rng));
  }
  const auto e = edge_values<F>();
  for (const F& x : e)
    for (const F& y : e) a.push_back(x), b.push_back(y);
}

template <class F>
F host_apply(field_op_t op, const F& a, const F& b) {
  switch (op) {
    case field_op_t::add:
      return a + b;
    case field_op_t::sub:
      return a - b;
    case field_op_t::mul:
      return a * b;
    case field_op_t::sqr:
      return a.sqr();
    case field_op_t::neg:
      return -a;
    case field_op_t::dbl:
      return a.dbl();
    case field_op_t::inv:
    case field_op_t::inv_binary:
      return a.inverse();
    case field_op_t::from_mont:
      return F::from_mont_limbs(a.to_canonical());
    case field_op_t::to_mont:
      return F::from_reduced(a.mont_limbs());
  }
  return a;
}

const field_op_t all_ops[] = {field_op_t::add,     field_op_t::sub,       field_op_t::mul, field_op_t::sqr,
                              field_op_t::neg,     field_op_t::dbl,       field_op_t::inv, field_op_t::from_mont,
                              field_op_t::to_mont, field_op_t::inv_binary};

template <class F, class Run>
void check_all_ops(Run run) {
  auto rng = seeded_rng();
  std::vector<F> a, b;
  make_operands(rng, a, b);
  for (field_op_t op : all_ops) {
    const std::vector<F> got = run(op, a, b);
    ASSERT_EQ(got.size(), a.size());
    size_t bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (got[i] != host_apply(op, a[i], b[i]) && bad++ < 3)
        ADD_FAILURE() << "op " << int(op) << " index " << i << ": a=" << a[i].to_hex() << " b=" << b[i].to_hex()
                      << " gpu=" << got[i].to_hex();
    }
    EXPECT_EQ(bad, 0u) << "op " << int(op);
  }
}

TEST(CudaField, FpMatchesHost) {
  SZK_REQUIRE_GPU();
  check_all_ops<fp_t>([](field_op_t op, const auto& a, const auto& b) { return fp_elementwise_host(op, a, b); });
}

TEST(CudaField, FrMatchesHost) {
  SZK_REQUIRE_GPU();
  check_all_ops<fr_t>([](field_op_t op, const auto& a, const auto& b) { return fr_elementwise_host(op, a, b); });
}

TEST(CudaField, Fp2MatchesHost) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  std::vector<fp2_t> a, b;
  for (size_t i = 0; i < 20000; ++i) {
    a.push_back({fp_t::random(rng), fp_t::random(rng)});
    b.push_back({fp_t::random(rng), fp_t::random(rng)});
  }
  const auto e = edge_values<fp_t>();
  for (const fp_t& x : e)
    for (const fp_t& y : e) a.push_back({x, y}), b.push_back({y, x});
  const field_op_t ops[] = {field_op_t::add, field_op_t::sub, field_op_t::mul, field_op_t::sqr,
                            field_op_t::neg, field_op_t::dbl, field_op_t::inv};
  for (field_op_t op : ops) {
    const auto got = fp2_elementwise_host(op, a, b);
    size_t bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      fp2_t want;
      switch (op) {
        case field_op_t::add:
          want = a[i] + b[i];
          break;
        case field_op_t::sub:
          want = a[i] - b[i];
          break;
        case field_op_t::mul:
          want = a[i] * b[i];
          break;
        case field_op_t::sqr:
          want = a[i].sqr();
          break;
        case field_op_t::neg:
          want = -a[i];
          break;
        case field_op_t::dbl:
          want = a[i] + a[i];
          break;
        default:
          want = a[i].inverse();
          break;
      }
      if (got[i] != want) ++bad;
    }
    EXPECT_EQ(bad, 0u) << "fp2 op " << int(op);
  }
}

TEST(CudaField, RejectsBadArguments) {
  SZK_REQUIRE_GPU();
  EXPECT_EQ(fp_elementwise(field_op_t::add, nullptr, nullptr, nullptr, 10, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(fp2_elementwise(field_op_t::to_mont, nullptr, nullptr, nullptr, 10, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(fp2_elementwise(field_op_t::inv_binary, nullptr, nullptr, nullptr, 10, nullptr), cudaErrorInvalidValue);
  std::vector<fp_t> a(3), b(2);
  EXPECT_THROW(fp_elementwise_host(field_op_t::add, a, b), std::runtime_error);
}

}  // namespace
}  // namespace starzk::gpu::test
