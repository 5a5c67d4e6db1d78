// Device fixed-base products (cuda/fixed_base.cu) against the host: every
// output k·G, affine byte for byte, equals mul(G, k) of ec/scalar_mul.hpp
// (4-bit windows and doublings: nothing shared with the device comb); the
// device returns XYZZ points, made affine here on the host.
// Scalars: 0, 1, 2, r-1, r-2, single-byte digits in every window (each table
// row), 0xff bytes, fresh random; sizes 0, 1, 2, 31, 32, 33, 1025, 4097;
// several block sizes. A long arithmetic
// progression k_i = k0 + i·d (checked by consecutive differences on the
// host, plus the full oracle at sampled indices) covers 2^18 + 3 points.
// Bases: the generators and a random multiple of each (not the generator).
// Bad arguments return cudaErrorInvalidValue.
#include <vector>

#include "ec/comb_table.hpp"
#include "ec/scalar_mul.hpp"
#include "gpu_test_util.hpp"

namespace starzk::gpu::test {
namespace {

// The device API of one group (P = g1_params, g2_params), for the typed tests.
template <class P>
struct group_ops {
  using aff = affine_t<P>;
  using jac = jacobian_t<P>;
  using xyzz = xyzz_t<P>;
  static size_t table_bytes() { return fixed_base_table_bytes<P>(); }
  static cudaError_t table_init(void* t, const aff& g, cudaStream_t s) { return fixed_base_table_init<P>(t, g, s); }
  static cudaError_t mul(xyzz* o, const fr_t* k, size_t n, const void* t, cudaStream_t s,
                         const fixed_base_tuning_t& tune) {
    return fixed_base<P>(o, k, n, t, s, tune);
  }
};
using g1_ops = group_ops<g1_params>;
using g2_ops = group_ops<g2_params>;

// Table from g, scalars up, products down.
template <class Ops>
std::vector<typename Ops::aff> device_mul(const typename Ops::aff& g, const std::vector<fr_t>& k,
                                          const fixed_base_tuning_t& tune = {}) {
  using aff = typename Ops::aff;
  const size_t n = k.size();
  stream_t s;
  using xyzz = typename Ops::xyzz;
  device_buffer_t table(Ops::table_bytes()), dk(n * sizeof(fr_t)), dout(n * sizeof(xyzz));
  const std::vector<aff> host_table = comb_table(g);  // the table setup uploads
  table.upload(host_table.data(), host_table.size() * sizeof(aff));
  dk.upload(k.data(), n * sizeof(fr_t));
  check_cuda(Ops::mul(dout.as<xyzz>(), dk.as<fr_t>(), n, table.get(), s.get(), tune), "fixed_base");
  s.sync();
  std::vector<xyzz> pts(n);
  dout.download(pts.data(), n * sizeof(xyzz));
  std::vector<aff> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = pts[i].to_affine();
  return out;
}

fr_t canonical(uint64_t l0, uint64_t l1 = 0, uint64_t l2 = 0, uint64_t l3 = 0) {
  return fr_t::from_canonical({l0, l1, l2, l3});
}

// Edge scalars first, then random ones up to n.
std::vector<fr_t> scalars(std::mt19937_64& rng, size_t n) {
  std::vector<fr_t> e = {fr_t::zero(),
                         fr_t::one(),
                         fr_t::from_u64(2),
                         -fr_t::one(),
                         -fr_t::from_u64(2),
                         canonical(0xff),
                         canonical(~0ull, ~0ull, ~0ull, 0x3fffffffffffffffull)};
  for (unsigned w = 0; w < 32; ++w) {  // one digit in window w: row w of the table
    std::array<uint64_t, 4> l{};
    l[w / 8] = uint64_t(((w * 37) & 0x3f) | 1) << (8 * (w % 8));
    e.push_back(fr_t::from_canonical(l));
  }
  std::vector<fr_t> k;
  for (size_t i = 0; i < n; ++i) k.push_back(i < e.size() ? e[i] : fr_t::random(rng));
  // Sprinkle zeros (O inside shared inversions) past the edge block.
  for (size_t i = e.size() + 5; i < n; i += 13) k[i] = fr_t::zero();
  return k;
}

template <class Ops>
void check(const typename Ops::aff& g, const std::vector<fr_t>& k, const fixed_base_tuning_t& tune, const char* what) {
  const auto got = device_mul<Ops>(g, k, tune);
  ASSERT_EQ(got.size(), k.size());
  size_t bad = 0;
  for (size_t i = 0; i < k.size(); ++i) {
    const typename Ops::aff want = mul(g, k[i]).to_affine();
    if (!(got[i] == want) && bad++ < 3)
      ADD_FAILURE() << what << ": n=" << k.size() << " i=" << i << " block=" << tune.block;
  }
  EXPECT_EQ(bad, 0u) << what << ": n=" << k.size();
}

template <class Ops>
typename Ops::aff random_base(std::mt19937_64& rng) {
  return mul(Ops::aff::generator(), fr_t::random(rng)).to_affine();
}

template <class Ops>
class CudaFixedBase : public ::testing::Test {};
using groups = ::testing::Types<g1_ops, g2_ops>;
TYPED_TEST_SUITE(CudaFixedBase, groups);

// Small blocks: many blocks even for small n.
constexpr fixed_base_tuning_t small_blocks{32};

TYPED_TEST(CudaFixedBase, EdgeSizesOnTheGenerator) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const auto g = TypeParam::aff::generator();
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(31), size_t(32), size_t(33), size_t(1025)})
    check<TypeParam>(g, scalars(rng, n), {}, "default tuning");
  check<TypeParam>(g, scalars(rng, 1025), small_blocks, "small blocks");
}

TYPED_TEST(CudaFixedBase, TuningsAndAnotherBase) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const auto g = random_base<TypeParam>(rng);
  const size_t n = std::is_same_v<TypeParam, g1_ops> ? 4097 : 1500;
  const std::vector<fr_t> k = scalars(rng, n);
  for (const fixed_base_tuning_t& t : {fixed_base_tuning_t{32}, fixed_base_tuning_t{64}, fixed_base_tuning_t{256},
                                       fixed_base_tuning_t{96}, fixed_base_tuning_t{}})
    check<TypeParam>(g, k, t, "tuning");
}

// The device-built table (table_init) against the host comb table, entry by
// entry; the first differing entries are named.
TYPED_TEST(CudaFixedBase, DeviceTableEqualsHostTable) {
  SZK_REQUIRE_GPU();
  using aff = typename TypeParam::aff;
  auto rng = seeded_rng();
  for (const aff& g : {aff::generator(), random_base<TypeParam>(rng)}) {
    const std::vector<aff> want = comb_table(g);
    stream_t s;
    device_buffer_t table(TypeParam::table_bytes());
    check_cuda(TypeParam::table_init(table.get(), g, s.get()), "table_init");
    s.sync();
    std::vector<aff> got(want.size());
    table.download(got.data(), got.size() * sizeof(aff));
    size_t bad = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (!(got[i] == want[i]) && bad++ < 4) {
        // The raw limbs too: a value off by the modulus is a reduction slip,
        // anything else a wrong point.
        const auto* g64 = reinterpret_cast<const uint64_t*>(&got[i]);
        const auto* w64 = reinterpret_cast<const uint64_t*>(&want[i]);
        std::string limbs;
        for (size_t j = 0; j < sizeof(aff) / 8; ++j)
          limbs += "\n  " + std::to_string(j) + ": got " + std::to_string(g64[j]) + " want " + std::to_string(w64[j]);
        ADD_FAILURE() << "entry w=" << i / 256 << " d=" << i % 256 << limbs;
      }
    EXPECT_EQ(bad, 0u);
  }
}

TYPED_TEST(CudaFixedBase, AllZeroAndAllOne) {
  SZK_REQUIRE_GPU();
  const auto g = TypeParam::aff::generator();
  const auto zeros = device_mul<TypeParam>(g, std::vector<fr_t>(777, fr_t::zero()), small_blocks);
  for (const auto& p : zeros) ASSERT_TRUE(p.is_infinity());
  const auto ones = device_mul<TypeParam>(g, std::vector<fr_t>(777, fr_t::one()), small_blocks);
  for (const auto& p : ones) ASSERT_TRUE(p == g);
}

// k_i = k0 + i·d, so P_i = P_{i-1} + d·G: every output checked by one host
// addition; k0 = -5d puts O at i = 5. Full oracle at sampled indices.
TYPED_TEST(CudaFixedBase, LongProgression) {
  SZK_REQUIRE_GPU();
  using aff = typename TypeParam::aff;
  using jac = typename TypeParam::jac;
  auto rng = seeded_rng();
  const aff g = aff::generator();
  const size_t n = std::is_same_v<TypeParam, g1_ops> ? (size_t(1) << 18) + 3 : (size_t(1) << 16) + 3;
  const fr_t d = fr_t::random(rng), k0 = -(d * fr_t::from_u64(5));
  std::vector<fr_t> k(n);
  k[0] = k0;
  for (size_t i = 1; i < n; ++i) k[i] = k[i - 1] + d;
  for (const fixed_base_tuning_t& t : {fixed_base_tuning_t{}, small_blocks}) {
    const std::vector<aff> got = device_mul<TypeParam>(g, k, t);
    ASSERT_TRUE(got[5].is_infinity());
    const aff step = mul(g, d).to_affine();
    jac acc = mul(g, k0);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!(acc == got[i]) && bad++ < 3) ADD_FAILURE() << "progression i=" << i << " block=" << t.block;
      acc = acc.add_mixed(step);
    }
    EXPECT_EQ(bad, 0u);
    for (int s = 0; s < 16; ++s) {
      const size_t i = rng() % n;
      EXPECT_TRUE(got[i] == mul(g, k[i]).to_affine()) << "i=" << i;
    }
  }
}

TYPED_TEST(CudaFixedBase, BadArguments) {
  SZK_REQUIRE_GPU();
  using aff = typename TypeParam::aff;
  using xyzz = typename TypeParam::xyzz;
  stream_t s;
  device_buffer_t table(TypeParam::table_bytes()), dk(64 * sizeof(fr_t)), dout(64 * sizeof(xyzz));
  EXPECT_EQ(TypeParam::table_init(nullptr, aff::generator(), s.get()), cudaErrorInvalidValue);
  ASSERT_EQ(TypeParam::table_init(table.get(), aff::generator(), s.get()), cudaSuccess);
  auto* out = dout.as<xyzz>();
  const auto* k = dk.as<fr_t>();
  EXPECT_EQ(TypeParam::mul(out, k, 64, nullptr, s.get(), {}), cudaErrorInvalidValue);
  EXPECT_EQ(TypeParam::mul(nullptr, k, 64, table.get(), s.get(), {}), cudaErrorInvalidValue);
  EXPECT_EQ(TypeParam::mul(out, k, 64, table.get(), s.get(), fixed_base_tuning_t{0}), cudaErrorInvalidValue);
  EXPECT_EQ(TypeParam::mul(out, k, 64, table.get(), s.get(), fixed_base_tuning_t{100}), cudaErrorInvalidValue);
  // n = 0 is a no-op whatever the pointers.
  EXPECT_EQ(TypeParam::mul(nullptr, nullptr, 0, nullptr, s.get(), {}), cudaSuccess);
  s.sync();
}

}  // namespace
}  // namespace starzk::gpu::test
