// The MSM piece planner (msm/msm_pieces.hpp), as pure functions: piece
// bounds and counts at edge sizes, the split bound of each piece (below,
// at and above split_from), the planner's choice (fewest pieces that fit,
// lean against default by the cost estimate, nothing when even the
// smallest pieces do not fit) against a brute-force search over a
// synthetic scratch model, and, on the CPU MSM, that pieces planned this
// way sum to the whole MSM on G1 and G2, plain and split, with a piece
// boundary at split_from and n not a multiple of the piece.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "msm/msm_pieces.hpp"
#include "msm/pippenger.hpp"
#include "msm/prep_msm.hpp"
#include "msm_test_util.hpp"

namespace starzk {
namespace {

TEST(MsmPieces, BoundsCoverEveryTermOnce) {
  for (size_t n : {size_t(1), size_t(2), size_t(7), size_t(64), size_t(65), size_t(1000)}) {
    for (size_t piece : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(63), size_t(64), n - 1, n, n + 1}) {
      if (piece == 0 && n == 0) continue;
      const size_t count = msm_piece_count(n, piece);
      const size_t l = msm_piece_terms(n, piece);
      ASSERT_GE(l, 1u);
      EXPECT_EQ(count, (n + l - 1) / l) << "n=" << n << " piece=" << piece;
      size_t next = 0;
      for (size_t k = 0; k < count; ++k) {
        const msm_piece_t p = msm_piece(n, piece, msm_split_none, k);
        EXPECT_EQ(p.begin, next) << "n=" << n << " piece=" << piece << " k=" << k;
        EXPECT_GE(p.length, 1u);
        EXPECT_LE(p.length, l);
        if (k + 1 < count) {
          EXPECT_EQ(p.length, l);
        }
        EXPECT_EQ(p.split_from, msm_split_none);
        next = p.begin + p.length;
      }
      EXPECT_EQ(next, n) << "n=" << n << " piece=" << piece;
    }
  }
  EXPECT_EQ(msm_piece_count(0, 5), 0u);
  EXPECT_EQ(msm_piece_count(0, 0), 0u);
  EXPECT_EQ(msm_piece_terms(10, 0), 10u);
  EXPECT_EQ(msm_piece_terms(10, 11), 10u);
}

TEST(MsmPieces, SplitBoundIsRelativeToThePiece) {
  EXPECT_EQ(msm_piece_split_from(msm_split_none, 0), msm_split_none);
  EXPECT_EQ(msm_piece_split_from(msm_split_none, 100), msm_split_none);
  EXPECT_EQ(msm_piece_split_from(5, 0), 5u);  // the piece holding split_from
  EXPECT_EQ(msm_piece_split_from(5, 3), 2u);
  EXPECT_EQ(msm_piece_split_from(5, 5), 0u);  // a piece starting at split_from
  EXPECT_EQ(msm_piece_split_from(5, 6), 0u);  // past it: every term may split
  EXPECT_EQ(msm_piece_split_from(0, 9), 0u);
  // A piece wholly below split_from keeps every term in the tail: its bound
  // is at least its length.
  const msm_piece_t p = msm_piece(20, 4, 13, 2);  // terms 8..11
  EXPECT_EQ(p.begin, 8u);
  EXPECT_EQ(p.length, 4u);
  EXPECT_EQ(p.split_from, 5u);
  // Term j of piece k splits iff its global index b + j >= split_from.
  for (size_t n : {size_t(1), size_t(9), size_t(40)})
    for (size_t piece : {size_t(1), size_t(3), size_t(8)})
      for (size_t from : {size_t(0), size_t(1), size_t(3), size_t(8), size_t(9), n, n + 4}) {
        for (size_t k = 0; k < msm_piece_count(n, piece); ++k) {
          const msm_piece_t q = msm_piece(n, piece, from, k);
          for (size_t j = 0; j < q.length; ++j)
            EXPECT_EQ(j >= q.split_from, q.begin + j >= from) << n << " " << piece << " " << from << " " << k;
        }
      }
}

TEST(MsmPieces, SmallestPiece) {
  EXPECT_EQ(msm_smallest_piece(0, 16), 0u);
  EXPECT_EQ(msm_smallest_piece(10, 16), 10u);  // n below min_piece: one piece
  EXPECT_EQ(msm_smallest_piece(16, 16), 16u);
  EXPECT_EQ(msm_smallest_piece(17, 16), 9u);  // 2 pieces: ceil(17/2)
  EXPECT_EQ(msm_smallest_piece(64, 16), 16u);
  EXPECT_EQ(msm_smallest_piece(65, 16), 13u);  // 5 pieces: ceil(65/5)
}

// A synthetic scratch model: the default form costs 60 B per term, the lean
// one 10, both plus a fixed 1000 and a step when the piece passes 4096
// terms (as the batch-affine arrays switch on); the last, shorter piece
// is included the way the device query does (max of both lengths).
struct model_t {
  size_t n;
  uint64_t per(size_t len, bool lean) const {
    return 1000 + len * (lean ? 10 : 60) + (!lean && len > 4096 ? 50000 : 0);
  }
  uint64_t operator()(size_t piece, bool lean) const {
    const size_t count = (n + piece - 1) / piece, last = n - (count - 1) * piece;
    return std::max(per(piece, lean), per(last, lean));
  }
};

// The smallest P whose pieces ceil(n/P) fit, by walking every P.
size_t brute_fewest(size_t n, uint64_t budget, size_t min_piece, bool lean, const model_t& m) {
  const size_t p_max = (n + msm_smallest_piece(n, min_piece) - 1) / msm_smallest_piece(n, min_piece);
  for (size_t p = 1; p <= p_max; ++p) {
    const size_t piece = (n + p - 1) / p;
    if (m(piece, lean) <= budget) return (n + piece - 1) / piece;
  }
  return 0;
}

TEST(MsmPieces, PlannerFindsTheFewestPiecesThatFit) {
  for (size_t n : {size_t(1), size_t(100), size_t(1000), size_t(10007), size_t(65536)}) {
    const model_t m{n};
    for (size_t min_piece : {size_t(1), size_t(64), size_t(1000)}) {
      for (uint64_t budget : {uint64_t(0), uint64_t(1500), uint64_t(5000), uint64_t(20000), uint64_t(70000),
                              uint64_t(300000), uint64_t(5000000)}) {
        const msm_pieces_plan_t p = plan_msm_pieces(n, budget, min_piece, 1.0, m);
        const size_t d = brute_fewest(n, budget, min_piece, false, m), l = brute_fewest(n, budget, min_piece, true, m);
        const std::string at =
            "n=" + std::to_string(n) + " min=" + std::to_string(min_piece) + " budget=" + std::to_string(budget);
        if (d == 0 && l == 0) {
          EXPECT_FALSE(p.fits) << at;
          continue;
        }
        ASSERT_TRUE(p.fits) << at;
        EXPECT_LE(p.bytes, budget) << at;
        EXPECT_EQ(p.bytes, m(p.piece, p.lean)) << at;
        EXPECT_EQ(p.count, (n + p.piece - 1) / p.piece) << at;
        EXPECT_EQ(p.count, p.lean ? l : d) << at;
        // default_factor 1: the lean form only when it needs fewer pieces.
        if (d != 0 && l != 0) {
          EXPECT_EQ(p.lean, l < d) << at;
        }
        EXPECT_GE(p.piece, std::min(n, msm_smallest_piece(n, min_piece))) << at;
      }
    }
  }
}

// With a cap on the piece length: the fewest pieces that fit among those
// no longer than the cap (the smallest pieces when the cap is below them).
TEST(MsmPieces, PlannerKeepsPiecesUnderTheCap) {
  for (size_t n : {size_t(1000), size_t(10007), size_t(65536)}) {
    const model_t m{n};
    for (size_t min_piece : {size_t(1), size_t(64), size_t(1000)}) {
      const size_t smallest = msm_smallest_piece(n, min_piece);
      const size_t p_max = (n + smallest - 1) / smallest;
      for (size_t cap : {size_t(1), size_t(100), size_t(5000), n / 3, n, SIZE_MAX}) {
        for (uint64_t budget : {uint64_t(5000), uint64_t(70000), uint64_t(5000000)}) {
          const msm_pieces_plan_t p = plan_msm_pieces(n, budget, min_piece, 1.0, m, cap);
          const std::string at = "n=" + std::to_string(n) + " min=" + std::to_string(min_piece) +
                                 " cap=" + std::to_string(cap) + " budget=" + std::to_string(budget);
          // The brute force: the first P from ceil(n / cap) (at most p_max)
          // whose pieces fit, for either form.
          const size_t p_min = std::min(p_max, cap == SIZE_MAX ? 1 : (n + cap - 1) / cap);
          size_t want = 0;
          for (size_t q = p_min; q <= p_max && want == 0; ++q) {
            const size_t piece = (n + q - 1) / q;
            if (m(piece, false) <= budget || m(piece, true) <= budget) want = (n + piece - 1) / piece;
          }
          if (want == 0) {
            EXPECT_FALSE(p.fits) << at;
            continue;
          }
          ASSERT_TRUE(p.fits) << at;
          EXPECT_LE(p.bytes, budget) << at;
          EXPECT_LE(p.piece, std::max(cap, smallest)) << at;
          EXPECT_GE(p.piece, std::min(n, smallest)) << at;
          EXPECT_EQ(p.count, (n + p.piece - 1) / p.piece) << at;
          if (cap >= n && budget == 5000000) {
            EXPECT_EQ(p.count, 1u) << at;  // no cap in effect, room for one piece
          }
          EXPECT_EQ(p.count, want) << at;
        }
      }
    }
  }
}

TEST(MsmPieces, PlannerWeighsTheFormsByCost) {
  // The lean form fits whole (10n + 1000), the default one in 2 pieces
  // (30n + 51000) but not whole (60n + 51000).
  const size_t n = size_t(1) << 24;
  const model_t m{n};
  const uint64_t budget = 30 * uint64_t(n) + 51000;
  // Cost: default 2·(n/2·f + 2^20) = f·n + 2^21 against lean n + 2^20,
  // so the default form wins for f < 1 - 2^20/n = 0.9375.
  const msm_pieces_plan_t dense = plan_msm_pieces(n, budget, 1, 0.76, m);
  ASSERT_TRUE(dense.fits);
  EXPECT_FALSE(dense.lean);
  EXPECT_EQ(dense.count, 2u);
  EXPECT_EQ(dense.piece, n / 2);
  const msm_pieces_plan_t even = plan_msm_pieces(n, budget, 1, 1.0, m);
  ASSERT_TRUE(even.fits);
  EXPECT_TRUE(even.lean);
  EXPECT_EQ(even.count, 1u);
  // With room for the whole default form it wins the tie.
  const msm_pieces_plan_t roomy = plan_msm_pieces(n, 60 * uint64_t(n) + 51000, 1, 1.0, m);
  ASSERT_TRUE(roomy.fits);
  EXPECT_FALSE(roomy.lean);
  EXPECT_EQ(roomy.count, 1u);
  // n = 0: nothing to do, no scratch.
  const msm_pieces_plan_t none = plan_msm_pieces(0, 0, 16, 1.0, m);
  EXPECT_TRUE(none.fits);
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.bytes, 0u);
}

// Shared buckets add a set of fixed size (5000 B here) to every plan:
// shared wherever that set costs no piece more, each piece its own where
// it would. In the model the lean form takes 1000 + 10·len, so n = 10000
// fits whole in 101000 B (106000 with the set) and in two pieces in 51000
// (56000).
TEST(MsmPieces, PlannerSharesWhereTheSetCostsNoPiece) {
  const size_t n = 10000;
  const model_t m{n};
  auto bytes = [&](size_t piece, bool lean, bool shared) { return m(piece, lean) + (shared ? 5000 : 0); };
  struct want_t {
    uint64_t budget;
    bool fits, shared;
    size_t count;
  };
  for (const want_t& w : {want_t{500, false, false, 0}, want_t{53000, true, false, 2}, want_t{56500, true, true, 2},
                          want_t{104000, true, false, 1}, want_t{120000, true, true, 1}}) {
    const std::string at = "budget=" + std::to_string(w.budget);
    const auto [plan, shared] = plan_msm_pieces_sharing(n, w.budget, 1, 1.0, bytes, true);
    ASSERT_EQ(plan.fits, w.fits) << at;
    if (!w.fits) continue;
    EXPECT_EQ(shared, w.shared) << at;
    EXPECT_EQ(plan.count, w.count) << at;
    EXPECT_LE(plan.bytes, w.budget) << at;
    EXPECT_EQ(plan.bytes, bytes(plan.piece, plan.lean, shared)) << at;
    // Not asked to share: the plan without the set.
    const auto [plain, never] = plan_msm_pieces_sharing(n, w.budget, 1, 1.0, bytes, false);
    EXPECT_FALSE(never) << at;
    EXPECT_EQ(plain.bytes, plan_msm_pieces(n, w.budget, 1, 1.0, m).bytes) << at;
  }
}

// Regrouping: a form of g windows per digit group (16 windows in all)
// takes piece·(2 + g) bytes, the widest g of 8, 4, 2, 1 that fits is
// taken, and a plan's passes are its pieces × 16/g.
TEST(MsmPieces, RegroupTakesTheFewestPasses) {
  const size_t n = 1000;
  auto form_under = [](uint64_t budget) {
    return [budget](size_t piece) -> msm_form_fit_t {
      for (unsigned g = 8; g >= 1; g /= 2)
        if (piece * (2 + g) <= budget) return {piece * (2 + g), 16 / g};
      return {};
    };
  };
  auto plan_of = [&](size_t count, uint64_t budget) {
    const size_t piece = msm_ceil_div(n, count);
    return msm_pieces_plan_t{true, piece, msm_ceil_div(n, piece), false, form_under(budget)(piece).bytes};
  };
  // 600 B: 5 pieces of 200 take one window per group (80 passes); 10 of
  // 100 take 4 (40 passes); 20 of 50 take 8 (40: a tie, fewer pieces win).
  msm_pieces_plan_t r = msm_pieces_regroup(n, plan_of(5, 600), 1, form_under(600));
  EXPECT_TRUE(r.fits);
  EXPECT_EQ(r.count, 10u);
  EXPECT_EQ(r.piece, 100u);
  EXPECT_EQ(r.bytes, 600u);
  // 400 B: the fewest that fit, 8 pieces of 125, one window (128 passes);
  // 16 of 63 take 4 (64); 32 of 32 take 8 (64, a tie).
  r = msm_pieces_regroup(n, plan_of(8, 400), 1, form_under(400));
  EXPECT_EQ(r.count, 16u);
  EXPECT_EQ(r.piece, 63u);
  EXPECT_EQ(r.bytes, 378u);  // 63·(2 + 4), that form's scratch
  // No doubling asked, or none allowed (pieces of at least 200 terms): as planned.
  EXPECT_EQ(msm_pieces_regroup(n, plan_of(5, 600), 1, form_under(600), 0).count, 5u);
  EXPECT_EQ(msm_pieces_regroup(n, plan_of(5, 600), 200, form_under(600)).count, 5u);
  // Pieces of at least 100 terms: 10 at most, so 10 of 100.
  EXPECT_EQ(msm_pieces_regroup(n, plan_of(5, 600), 100, form_under(600)).count, 10u);
  // A form that never widens its groups: no fewer passes, as planned.
  auto narrow = [](size_t piece) { return msm_form_fit_t{3 * piece, 16}; };
  EXPECT_EQ(msm_pieces_regroup(n, plan_of(5, 600), 1, narrow).count, 5u);
  // Where more pieces do not fit at all: as planned.
  EXPECT_EQ(msm_pieces_regroup(n, plan_of(5, 600), 1, [](size_t) { return msm_form_fit_t{}; }).count, 5u);
  // A lean plan, or one that does not fit, is returned as it is.
  msm_pieces_plan_t lean = plan_of(5, 600);
  lean.lean = true;
  EXPECT_EQ(msm_pieces_regroup(n, lean, 1, form_under(600)).count, 5u);
  EXPECT_FALSE(msm_pieces_regroup(n, msm_pieces_plan_t{}, 1, form_under(600)).fits);
}

// CPU: Σ over planned pieces of the piece's MSM (split by its own bound)
// equals the whole MSM.
template <class P>
class MsmPiecesCpu : public ::testing::Test {};
using curves = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(MsmPiecesCpu, curves);

template <class P>
jacobian_t<P> in_pieces(const std::vector<affine_t<P>>& bases, const std::vector<fr_t>& s, size_t split_from,
                        size_t piece) {
  const size_t n = bases.size();
  jacobian_t<P> acc = jacobian_t<P>::infinity();
  for (size_t k = 0; k < msm_piece_count(n, piece); ++k) {
    const msm_piece_t p = msm_piece(n, piece, split_from, k);
    const std::span<const affine_t<P>> b(bases.data() + p.begin, p.length);
    const std::span<const fr_t> x(s.data() + p.begin, p.length);
    // prep_msm takes a forced tail of at most its length: a bound past the
    // piece means the same (every term in the tail).
    acc =
        acc.add(p.split_from == msm_split_none ? msm_pippenger<P>(b, x, msm_config_t{.threads = 1})
                                               : split_msm<P>(b, prep_msm(x, std::min(p.split_from, p.length), 1), 1));
  }
  return acc;
}

TYPED_TEST(MsmPiecesCpu, PiecesSumToTheWhole) {
  using P = TypeParam;
  std::mt19937_64 g(0x9ece5);
  for (size_t n : {size_t(1), size_t(2), size_t(37), size_t(200)}) {
    const auto bases = test::random_bases<P>(g, n);
    std::vector<fr_t> s(n);
    for (size_t i = 0; i < n; ++i) {  // boolean-heavy, as a Filecoin witness
      const unsigned u = unsigned(g() % 10);
      s[i] = u < 4 ? fr_t::zero() : u < 8 ? fr_t::one() : fr_t::random(g);
    }
    const jacobian_t<P> whole = msm_pippenger<P>(std::span<const affine_t<P>>(bases), s, msm_config_t{.threads = 1});
    for (size_t from : {msm_split_none, size_t(0), std::min<size_t>(n, 5), n}) {
      for (size_t piece : {size_t(1), size_t(3), size_t(5), size_t(7), n - 1 ? n - 1 : 1, n}) {
        EXPECT_EQ(in_pieces<P>(bases, s, from, piece).to_affine(), whole.to_affine())
            << P::name << " n=" << n << " split_from=" << from << " piece=" << piece;
      }
    }
  }
}

}  // namespace
}  // namespace starzk
