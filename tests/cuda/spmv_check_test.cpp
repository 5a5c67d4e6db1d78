// The device R1CS check of the witness map's rows (gpu::first_unsatisfied_row,
// cuda/spmv.cu) against the same check on the host: rows where a·b = c
// everywhere but at a few chosen rows, the lowest of which must come back;
// every row good gives UINT64_MAX. Sizes: none, one, around the launch's
// block of 256 rows, and a grid-strided size. Part of test_cuda_spmv
// (label gpu; skipped without a CUDA device).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "gpu_test_util.hpp"

namespace starzk::gpu::test {
namespace {

// a_i·b_i = c_i on every row, then c made wrong at `bad` rows (at a zero
// product too: a_i = 0 with c_i = 1).
struct rows_t {
  std::vector<fr_t> a, b, c;
  rows_t(size_t n, std::mt19937_64& rng) : a(n), b(n), c(n) {
    for (size_t i = 0; i < n; ++i) {
      a[i] = i % 7 == 3 ? fr_t::zero() : fr_t::random(rng);
      b[i] = i % 5 == 1 ? fr_t::one() : fr_t::random(rng);
      c[i] = a[i] * b[i];
    }
  }
  void spoil(size_t i) { c[i] = c[i] + fr_t::one(); }
};

uint64_t device_first(const rows_t& r, uint64_t rows) {
  const size_t bytes = std::max<size_t>(1, r.a.size()) * sizeof(fr_t);
  device_buffer_t a(bytes), b(bytes), c(bytes), first(sizeof(uint64_t));
  if (!r.a.empty()) {
    a.upload(r.a.data(), r.a.size() * sizeof(fr_t));
    b.upload(r.b.data(), r.b.size() * sizeof(fr_t));
    c.upload(r.c.data(), r.c.size() * sizeof(fr_t));
  }
  stream_t s;
  EXPECT_EQ(first_unsatisfied_row(a.as<fr_t>(), b.as<fr_t>(), c.as<fr_t>(), rows, first.as<uint64_t>(), s.get()),
            cudaSuccess);
  s.sync();
  uint64_t got = 0;
  first.download(&got, sizeof got);
  return got;
}

TEST(CudaSpmv, FirstUnsatisfiedRowIsTheLowestBadRow) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (const size_t n : {size_t(0), size_t(1), size_t(255), size_t(256), size_t(257), size_t(1) << 17}) {
    rows_t r(n, rng);
    EXPECT_EQ(device_first(r, n), UINT64_MAX) << "n=" << n;
    if (n == 0) continue;
    // One bad row at each end and at a random place; then several, the
    // lowest random; a bad row past `rows` is not looked at.
    for (const size_t at : {size_t(0), n - 1, size_t(rng() % n)}) {
      rows_t one = r;
      one.spoil(at);
      EXPECT_EQ(device_first(one, n), at) << "n=" << n;
      if (at > 0) {
        EXPECT_EQ(device_first(one, at), UINT64_MAX) << "n=" << n << " rows=" << at;
      }
    }
    rows_t many = r;
    std::vector<size_t> bad;
    for (int k = 0; k < 20; ++k) bad.push_back(rng() % n);
    for (size_t i : bad) many.spoil(i);
    EXPECT_EQ(device_first(many, n), *std::min_element(bad.begin(), bad.end())) << "n=" << n;
  }
}

TEST(CudaSpmv, FirstUnsatisfiedRowRejectsBadArguments) {
  auto* v = reinterpret_cast<fr_t*>(uintptr_t(0x10000));
  auto* first = reinterpret_cast<uint64_t*>(uintptr_t(0x20000));
  EXPECT_EQ(first_unsatisfied_row(v, v, v, 1, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(first_unsatisfied_row(nullptr, v, v, 1, first, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(first_unsatisfied_row(v, v, nullptr, 1, first, nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace starzk::gpu::test
