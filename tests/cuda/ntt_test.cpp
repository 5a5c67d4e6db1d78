// Device NTT and Groth16 H phase against a plain host reference: an iterative
// radix-2 transform over fr_t written here (bit-reversal permutation, then
// Cooley-Tukey butterflies), used straight from the definition
// X_i = sum_j x_j w^(ij). Sizes 2^1, 2^2, 2^10, 2^11, 2^16, 2^17, 2^19 and
// 2^20; both orders, both directions, cosets, both root conventions. The H
// phase is also checked against its meaning: A(z)B(z) - C(z) = h(z)(z^n - 1)
// at a random z.
#include <algorithm>
#include <vector>

#include "gpu_test_util.hpp"

namespace starzk::gpu::test {
namespace {

size_t bitrev(size_t i, unsigned L) {
  size_t r = 0;
  for (unsigned b = 0; b < L; ++b) r |= ((i >> b) & 1) << (L - 1 - b);
  return r;
}
void permute(std::vector<fr_t>& v, unsigned L) {
  for (size_t i = 0; i < v.size(); ++i) {
    const size_t j = bitrev(i, L);
    if (i < j) std::swap(v[i], v[j]);
  }
}

// X_i = sum_j x_j w^(ij), natural in, natural out.
std::vector<fr_t> ref_dft(std::vector<fr_t> x, const fr_t& w, unsigned L) {
  const size_t n = x.size();
  permute(x, L);
  for (size_t len = 2; len <= n; len <<= 1) {
    fr_t wl = w;
    for (size_t k = len; k < n; k <<= 1) wl = wl.sqr();  // w^(n/len)
    for (size_t i = 0; i < n; i += len) {
      fr_t t = fr_t::one();
      for (size_t j = 0; j < len / 2; ++j) {
        const fr_t u = x[i + j], v = x[i + j + len / 2] * t;
        x[i + j] = u + v;
        x[i + j + len / 2] = u - v;
        t *= wl;
      }
    }
  }
  return x;
}

// The reference of one ntt() call, natural order in and out.
std::vector<fr_t> ref_ntt(std::vector<fr_t> x, ntt_dir_t dir, ntt_coset_t coset, root_convention_t c, unsigned L) {
  const fr_t g = h_coset_shift(L, c);
  if (dir == ntt_dir_t::forward) {
    if (coset == ntt_coset_t::coset) {
      fr_t p = fr_t::one();
      for (auto& v : x) v *= p, p *= g;
    }
    return ref_dft(x, root_of_unity(L, c), L);
  }
  x = ref_dft(x, root_of_unity(L, c).inverse(), L);
  const fr_t n_inv = fr_t::from_u64(x.size()).inverse();
  const fr_t gi = g.inverse();
  fr_t p = fr_t::one();
  for (auto& v : x) {
    v *= n_inv;
    if (coset == ntt_coset_t::coset) v *= p, p *= gi;
  }
  return x;
}

std::vector<fr_t> random_vec(std::mt19937_64& rng, size_t n) {
  std::vector<fr_t> v(n);
  for (auto& x : v) x = fr_t::random(rng);
  return v;
}

void check_case(std::mt19937_64& rng, unsigned L, ntt_dir_t dir, ntt_order_t order, ntt_coset_t coset,
                root_convention_t conv) {
  const size_t n = size_t(1) << L;
  const std::vector<fr_t> x = random_vec(rng, n);
  std::vector<fr_t> want = ref_ntt(x, dir, coset, conv, L);
  std::vector<fr_t> in = x;
  if (order == ntt_order_t::reversed_to_natural) permute(in, L);
  if (order == ntt_order_t::natural_to_reversed) permute(want, L);
  ntt_host(in, dir, order, coset, conv);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += in[i] != want[i];
  EXPECT_EQ(bad, 0u) << "L=" << L << " dir=" << int(dir) << " order=" << int(order) << " coset=" << int(coset)
                     << " conv=" << int(conv);
}

TEST(CudaNtt, MatchesReferenceAllVariants) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (unsigned L : {1u, 2u, 10u, 11u, 16u})
    for (auto dir : {ntt_dir_t::forward, ntt_dir_t::inverse})
      for (auto order :
           {ntt_order_t::natural_to_reversed, ntt_order_t::reversed_to_natural, ntt_order_t::natural_to_natural})
        for (auto coset : {ntt_coset_t::none, ntt_coset_t::coset})
          for (auto conv : {root_convention_t::snarkjs, root_convention_t::bellman})
            check_case(rng, L, dir, order, coset, conv);
}

// Above 2^11 the passes change shape (cuda/ntt.cu): 2^19 runs one pass of
// 8 bits with rows of 8 elements (as 2^26 and 2^27 do), 2^20 two of 5 and
// 4 bits with rows of 16; each in both directions and both pass orders.
TEST(CudaNtt, BigSizes) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (unsigned L : {19u, 20u})
    for (auto dir : {ntt_dir_t::forward, ntt_dir_t::inverse})
      for (auto order : {ntt_order_t::natural_to_reversed, ntt_order_t::reversed_to_natural})
        check_case(rng, L, dir, order, L == 19 ? ntt_coset_t::coset : ntt_coset_t::none,
                   L == 19 ? root_convention_t::snarkjs : root_convention_t::bellman);
  check_case(rng, 17, ntt_dir_t::inverse, ntt_order_t::reversed_to_natural, ntt_coset_t::coset,
             root_convention_t::snarkjs);
  // 2^22 round trip: NTT (nat -> rev) then iNTT (rev -> nat) is the identity.
  const unsigned L = 22;
  const std::vector<fr_t> x = random_vec(rng, size_t(1) << L);
  std::vector<fr_t> y = x;
  ntt_host(y, ntt_dir_t::forward, ntt_order_t::natural_to_reversed, ntt_coset_t::coset, root_convention_t::bellman);
  EXPECT_NE(y, x);
  ntt_host(y, ntt_dir_t::inverse, ntt_order_t::reversed_to_natural, ntt_coset_t::coset, root_convention_t::bellman);
  EXPECT_EQ(y, x);
}

// Horner evaluation of a coefficient vector.
fr_t eval(const std::vector<fr_t>& coeffs, const fr_t& z) {
  fr_t acc = fr_t::zero();
  for (size_t i = coeffs.size(); i-- > 0;) acc = acc * z + coeffs[i];
  return acc;
}

TEST(CudaNtt, GrothHBellman) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (unsigned L : {1u, 2u, 10u, 11u, 16u}) {
    const size_t n = size_t(1) << L;
    // A satisfied QAP: c = a∘b on the domain, so Z divides A·B - C.
    const std::vector<fr_t> a = random_vec(rng, n), b = random_vec(rng, n);
    std::vector<fr_t> c(n);
    for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
    const std::vector<fr_t> h = ntt_h_host(a, b, c, root_convention_t::bellman);
    const auto A = ref_ntt(a, ntt_dir_t::inverse, ntt_coset_t::none, root_convention_t::bellman, L);
    const auto B = ref_ntt(b, ntt_dir_t::inverse, ntt_coset_t::none, root_convention_t::bellman, L);
    const auto C = ref_ntt(c, ntt_dir_t::inverse, ntt_coset_t::none, root_convention_t::bellman, L);
    const fr_t z = fr_t::random(rng);
    const fr_t lhs = eval(A, z) * eval(B, z) - eval(C, z);
    const fr_t rhs = eval(h, z) * (z.pow(n) - fr_t::one());
    EXPECT_EQ(lhs, rhs) << "L=" << L;
    EXPECT_TRUE(h[n - 1].is_zero()) << "deg h <= n-2 for a satisfied QAP, L=" << L;
    // Unsatisfied (c perturbed): h is still the coset quotient, computed the
    // reference way: iNTT, g^k, NTT, divide by g^n - 1, iNTT, g^-k.
    std::vector<fr_t> c2 = c;
    c2[0] += fr_t::one();
    const std::vector<fr_t> h2 = ntt_h_host(a, b, c2, root_convention_t::bellman);
    auto on_coset = [&](const std::vector<fr_t>& v) {
      return ref_ntt(ref_ntt(v, ntt_dir_t::inverse, ntt_coset_t::none, root_convention_t::bellman, L),
                     ntt_dir_t::forward, ntt_coset_t::coset, root_convention_t::bellman, L);
    };
    const auto ea = on_coset(a), eb = on_coset(b), ec = on_coset(c2);
    const fr_t zinv = (fr_t::multiplicative_generator().pow(n) - fr_t::one()).inverse();
    std::vector<fr_t> q(n);
    for (size_t i = 0; i < n; ++i) q[i] = (ea[i] * eb[i] - ec[i]) * zinv;
    EXPECT_EQ(h2, ref_ntt(q, ntt_dir_t::inverse, ntt_coset_t::coset, root_convention_t::bellman, L)) << "L=" << L;
  }
}

TEST(CudaNtt, GrothHSnarkjs) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (unsigned L : {1u, 2u, 11u, 16u}) {
    const size_t n = size_t(1) << L;
    const auto a = random_vec(rng, n), b = random_vec(rng, n), c = random_vec(rng, n);
    const auto h = ntt_h_host(a, b, c, root_convention_t::snarkjs);
    // values on the odd coset w_2n·H: iNTT, multiply k by w_2n^k, NTT.
    auto odd = [&](const std::vector<fr_t>& v) {
      return ref_ntt(ref_ntt(v, ntt_dir_t::inverse, ntt_coset_t::none, root_convention_t::snarkjs, L),
                     ntt_dir_t::forward, ntt_coset_t::coset, root_convention_t::snarkjs, L);
    };
    const auto ea = odd(a), eb = odd(b), ec = odd(c);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += h[i] != ea[i] * eb[i] - ec[i];
    EXPECT_EQ(bad, 0u) << "L=" << L;
    // Spot check of the coset itself: A evaluated at w_2n·w^i.
    const auto A = ref_ntt(a, ntt_dir_t::inverse, ntt_coset_t::none, root_convention_t::snarkjs, L);
    const fr_t pt = fr_t::root_of_unity(L + 1) * fr_t::root_of_unity(L).pow(n / 2 + (n > 2 ? 1 : 0));
    EXPECT_EQ(ea[n / 2 + (n > 2 ? 1 : 0)], eval(A, pt));
  }
}

// The host-built domain (what the StarPU key bundle registers) must be the
// device-built one byte for byte, small and full tables alike, in both
// conventions and on both sides of the full-table threshold (L - 1 > 16).
TEST(CudaNtt, HostBuiltDomainEqualsDeviceBuilt) {
  SZK_REQUIRE_GPU();
  stream_t s;
  for (root_convention_t conv : {root_convention_t::snarkjs, root_convention_t::bellman})
    for (unsigned L : {1u, 2u, 5u, 17u, 18u, 20u}) {
      const size_t bytes = ntt_domain_bytes(L);
      std::vector<uint8_t> host(bytes), dev(bytes);
      ASSERT_EQ(ntt_domain_build_host(host.data(), L, conv), cudaSuccess);
      device_buffer_t d(bytes);
      // On s: s does not wait for the legacy default stream, so a plain
      // cudaMemset could land after the domain's copy.
      ASSERT_EQ(cudaMemsetAsync(d.get(), 0, bytes, s.get()), cudaSuccess);
      ASSERT_EQ(ntt_domain_init(d.get(), L, conv, s.get()), cudaSuccess);
      s.sync();
      d.download(dev.data(), bytes);
      EXPECT_TRUE(host == dev) << "L=" << L << " conv=" << int(conv);
    }
}

// A lean domain (no full twiddle tables: a twiddle above 2^17 is lo·hi)
// gives the same transforms and the same H phase as the full one, on both
// sides of the threshold (below 2^18 the two forms are the same bytes), in
// every order, direction and convention, on fresh random inputs.
TEST(CudaNtt, LeanTablesGiveTheFullTablesResults) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  EXPECT_EQ(ntt_domain_bytes(17, ntt_tables_t::lean), ntt_domain_bytes(17));
  EXPECT_LT(ntt_domain_bytes(18, ntt_tables_t::lean), ntt_domain_bytes(18));
  EXPECT_LT(ntt_domain_bytes(27, ntt_tables_t::lean) * 256, ntt_domain_bytes(27));  // ~9 MiB against 4 GiB
  for (unsigned L : {17u, 18u, 19u, 21u})
    for (auto dir : {ntt_dir_t::forward, ntt_dir_t::inverse})
      for (auto order :
           {ntt_order_t::natural_to_reversed, ntt_order_t::reversed_to_natural, ntt_order_t::natural_to_natural})
        for (auto conv : {root_convention_t::snarkjs, root_convention_t::bellman}) {
          const auto coset = L % 2 ? ntt_coset_t::coset : ntt_coset_t::none;
          std::vector<fr_t> full = random_vec(rng, size_t(1) << L), lean = full;
          ntt_host(full, dir, order, coset, conv);
          ntt_host(lean, dir, order, coset, conv, ntt_tables_t::lean);
          EXPECT_TRUE(full == lean) << "L=" << L << " dir=" << int(dir) << " order=" << int(order)
                                    << " conv=" << int(conv);
        }
  for (unsigned L : {18u, 20u})
    for (auto conv : {root_convention_t::snarkjs, root_convention_t::bellman}) {
      const size_t n = size_t(1) << L;
      const auto a = random_vec(rng, n), b = random_vec(rng, n), c = random_vec(rng, n);
      EXPECT_TRUE(ntt_h_host(a, b, c, conv) == ntt_h_host(a, b, c, conv, ntt_tables_t::lean))
          << "L=" << L << " conv=" << int(conv);
    }
  // The host-built lean domain is the device-built one.
  stream_t s;
  const size_t bytes = ntt_domain_bytes(19, ntt_tables_t::lean);
  std::vector<uint8_t> host(bytes), dev(bytes);
  ASSERT_EQ(ntt_domain_build_host(host.data(), 19, root_convention_t::bellman, ntt_tables_t::lean), cudaSuccess);
  device_buffer_t d(bytes);
  ASSERT_EQ(ntt_domain_init(d.get(), 19, root_convention_t::bellman, s.get(), ntt_tables_t::lean), cudaSuccess);
  s.sync();
  d.download(dev.data(), bytes);
  EXPECT_TRUE(host == dev);
}

// The H phase in passes (a, b, c in host memory, page-locked) is ntt_h
// element for element, in both forms: one device vector with staging
// chunks (one chunk or many, a chunk that does not divide n included) and
// two device vectors whose copies run on a stream of their own; both
// conventions, full and lean tables, on fresh random inputs at edge sizes;
// and the same with a already on the device (h left there). At 2^22 the
// two-vector form's copies take long enough to overlap the transforms, so
// a copy ordered wrongly would overwrite a vector in use.
TEST(CudaNtt, HPhaseInPassesEqualsTheWholeOne) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (unsigned L : {1u, 2u, 11u, 18u, 20u, 22u})
    for (auto conv : {root_convention_t::snarkjs, root_convention_t::bellman}) {
      const size_t n = size_t(1) << L;
      const auto a = random_vec(rng, n), b = random_vec(rng, n), c = random_vec(rng, n);
      const auto want = ntt_h_host(a, b, c, conv);
      for (auto tables : {ntt_tables_t::full, ntt_tables_t::lean}) {
        for (bool a_on_device : {false, true}) {
          for (size_t chunk : {n, n / 4 + 3, size_t(1) << 16})
            EXPECT_TRUE(ntt_h_passes_host(a, b, c, conv, tables, chunk, 1, a_on_device) == want)
                << "L=" << L << " conv=" << int(conv) << " tables=" << int(tables) << " chunk=" << chunk
                << " a on the device: " << a_on_device;
          EXPECT_TRUE(ntt_h_passes_host(a, b, c, conv, tables, 0, 2, a_on_device) == want)
              << "two vectors, L=" << L << " conv=" << int(conv) << " tables=" << int(tables)
              << " a on the device: " << a_on_device;
        }
      }
    }
  EXPECT_EQ(ntt_h_passes_scratch_bytes(20, size_t(1) << 16), 32 * ((size_t(1) << 20) + (size_t(2) << 16)));
  EXPECT_EQ(ntt_h_passes_scratch_bytes(20, size_t(1) << 16, 2), 64 * (size_t(1) << 20));
  EXPECT_EQ(ntt_h_passes_scratch_bytes(20, size_t(1) << 16, 3), 0u);
  EXPECT_EQ(ntt_h_passes_a_on_device_scratch_bytes(20, size_t(1) << 16, 1), 32 * (size_t(2) << 16));
  EXPECT_EQ(ntt_h_passes_a_on_device_scratch_bytes(20, size_t(1) << 16, 2), 32 * (size_t(1) << 20));
  EXPECT_EQ(ntt_h_passes_a_on_device_scratch_bytes(20, size_t(1) << 16, 3), 0u);
  std::vector<fr_t> x(4);
  EXPECT_EQ(
      ntt_h_passes(x.data(), x.data(), x.data(), 2, root_convention_t::bellman, x.data(), x.data(), 1, 4, nullptr),
      cudaErrorInvalidValue);  // scratch too small
  EXPECT_EQ(ntt_h_passes(x.data(), x.data(), x.data(), 2, root_convention_t::bellman, x.data(), x.data(), 32 * 8 - 1, 4,
                         nullptr, {}, 2),
            cudaErrorInvalidValue);  // two vectors of 4 need 256 bytes
  EXPECT_EQ(ntt_h_passes(x.data(), x.data(), x.data(), 2, root_convention_t::bellman, x.data(), x.data(), 1 << 20, 4,
                         nullptr, {}, 3),
            cudaErrorInvalidValue);  // no three-vector form
  EXPECT_EQ(ntt_h_passes_a_on_device(x.data(), nullptr, x.data(), x.data(), 2, root_convention_t::bellman, x.data(),
                                     x.data(), 1 << 20, 4, nullptr, {}, 1),
            cudaErrorInvalidValue);  // the one-vector form needs the spare host array
  EXPECT_EQ(ntt_h_passes_a_on_device(x.data(), x.data(), x.data(), x.data(), 2, root_convention_t::bellman, x.data(),
                                     x.data(), 32 * 4 - 1, 4, nullptr, {}, 2),
            cudaErrorInvalidValue);  // V1 of 4 needs 128 bytes
}

TEST(CudaNtt, RejectsBadSizes) {
  SZK_REQUIRE_GPU();
  std::vector<fr_t> v(3);
  EXPECT_THROW(
      ntt_host(v, ntt_dir_t::forward, ntt_order_t::natural_to_natural, ntt_coset_t::none, root_convention_t::snarkjs),
      std::runtime_error);
  EXPECT_EQ(ntt_domain_bytes(0), 0u);
  EXPECT_EQ(ntt_domain_bytes(28), 0u);
  EXPECT_EQ(ntt(nullptr, 28, ntt_dir_t::forward, ntt_order_t::natural_to_natural, ntt_coset_t::none, nullptr, nullptr),
            cudaErrorInvalidValue);
}

}  // namespace
}  // namespace starzk::gpu::test
