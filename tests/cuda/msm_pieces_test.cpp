// The device MSMs in pieces (msm_pieces<P>,
// cuda/msm_jacobian.cu), typed over G1 and G2:
//   - against the host MSM (msm_pippenger) at edge sizes 1, 2, 33, 1000,
//     4097, pieces of 1, 2, 31, 32, 33, n - 1, n, n + 5 terms and of
//     exactly split_from terms (a piece boundary at split_from), no split
//     and split_from = 0, 5, n, random and boolean-heavy scalars, bases in
//     device memory and streamed from page-locked host memory;
//   - at 2^20 with dense scalars, where the G1 pieces run batch-affine
//     levels, and in the lean form (no levels), against the whole MSM on
//     the device;
//   - the scratch query: pieces need less than the whole, and streaming
//     adds exactly the two staging buffers;
//   - calls back to back on one stream and one scratch, streamed after
//     device-resident and the other way round, each against the host MSM;
//   - pieces sharing one set of buckets, with a piece whose scalars give it
//     another window than the set's (it reduces apart), and the scratch
//     that set takes;
//   - several scalar vectors over each staged piece (msm_pieces_sets), at
//     edge sizes, split or not, between one-vector calls in pieces of other
//     lengths on the same scratch, each vector against the host MSM;
//   - bad arguments (scratch one byte short, null bases, no vector or a
//     null one, several vectors through the one-vector call) refused.
// Every case draws fresh points and scalars from a seeded generator.
#include <algorithm>
#include <set>
#include <vector>

#include "msm/msm_pieces.hpp"
#include "msm/pippenger.hpp"
#include "msm_curve_test_util.hpp"

namespace starzk::gpu::test {
namespace {

template <class P>
class CudaMsmPieces : public ::testing::Test {};
using curves_t = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(CudaMsmPieces, curves_t);

TYPED_TEST(CudaMsmPieces, EqualTheHostMsmAtEdgeSizes) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (size_t n : {1, 2, 33, 1000, 4097}) {
    const auto bases = make_bases<P>(rng, n, 500, n > 100 ? 97 : 0);
    const std::span<const affine_t<P>> b(bases);
    for (mix_t m : {random_mix, boolean_heavy}) {
      const auto s = make_scalars(rng, n, m);
      const jacobian_t<P> want = msm_pippenger<P>(b, s);
      for (size_t from : {msm_no_split, size_t(0), std::min<size_t>(n, 5), n}) {
        std::set<size_t> pieces = {31, 32, 33, std::max<size_t>(n - 1, 1), n, n + 5};
        if (n <= 33) pieces.insert(1);  // one piece per term: n host waits
        if (n <= 1000) pieces.insert(2);
        if (from != msm_no_split && from >= 1 && from <= n) pieces.insert(from);
        for (size_t piece : pieces)
          for (bool on_host : {false, true}) {
            const jacobian_t<P> got = msm_pieces_host<P>(bases, s, from, msm_pieces_t{piece, on_host}, {});
            EXPECT_TRUE(same<P>(got, want)) << P::name << " n=" << n << " piece=" << piece << " split_from=" << from
                                            << " on_host=" << on_host << " mix=" << m.zero_pct << "/" << m.one_pct;
          }
      }
    }
  }
}

TYPED_TEST(CudaMsmPieces, LargeDensePiecesEqualTheWhole) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = size_t(1) << 20;
  const auto bases = make_bases<P>(rng, n, 4096);
  const auto s = make_scalars(rng, n, random_mix);
  const jacobian_t<P> whole = msm_jacobian_host<P>(bases, s, msm_no_split, {});
  msm_tuning_t lean;
  lean.affine_levels = 0;
  for (size_t piece : {(n >> 1) + 3, (n >> 2) + 1})
    for (bool on_host : {false, true})
      for (const msm_tuning_t& t : {msm_tuning_t{}, lean}) {
        const jacobian_t<P> got = msm_pieces_host<P>(bases, s, msm_no_split, msm_pieces_t{piece, on_host}, t);
        EXPECT_TRUE(same<P>(got, whole)) << P::name << " piece=" << piece << " on_host=" << on_host
                                         << " levels=" << t.affine_levels;
      }
  // Split, boolean-heavy, with the boundary between pieces at split_from.
  const auto w = make_scalars(rng, n, boolean_heavy);
  const size_t from = (n >> 2) + 1;
  const jacobian_t<P> split_whole = msm_jacobian_host<P>(bases, w, from, {});
  EXPECT_TRUE(same<P>(msm_pieces_host<P>(bases, w, from, msm_pieces_t{from, true}, {}), split_whole));
  EXPECT_TRUE(same<P>(split_whole, msm_jacobian_host<P>(bases, w, msm_no_split, {})));
}

// Consecutive calls on one stream and one scratch, no host wait between
// them (a CUDA worker's consecutive MSM tasks): a streamed call after a
// long device-resident one must not copy its bases into the scratch while
// the first still works in it, nor the other way round.
TYPED_TEST(CudaMsmPieces, BackToBackCallsShareTheScratch) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = size_t(1) << (std::is_same_v<P, g1_params> ? 18 : 16);
  const auto bases = make_bases<P>(rng, n, 1024, 101);
  const std::span<const affine_t<P>> b(bases);
  const std::vector<msm_pieces_t> forms = {{0, false}, {n / 4 + 1, true}, {0, false}, {n / 3, true}, {n / 3, true}};
  std::vector<std::vector<fr_t>> s;
  for (size_t c = 0; c < forms.size(); ++c) s.push_back(make_scalars(rng, n, c % 2 ? boolean_heavy : random_mix));
  const auto got = msm_pieces_sequence_host<P>(bases, s, msm_no_split, forms, {});
  ASSERT_EQ(got.size(), forms.size());
  for (size_t c = 0; c < forms.size(); ++c)
    EXPECT_TRUE(same<P>(got[c], msm_pippenger<P>(b, s[c])))
        << P::name << " call " << c << " piece=" << forms[c].piece << " on_host=" << forms[c].bases_on_host;
}

// Vectors 1-3 and 4-5 run as calls of three and two vectors; the calls
// before and after them, of one vector in pieces of other lengths, leave
// other bases in the staging buffers, so a vector that read a piece's
// buffer before its copy, or after the next piece's, would fail.
TYPED_TEST(CudaMsmPieces, SetsShareEachStagedPiece) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (size_t n : {1, 33, 4097}) {
    const auto bases = make_bases<P>(rng, n, 500, n > 100 ? 97 : 0);
    const std::span<const affine_t<P>> b(bases);
    for (size_t from : {msm_no_split, std::min<size_t>(n, 5)})
      for (bool on_host : {false, true})
        for (size_t piece : {size_t(32), n / 3 + 1, n}) {
          const std::vector<msm_pieces_t> forms = {
              {piece / 2 + 1, on_host}, {piece, on_host, false, 3}, {piece, on_host, false, 2}, {n / 2 + 1, on_host}};
          std::vector<std::vector<fr_t>> s;
          for (size_t c = 0; c < 7; ++c) s.push_back(make_scalars(rng, n, c % 2 ? boolean_heavy : random_mix));
          const auto got = msm_pieces_sequence_host<P>(bases, s, from, forms, {});
          ASSERT_EQ(got.size(), s.size());
          for (size_t c = 0; c < s.size(); ++c)
            EXPECT_TRUE(same<P>(got[c], msm_pippenger<P>(b, s[c])))
                << P::name << " n=" << n << " piece=" << piece << " split_from=" << from << " on_host=" << on_host
                << " vector " << c;
        }
  }
}

// The pieces share one set of buckets per vector (msm_pieces_t::
// shared_buckets, cuda/msm_sink.cuh), which holds one window c: the first
// piece to add into it fixes c. A boolean-heavy piece among random ones
// takes a narrower window from its scalars (6 bits against the model's 8
// at these sizes), so it must reduce its own buckets and be added apart:
// piece orders with the odd piece first, in the middle and last, each
// against the host MSM, shared and not, bases on the device and streamed.
TYPED_TEST(CudaMsmPieces, PiecesOfAnotherWindowReduceApart) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t piece = size_t(1) << (std::is_same_v<P, g1_params> ? 14 : 13), n = 3 * piece;
  const auto bases = make_bases<P>(rng, n, 1024, 97);
  const std::span<const affine_t<P>> b(bases);
  for (size_t odd : {0, 1, 2}) {
    std::vector<fr_t> s;
    for (size_t k = 0; k < 3; ++k) {
      const auto part = make_scalars(rng, piece, k == odd ? boolean_heavy : random_mix);
      s.insert(s.end(), part.begin(), part.end());
    }
    const jacobian_t<P> want = msm_pippenger<P>(b, s);
    for (bool shared : {true, false})
      for (bool on_host : {false, true}) {
        const jacobian_t<P> got =
            msm_pieces_host<P>(bases, s, msm_no_split, msm_pieces_t{piece, on_host, false, 1, shared}, {});
        EXPECT_TRUE(same<P>(got, want)) << P::name << " boolean-heavy piece " << odd << " shared=" << shared
                                        << " on_host=" << on_host;
      }
  }
}

TYPED_TEST(CudaMsmPieces, ScratchQuery) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  const size_t n = size_t(1) << 22;
  for (bool split : {false, true}) {
    const size_t whole = msm_jacobian_scratch_bytes<P>(n, split, {});
    EXPECT_EQ(msm_pieces_scratch_bytes<P>(n, split, msm_pieces_t{}, {}), whole);
    EXPECT_LT(msm_pieces_scratch_bytes<P>(n, split, msm_pieces_t{n / 4}, {}), whole);
    EXPECT_LT(msm_pieces_scratch_bytes<P>(n, split, msm_pieces_t{n / 16}, {}),
              msm_pieces_scratch_bytes<P>(n, split, msm_pieces_t{n / 4}, {}));
    for (size_t piece : {n / 4, n / 3, n}) {
      const size_t count = (n + piece - 1) / piece;
      const size_t one = (piece * sizeof(affine_t<P>) + 255) / 256 * 256;  // sub-buffers start 256-aligned
      const size_t staging = (count > 1 ? 2 : 1) * one;
      EXPECT_EQ(msm_pieces_scratch_bytes<P>(n, split, msm_pieces_t{piece, true}, {}),
                msm_pieces_scratch_bytes<P>(n, split, msm_pieces_t{piece, false}, {}) + staging)
          << "piece " << piece;
    }
  }
  EXPECT_EQ(msm_pieces_scratch_bytes<P>(0, true, msm_pieces_t{5, true}, {}), 0u);
  // Shared buckets (no split, several pieces) take one set per vector;
  // one piece, or the split, takes none.
  const msm_pieces_t own{n / 4, true, false, 1, false}, own2{n / 4, true, false, 2, false};
  const size_t shared1 = msm_pieces_scratch_bytes<P>(n, false, msm_pieces_t{n / 4, true}, {});
  const size_t shared2 = msm_pieces_scratch_bytes<P>(n, false, msm_pieces_t{n / 4, true, false, 2}, {});
  EXPECT_GT(shared1, msm_pieces_scratch_bytes<P>(n, false, own, {}));
  EXPECT_GT(shared2 - msm_pieces_scratch_bytes<P>(n, false, own2, {}),
            shared1 - msm_pieces_scratch_bytes<P>(n, false, own, {}));
  EXPECT_EQ(msm_pieces_scratch_bytes<P>(n, false, msm_pieces_t{n, true}, {}),
            msm_pieces_scratch_bytes<P>(n, false, msm_pieces_t{n, true, false, 1, false}, {}));
  EXPECT_EQ(msm_pieces_scratch_bytes<P>(n, true, msm_pieces_t{n / 4, true}, {}),
            msm_pieces_scratch_bytes<P>(n, true, own, {}));
  // More vectors add their running sums only.
  const size_t one = msm_pieces_scratch_bytes<P>(n, true, msm_pieces_t{n / 4, true}, {});
  const size_t four = msm_pieces_scratch_bytes<P>(n, true, msm_pieces_t{n / 4, true, false, 4}, {});
  EXPECT_GT(four, one);
  EXPECT_LE(four, one + 3 * sizeof(xyzz_t<P>) + 256);
}

TYPED_TEST(CudaMsmPieces, RejectsBadArguments) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  const size_t n = 100;
  const msm_pieces_t pc{30, false};
  const size_t need = msm_pieces_scratch_bytes<P>(n, true, pc, {});
  device_buffer_t out(sizeof(jacobian_t<P>)), db(n * sizeof(affine_t<P>)), ds(n * sizeof(fr_t)), scr(need);
  stream_t st;
  EXPECT_EQ(msm_pieces<P>(out.as<jacobian_t<P>>(), db.as<affine_t<P>>(), ds.as<fr_t>(), n, 0, pc, scr.get(), need - 1,
                          st.get(), {}),
            cudaErrorInvalidValue);
  EXPECT_EQ(msm_pieces<P>(out.as<jacobian_t<P>>(), nullptr, ds.as<fr_t>(), n, 0, pc, scr.get(), need, st.get(), {}),
            cudaErrorInvalidValue);
  EXPECT_EQ(msm_pieces<P>(nullptr, db.as<affine_t<P>>(), ds.as<fr_t>(), n, 0, pc, scr.get(), need, st.get(), {}),
            cudaErrorInvalidValue);
  // Vectors: none, a null one, two through the one-vector call.
  const msm_pieces_t none{30, false, false, 0}, two{30, false, false, 2};
  device_buffer_t scr2(msm_pieces_scratch_bytes<P>(n, true, two, {})), out2(2 * sizeof(jacobian_t<P>));
  const fr_t* vectors[2] = {ds.as<fr_t>(), nullptr};
  EXPECT_EQ(msm_pieces_sets<P>(out.as<jacobian_t<P>>(), db.as<affine_t<P>>(), vectors, n, 0, none, scr.get(), need,
                               st.get(), {}),
            cudaErrorInvalidValue);
  EXPECT_EQ(msm_pieces_sets<P>(out2.as<jacobian_t<P>>(), db.as<affine_t<P>>(), vectors, n, 0, two, scr2.get(),
                               scr2.size(), st.get(), {}),
            cudaErrorInvalidValue);
  EXPECT_EQ(msm_pieces<P>(out2.as<jacobian_t<P>>(), db.as<affine_t<P>>(), ds.as<fr_t>(), n, 0, two, scr2.get(),
                          scr2.size(), st.get(), {}),
            cudaErrorInvalidValue);
  // n = 0 gives O without scratch.
  const jacobian_t<P> empty = msm_pieces_host<P>({}, {}, 0, msm_pieces_t{7, true}, {});
  EXPECT_TRUE(empty.is_infinity());
}

}  // namespace
}  // namespace starzk::gpu::test
