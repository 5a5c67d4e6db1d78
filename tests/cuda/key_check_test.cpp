// Device key checks and decompression (cuda/key_check.cu) against the host:
// the check of a point against affine_t::is_on_curve / is_in_subgroup
// (ec/subgroup.cpp) and a canonical-limb test, decompression against the
// zcash decoder of ec/encoding.cpp, on fresh random points of G1 and G2:
// subgroup points (cofactor cleared, then an arithmetic progression), curve
// points outside the subgroup (no clearing), and every fault planted at
// chosen indices: the first, the last, both sides of a piece boundary (small
// pieces forced with device_bytes), two faults in different pieces.
// The differential tests walk every fault of an array: scan, compare the
// first failing index and fault with the host, scan again from the next
// index. Sizes 0, 1, 2 and several pieces.
// Without a device only the constant and argument checks run.
#include <cstring>
#include <vector>

#include "cuda/field_constants.hpp"
#include "key_check_test_util.hpp"

namespace starzk::gpu::test {
namespace {

template <class Ops>
class CudaKeyCheck : public ::testing::Test {};
using groups = ::testing::Types<g1_ops, g2_ops>;
TYPED_TEST_SUITE(CudaKeyCheck, groups);

// ---- without a device -------------------------------------------------------

// The device constants (field_constants.hpp) are the host curve constants
// (ec/curve.cpp) byte for byte; field_constants_check.cpp checks only their
// defining properties, which leave two or three candidates each.
TEST(CudaKeyCheckConstants, DeviceConstantsMatchHost) {
  const auto same = [](const fp_t& h, const uint32_t(&d)[12]) { return std::memcmp(&h, d, sizeof h) == 0; };
  EXPECT_TRUE(same(g1_params::endo_beta(), consts::fp_beta));
  EXPECT_TRUE(same(g1_params::b(), consts::fp_four));
  EXPECT_TRUE(g2_params::b() == (fp2_t{g1_params::b(), g1_params::b()}));
  EXPECT_TRUE(g2_params::psi_cx().c0.is_zero());
  EXPECT_TRUE(same(g2_params::psi_cx().c1, consts::fp_psi_cx_c1));
  EXPECT_TRUE(same(g2_params::psi_cy().c0, consts::fp_psi_cy_c0));
  EXPECT_TRUE(same(g2_params::psi_cy().c1, consts::fp_psi_cy_c1));
}

// n = 0 touches no device; a missing result or input is refused first.
TYPED_TEST(CudaKeyCheck, EmptyAndBadArguments) {
  key_check_options_t o;
  point_scan_t s;
  s.first_bad = 7;
  EXPECT_EQ(TypeParam::check(nullptr, 0, o, &s), cudaSuccess);
  EXPECT_TRUE(s.ok());
  s.first_bad = 7;
  EXPECT_EQ(TypeParam::decompress(nullptr, 0, nullptr, o, &s), cudaSuccess);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(TypeParam::check(nullptr, 0, o, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(TypeParam::check(nullptr, 3, o, &s), cudaErrorInvalidValue);
  typename TypeParam::aff out[1];
  EXPECT_EQ(TypeParam::decompress(nullptr, 1, out, o, &s), cudaErrorInvalidValue);
  const uint8_t in[TypeParam::compressed] = {0xc0};
  EXPECT_EQ(TypeParam::decompress(in, 1, nullptr, o, &s), cudaErrorInvalidValue);
  EXPECT_STREQ(describe(point_fault_t::none), "ok");
}

// ---- check ------------------------------------------------------------------

TYPED_TEST(CudaKeyCheck, SubgroupPointsPass) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = TypeParam::n_test;
  const auto pts = subgroup_points<TypeParam>(rng, n);
  for (size_t m : {size_t(1), size_t(2), size_t(33), n}) {
    const std::vector<typename TypeParam::aff> head(pts.begin(), pts.begin() + m);
    for (bool inf : {false, true}) {
      key_check_options_t o;
      o.allow_infinity = inf;
      EXPECT_TRUE(run_check<TypeParam>(head, o).ok()) << "n=" << m;
      EXPECT_TRUE(run_check<TypeParam>(head, small_pieces<TypeParam>(o, 16, false)).ok()) << "n=" << m;
    }
  }
}

// One curve point outside the subgroup at index i: first_bad = i with the
// subgroup test, none without it. Pieces of 64 points.
TYPED_TEST(CudaKeyCheck, NonSubgroupPointAtChosenIndex) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = TypeParam::n_test, piece = 64;
  const auto good = subgroup_points<TypeParam>(rng, n);
  const auto bad = non_subgroup_point<TypeParam>(rng);
  key_check_options_t o = small_pieces<TypeParam>({}, piece, false), no_sub = o;
  no_sub.subgroup = false;
  for (size_t i : {size_t(0), piece - 1, piece, piece + 1, 2 * piece, n / 2, n - 1}) {
    auto pts = good;
    pts[i] = bad;
    for (const key_check_options_t& oo : {o, key_check_options_t{}}) {
      const point_scan_t s = run_check<TypeParam>(pts, oo);
      EXPECT_EQ(s.first_bad, i) << "device_bytes=" << oo.device_bytes;
      EXPECT_EQ(s.fault, point_fault_t::not_in_subgroup) << "i=" << i;
    }
    EXPECT_TRUE(run_check<TypeParam>(pts, no_sub).ok()) << "i=" << i;
  }
  EXPECT_EQ(run_check<TypeParam>({bad}, o).first_bad, 0u);  // n = 1
  // Two bad points in pieces of different slots: the lower index wins,
  // whichever piece finishes first.
  for (auto [a, b] : {std::pair<size_t, size_t>{n - 2, piece + 3}, {2 * piece + 1, 3 * piece + 5}}) {
    auto pts = good;
    pts[a] = bad;
    pts[b] = bad;
    EXPECT_EQ(run_check<TypeParam>(pts, o).first_bad, std::min(a, b));
  }
}

// Every kind of fault at random indices, against the host oracle, with and
// without the subgroup test and O allowed or not.
TYPED_TEST(CudaKeyCheck, RandomFaultsAgainstHost) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = TypeParam::n_test;
  auto pts = subgroup_points<TypeParam>(rng, n);
  std::uniform_int_distribution<size_t> where(0, n - 1);
  for (int k = 0; k < 28; ++k) pts[where(rng)] = faulty_point<TypeParam>(rng, pts[where(rng)], k % 7);
  pts[n - 1] = faulty_point<TypeParam>(rng, pts[0], 1);  // off the curve, last index
  const host_facts_t facts = host_facts<TypeParam>(pts);
  for (bool sub : {true, false})
    for (bool inf : {true, false}) {
      key_check_options_t o;
      o.subgroup = sub;
      o.allow_infinity = inf;
      walk_faults(n, facts, o, [&](size_t from) {
        const std::vector<typename TypeParam::aff> tail(pts.begin() + from, pts.end());
        return run_check<TypeParam>(tail, small_pieces<TypeParam>(o, 50, false));
      });
    }
}

// ---- decompress ---------------------------------------------------------------

// Random subgroup points, O, and P next to -P (one of them has the larger
// root): host encoding, device decoding, the same bytes as the points.
TYPED_TEST(CudaKeyCheck, DecompressMatchesHostPoints) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = TypeParam::n_test;
  auto pts = subgroup_points<TypeParam>(rng, n);
  pts[5] = TypeParam::aff::infinity();
  pts[n - 1] = TypeParam::aff::infinity();
  pts[7] = -pts[6];
  const std::vector<uint8_t> enc = encode_all<TypeParam>(pts);
  size_t larger = 0;
  for (size_t i = 0; i < n; ++i) larger += (enc[i * TypeParam::compressed] & 0x20) != 0;
  ASSERT_GT(larger, 0u);
  ASSERT_LT(larger, n - 2);  // both sort classes present
  for (size_t m : {size_t(1), size_t(2), n}) {
    for (const key_check_options_t& o : {key_check_options_t{}, small_pieces<TypeParam>({}, 40, true)}) {
      std::vector<typename TypeParam::aff> out(m);
      const point_scan_t s = run_decompress<TypeParam>(enc.data(), m, out.data(), o);
      ASSERT_TRUE(s.ok()) << "n=" << m << " first_bad=" << s.first_bad << ": " << describe(s.fault);
      EXPECT_EQ(std::memcmp(out.data(), pts.data(), m * sizeof(pts[0])), 0) << "n=" << m;
    }
  }
  key_check_options_t no_inf;
  no_inf.allow_infinity = false;
  std::vector<typename TypeParam::aff> out(n);
  const point_scan_t s = run_decompress<TypeParam>(enc.data(), n, out.data(), no_inf);
  EXPECT_EQ(s.first_bad, 5u);
  EXPECT_EQ(s.fault, point_fault_t::infinity);
}

// Corrupted flags, x >= p, x without a square root, points outside the
// subgroup, flipped sort bits, at random indices: every fault, and the
// points of the last (clean) tail, as the host decoder says.
TYPED_TEST(CudaKeyCheck, DecompressFaultsAgainstHostDecoder) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = TypeParam::n_test, c = TypeParam::compressed;
  const auto pts = subgroup_points<TypeParam>(rng, n);
  std::vector<uint8_t> enc = encode_all<TypeParam>(pts);
  std::uniform_int_distribution<size_t> where(0, n - 1);
  for (int k = 0; k < 30; ++k) corrupt_encoding<TypeParam>(rng, &enc[where(rng) * c], k % corruption_kinds);
  corrupt_encoding<TypeParam>(rng, &enc[(n - 1) * c], 0);  // the last index
  const host_decoded_t<TypeParam> want = host_decode_all<TypeParam>(enc);
  for (bool sub : {true, false})
    for (bool inf : {true, false}) {
      key_check_options_t o;
      o.subgroup = sub;
      o.allow_infinity = inf;
      walk_faults(n, want.facts, o, [&](size_t from) {
        std::vector<typename TypeParam::aff> out(n - from);
        const point_scan_t s =
            run_decompress<TypeParam>(&enc[from * c], n - from, out.data(), small_pieces<TypeParam>(o, 50, true));
        if (s.ok()) {  // the clean tail: the points themselves
          for (size_t i = from; i < n; ++i) EXPECT_TRUE(out[i - from] == want.points[i]) << "i=" << i;
        }
        return s;
      });
    }
}

// One context reused by calls of both kinds and of growing and shrinking
// piece sizes, faulty and clean: the same answers and points as calls
// without one (its buffers outlive each call; a failed call leaves pieces
// behind that the next call must not see).
TYPED_TEST(CudaKeyCheck, ContextReuseGivesTheSameAnswers) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = TypeParam::n_test;
  auto pts = subgroup_points<TypeParam>(rng, n);
  const std::vector<uint8_t> enc = encode_all<TypeParam>(pts);
  auto bad = pts;
  bad[n / 3] = non_subgroup_point<TypeParam>(rng);
  key_check_context_t ctx;
  for (int round = 0; round < 2; ++round)
    for (size_t piece : {size_t(16), size_t(300), size_t(7)}) {
      const key_check_options_t o = small_pieces<TypeParam>({}, piece, true);
      point_scan_t s;
      check_cuda(TypeParam::check(bad.data(), n, o, &s, &ctx), "check (context)");
      EXPECT_EQ(s.first_bad, n / 3) << "piece " << piece;
      check_cuda(TypeParam::check(pts.data(), n, o, &s, &ctx), "check (context)");
      EXPECT_TRUE(s.ok()) << "piece " << piece << ": " << s.first_bad;
      std::vector<typename TypeParam::aff> out(n);
      check_cuda(TypeParam::decompress(enc.data(), n, out.data(), o, &s, &ctx), "decompress (context)");
      ASSERT_TRUE(s.ok()) << "piece " << piece << ": " << s.first_bad;
      EXPECT_EQ(std::memcmp(out.data(), pts.data(), n * sizeof(pts[0])), 0) << "piece " << piece;
      check_cuda(TypeParam::decompress(enc.data(), 1, out.data(), {}, &s, &ctx), "decompress one (context)");
      EXPECT_TRUE(s.ok());
    }
}

// Decompression with the device's own cap (half of the free memory) and a
// cap too small for one point.
TYPED_TEST(CudaKeyCheck, DeviceBudget) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const auto pts = subgroup_points<TypeParam>(rng, 3);
  key_check_options_t tiny;
  tiny.device_bytes = 1;
  point_scan_t s;
  EXPECT_EQ(TypeParam::check(pts.data(), pts.size(), tiny, &s), cudaErrorMemoryAllocation);
  key_check_options_t no_device;
  no_device.device = 1 << 20;
  EXPECT_NE(TypeParam::check(pts.data(), pts.size(), no_device, &s), cudaSuccess);
  (void)cudaGetLastError();
  EXPECT_TRUE(run_check<TypeParam>(pts, key_check_options_t{}).ok());
}

}  // namespace
}  // namespace starzk::gpu::test
