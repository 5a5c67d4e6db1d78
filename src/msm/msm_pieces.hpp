// msm_pieces.hpp: an MSM cut into pieces of consecutive terms, for a memory
// that cannot hold the working set of the whole MSM at once (a GPU's
// scratch: the CUDA bodies of the MSM codelets plan with it,
// codelets/msm_device.cpp). Pure functions over sizes: no allocation, no
// device, so the CI tests them alone (tests/msm/test_msm_pieces.cpp).
//
// Pieces of L terms: piece k holds the terms [k·L, min(n, (k+1)·L)), for
// k < count = ceil(n / L); the last piece may hold fewer. Then
//
//   Σ_{i<n} s_i·P_i = Σ_k Σ_{i in piece k} s_i·P_i,
//
// the same group element whatever L (a sum in a group does not depend on
// how its terms are grouped), so the pieces' results are simply added.
//
// The prep_msm split (msm/prep_msm.hpp with forced_tail = split_from) sends
// a term i ≥ split_from whose scalar is one to the batch addition and keeps
// every term i < split_from in the Pippenger tail (the constant wire and
// the public inputs). The rule is about the global index i, so piece k,
// starting at b = k·L, splits with its own bound
//
//   split_from_k = max(split_from − b, 0):
//
// its term j is the global term i = b + j, and i ≥ split_from ⟺
// j ≥ split_from − b. A piece wholly below split_from gets a bound ≥ its
// length, i.e. every term of it stays in the tail. No split (SIZE_MAX,
// gpu::msm_no_split) stays no split.
//
// Choosing L: the caller gives the scratch an n-term MSM needs when cut
// into pieces of L terms (its own query; the last, shorter piece included)
// for two forms, the default one and a lean one that needs less per term
// (on the GPU: no batch-affine levels, msm_plan.cuh, ~6x less at 2^24),
// and a budget. For each form the planner finds the fewest pieces that fit
// (pieces never shorter than min_piece unless n is); between the two forms
// it takes the lower estimated cost
//
//   cost = count · (L·f + overhead),
//
// f = 1 for the lean form and default_factor for the default one (the
// batch-affine levels' gain: 0.76 for dense scalars, 97.8 against 128.6 ms
// at 2^24 on the H200, docs/benchmarks.md; callers pass 1 where the levels
// may not run), overhead = msm_piece_overhead term-equivalents per piece
// (the 2^c-bucket reduction of every window, W·10·2^16 ≈ 2^20 at c = 16,
// plus the host wait and the launches of a piece). Ties go to the default
// form. Both searches assume the scratch grows with L; a plan is only ever
// returned after its own bytes were checked against the budget.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace starzk {

// No prep_msm split (the value of gpu::msm_no_split).
inline constexpr size_t msm_split_none = SIZE_MAX;
// Pieces are never planned shorter than this (unless n is): below it the
// fixed costs of a piece (its launches, its one host wait, the bucket
// reduction) dominate its additions.
inline constexpr size_t msm_min_piece = size_t(1) << 16;
// Term-equivalents of fixed cost per piece in the planner's cost estimate.
inline constexpr double msm_piece_overhead = double(size_t(1) << 20);

inline size_t msm_ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

// Terms per piece once normalised: 0 or more than n means one piece of n.
inline size_t msm_piece_terms(size_t n, size_t piece) { return piece == 0 || piece > n ? n : piece; }

// Number of pieces (0 for n = 0).
inline size_t msm_piece_count(size_t n, size_t piece) {
  const size_t l = msm_piece_terms(n, piece);
  return l == 0 ? 0 : msm_ceil_div(n, l);
}

// The split bound of a piece starting at global index `begin` (file comment).
inline size_t msm_piece_split_from(size_t split_from, size_t begin) {
  if (split_from == msm_split_none) return msm_split_none;
  return split_from > begin ? split_from - begin : 0;
}

// Piece k of an n-term MSM in pieces of `piece` terms (k < msm_piece_count).
struct msm_piece_t {
  size_t begin = 0, length = 0, split_from = msm_split_none;
};
inline msm_piece_t msm_piece(size_t n, size_t piece, size_t split_from, size_t k) {
  const size_t l = msm_piece_terms(n, piece), b = k * l;
  return {b, std::min(l, n - b), msm_piece_split_from(split_from, b)};
}

// The shortest pieces the planner considers: ceil(n / ceil(n / m)) with
// m = min(min_piece, n), at most min_piece (0 for n = 0).
inline size_t msm_smallest_piece(size_t n, size_t min_piece) {
  if (n == 0) return 0;
  const size_t m = std::clamp<size_t>(min_piece, 1, n);
  return msm_ceil_div(n, msm_ceil_div(n, m));
}

struct msm_pieces_plan_t {
  bool fits = false;   // false: not even the smallest pieces fit the budget
  size_t piece = 0;    // terms per piece (the last piece may hold fewer)
  size_t count = 0;    // number of pieces
  bool lean = false;   // the lean form (less scratch per term)
  uint64_t bytes = 0;  // scratch the plan needs
};

namespace msm_pieces_detail {

// The fewest pieces of one form whose scratch fits, with at least p_min
// pieces: piece lengths ceil(n / P) for P = p_min, 2 p_min, 4 p_min, ... up
// to the smallest pieces, then a bisection between the last P that did not
// fit and the first that did.
template <class Bytes>
msm_pieces_plan_t fewest(size_t n, uint64_t budget, size_t min_piece, bool lean, Bytes& bytes, size_t p_min) {
  const size_t p_max = msm_ceil_div(n, msm_smallest_piece(n, min_piece));
  p_min = std::clamp<size_t>(p_min, 1, p_max);
  auto attempt = [&](size_t p) {
    msm_pieces_plan_t r;
    r.piece = msm_ceil_div(n, p);
    r.bytes = bytes(r.piece, lean);
    r.fits = r.bytes <= budget;
    r.count = msm_ceil_div(n, r.piece);
    r.lean = lean;
    return r;
  };
  msm_pieces_plan_t best = attempt(p_min);
  if (best.fits) return best;
  size_t lo = p_min, hi = 0;  // lo: a count that does not fit; hi: one that does
  while (hi == 0) {
    if (lo >= p_max) return {};
    const size_t p = std::min(lo * 2, p_max);
    const msm_pieces_plan_t r = attempt(p);
    if (r.fits)
      best = r, hi = p;
    else
      lo = p;
  }
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    const msm_pieces_plan_t r = attempt(mid);
    if (r.fits)
      best = r, hi = mid;
    else
      lo = mid;
  }
  return best;
}

inline double cost(const msm_pieces_plan_t& p, double default_factor) {
  return double(p.count) * (double(p.piece) * (p.lean ? 1.0 : default_factor) + msm_piece_overhead);
}

}  // namespace msm_pieces_detail

// The plan for an n-term MSM under `budget` bytes of scratch (file
// comment). bytes(piece, lean) -> uint64_t: the scratch of the n-term MSM
// in pieces of `piece` terms, in the default (lean = false) or lean form.
// No piece is planned longer than max_piece terms (nor shorter than the
// smallest pieces): where the bases stream from host memory, the first
// piece's copy is not hidden behind any work, so shorter pieces can pay
// although fewer would fit. n = 0 fits with no piece and no scratch.
template <class Bytes>
msm_pieces_plan_t plan_msm_pieces(size_t n, uint64_t budget, size_t min_piece, double default_factor, Bytes&& bytes,
                                  size_t max_piece = SIZE_MAX) {
  if (n == 0) return {true, 0, 0, false, 0};
  const size_t p_min = msm_ceil_div(n, std::max<size_t>(max_piece, 1));
  const msm_pieces_plan_t d = msm_pieces_detail::fewest(n, budget, min_piece, false, bytes, p_min);
  const msm_pieces_plan_t l = msm_pieces_detail::fewest(n, budget, min_piece, true, bytes, p_min);
  if (!d.fits) return l;
  if (!l.fits) return d;
  return msm_pieces_detail::cost(l, default_factor) < msm_pieces_detail::cost(d, default_factor) ? l : d;
}

// Pieces may share one set of buckets per scalar vector (on the GPU:
// gpu::msm_pieces_t::shared_buckets): each piece then skips its own
// reduction (window sums, Horner: a few ms a piece), but the set takes
// scratch of its own, which under a tight budget can cost a piece more.
// The plan with the set, unless the plan without it has fewer pieces (or
// only it fits); bytes(piece, lean, shared) as above. want_shared = false
// plans without the set. Returns the plan and whether it shares.
template <class Bytes>
std::pair<msm_pieces_plan_t, bool> plan_msm_pieces_sharing(size_t n, uint64_t budget, size_t min_piece,
                                                           double default_factor, Bytes&& bytes, bool want_shared,
                                                           size_t max_piece = SIZE_MAX) {
  auto plan = [&](bool shared) {
    return plan_msm_pieces(
        n, budget, min_piece, default_factor, [&](size_t piece, bool lean) { return bytes(piece, lean, shared); },
        max_piece);
  };
  if (!want_shared) return {plan(false), false};
  const msm_pieces_plan_t with = plan(true), own = plan(false);
  if (own.fits && (!with.fits || own.count < with.count)) return {own, false};
  return {with, true};
}

// Regrouping. Where the default form does not fit whole, a form whose
// digit groups hold fewer windows needs less scratch per piece (on the GPU:
// msm_tuning_t::group_windows; the digit and sort arrays hold one group),
// so the fewest pieces that fit can leave one window per group. Each pass
// of a digit group over a piece has costs of its own beside the additions
// (its digits, its batch-affine levels' launches and inversion trees, its
// accumulation and folding), so more pieces with wider groups can beat
// the fewest pieces with narrow ones: a G1 MSM of 2^27 dense scalars
// streamed from host memory takes time in step with its passes far more
// than with its pieces (docs/benchmarks.md, "msm_h in more pieces with
// wider digit groups"). form(piece) -> msm_form_fit_t: the scratch and
// the digit groups per piece of the widest form that fits the budget at
// that piece length (groups 0: none fits). Of `plan` (a default-form plan)
// and the plans with 2^j times its pieces (j <= doublings, pieces no
// shorter than the smallest), the one with the fewest passes (pieces ×
// groups); ties go to fewer pieces. A lean plan (no batch-affine levels:
// its windows above the first are nearly empty) is returned as it is.
struct msm_form_fit_t {
  uint64_t bytes = 0;
  unsigned groups = 0;
};
template <class Form>
msm_pieces_plan_t msm_pieces_regroup(size_t n, const msm_pieces_plan_t& plan, size_t min_piece, Form&& form,
                                     unsigned doublings = 2) {
  if (!plan.fits || plan.lean || plan.count == 0) return plan;
  const msm_form_fit_t first = form(plan.piece);
  if (first.groups == 0) return plan;
  const size_t p_max = msm_ceil_div(n, msm_smallest_piece(n, min_piece));
  msm_pieces_plan_t best = plan;
  size_t best_passes = plan.count * first.groups;
  for (unsigned j = 1; j <= doublings && (plan.count << j) <= p_max; ++j) {
    const size_t piece = msm_ceil_div(n, plan.count << j), count = msm_ceil_div(n, piece);
    const msm_form_fit_t f = form(piece);
    if (f.groups == 0 || count * f.groups >= best_passes) continue;
    best = {true, piece, count, false, f.bytes};
    best_passes = count * f.groups;
  }
  return best;
}

}  // namespace starzk
