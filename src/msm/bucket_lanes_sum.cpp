// The window sum of the G1 lane buckets (bucket_lanes.hpp,
// lane_buckets_t<g1_params>::window_sum): the side sums folded into their buckets, the
// eight runs of buckets walked in the 8-lane field (AVX-512 IFMA), the
// offsets taken out and the runs combined, and the scalar form for a
// lane that met an exceptional step and for the last n mod 8 buckets.
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "ec/points_x8.hpp"
#include "ec/scalar_mul.hpp"
#include "msm/bucket_lanes.hpp"
#include "msm/lane_access.hpp"

namespace starzk {

namespace {

using xyzz1_t = xyzz_t<g1_params>;

// k·p for a small k ≥ 0 (ec/scalar_mul.hpp: double and add from the top bit).
xyzz1_t times(const xyzz1_t& p, uint64_t k) { return xyzz1_t::from_jacobian(mul_u64(p.to_jacobian(), k)); }

}  // namespace

// The buckets with a side sum (a few per cent of them where terms collide
// often) take it in, back in the lane form: one inversion for all
// (batch_to_affine), eight conversions at a time.
template <class P>
void lane_buckets_t<P>::fold_sides() requires std::is_same_v<P, g1_params> {
  std::vector<size_t> which;
  std::vector<xyzz1_t> sums;
  for (size_t b = 0; b < side_.size(); ++b) {
    if (side_[b].is_infinity()) continue;
    xyzz1_t sum = side_[b];
    if (state_[b] != empty) sum += from_lane_point(bucket_[b]);
    side_[b] = xyzz1_t::infinity();
    which.push_back(b);
    sums.push_back(sum);
  }
  if (which.empty()) return;
  std::vector<g1_affine_t> affine(sums.size());
  xyzz1_t::batch_to_affine(sums, affine);
  std::vector<lane_point_t> lanes(affine.size());
  to_lane_points(affine, lanes.data());
  for (size_t k = 0; k < which.size(); ++k) {
    const size_t b = which[k];
    bucket_[b] = lanes[k];  // O is all zeros in the lane form
    state_[b] = affine[k].is_infinity() ? empty : full;
  }
}

template <class P>
std::pair<xyzz_t<P>, xyzz_t<P>> lane_buckets_t<P>::run_sum(size_t begin,
                                                           size_t end) const requires std::is_same_v<P, g1_params> {
  xyzz1_t run = xyzz1_t::infinity(), tot = xyzz1_t::infinity();
  for (size_t b = end; b-- > begin;) {
    if (state_[b] != empty) run += from_lane_point(bucket_[b]);
    tot += run;
  }
  return {tot, run};
}

#if STARZK_FF_IFMA
namespace {

using ifma::fp_x8_t;
using namespace lane_access;

// lane_buckets_t::window_sum's walk: lane j over buckets [j·L, (j+1)·L)
// from the top, run_j = r + Σ bucket[b] and tot_j = r2 + Σ_steps run_j
// (= r2 + L·r + Σ (b − j·L + 1)·bucket[b]); an empty bucket (state 0)
// leaves its lane's run as it is. Out: the eight runs and tots, fp_t
// Jacobian points; Z = 0 where a step was exceptional.
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void lane_runs(const lane_point_t* buckets, const uint8_t* state, size_t L,
                                                      const g1_affine_t& r, const g1_affine_t& r2,
                                                      g1_jacobian_t* run_out, g1_jacobian_t* tot_out) {
  fp_t c[4][8];
  for (unsigned j = 0; j < 8; ++j) c[0][j] = r.x, c[1][j] = r.y, c[2][j] = r2.x, c[3][j] = r2.y;
  const fp_x8_t one = fp_x8_t::one();
  g1_x8_jacobian_t run{ifma::to_lanes(c[0]), ifma::to_lanes(c[1]), one};
  g1_x8_jacobian_t tot{ifma::to_lanes(c[2]), ifma::to_lanes(c[3]), one};
  const uint64_t* base = buckets[0].x;
  alignas(64) int64_t off[8];
  for (size_t i = L; i-- > 0;) {
    __mmask8 live = 0;
    for (unsigned j = 0; j < 8; ++j) {
      const size_t b = j * L + i;
      off[j] = int64_t(b) * int64_t(sizeof(lane_point_t) / sizeof(uint64_t));
      if (state[b] != 0) live |= __mmask8(1u << j);
    }
    if (live) {
      const g1_x8_affine_t q{load_part(base, off), load_part(base + 8, off)};
      const g1_x8_jacobian_t sum = run.add_mixed_unchecked(q);
      run = g1_x8_jacobian_t{select(live, sum.x, run.x), select(live, sum.y, run.y), select(live, sum.z, run.z)};
    }
    tot = tot.add_unchecked(run);
  }
  fp_t o[6][8];
  const fp_x8_t* coords[6] = {&run.x, &run.y, &run.z, &tot.x, &tot.y, &tot.z};
  for (unsigned k = 0; k < 6; ++k) ifma::from_lanes(*coords[k], o[k]);
  for (unsigned j = 0; j < 8; ++j) {
    run_out[j] = g1_jacobian_t{o[0][j], o[1][j], o[2][j]};
    tot_out[j] = g1_jacobian_t{o[3][j], o[4][j], o[5][j]};
  }
}

}  // namespace
#endif

template <class P>
xyzz_t<P> lane_buckets_t<P>::window_sum(const g1_affine_t& r,
                                        const g1_affine_t& r2) requires std::is_same_v<P, g1_params> {
  while (!pend_.empty() || !wait_.empty()) flush();
  fold_sides();
  const size_t n = bucket_.size(), L = n / 8, lanes_end = lane_buckets_available() ? 8 * L : 0;
  xyzz1_t sum = xyzz1_t::infinity();
#if STARZK_FF_IFMA
  if (lanes_end > 0) {
    g1_jacobian_t run[8], tot[8];
    lane_runs(bucket_.data(), state_.data(), L, r, r2, run, tot);
    // Offsets out: run_j − r, tot_j − r2 − L·r. Σ_j j·run_j by the
    // running-sum trick over j = 7 .. 1.
    const xyzz1_t r_out = -xyzz1_t::from_affine(r), tot_out = -(xyzz1_t::from_affine(r2) + times(-r_out, L));
    xyzz1_t acc = xyzz1_t::infinity(), weighted = xyzz1_t::infinity();
    for (unsigned j = 8; j-- > 0;) {
      xyzz1_t t, u;
      if (run[j].is_infinity() || tot[j].is_infinity()) {
        std::tie(t, u) = run_sum(j * L, (j + 1) * L);  // an exceptional step in lane j
      } else {
        t = xyzz1_t::from_jacobian(tot[j]) + tot_out;
        u = xyzz1_t::from_jacobian(run[j]) + r_out;
      }
      sum += t;
      if (j > 0) {
        acc += u;
        weighted += acc;
      }
    }
    sum += times(weighted, L);
  }
#endif
  if (lanes_end < n) {
    const auto [t, u] = run_sum(lanes_end, n);
    sum += t;
    sum += times(u, lanes_end);
  }
  return sum;
}

template <class P>
xyzz_t<P> lane_buckets_t<P>::window_sum() requires std::is_same_v<P, g1_params> {
  // Two fixed points of the subgroup, the generator times two 64-bit
  // constants: any pair gives the right sum; one that a partial sum met
  // would only send that lane to the scalar form.
  static const std::pair<g1_affine_t, g1_affine_t> offsets = [] {
    const xyzz1_t g = xyzz1_t::from_affine(g1_affine_t::generator());
    return std::pair{times(g, 0x9e3779b97f4a7c15ull).to_jacobian().to_affine(),
                     times(g, 0xbf58476d1ce4e5b9ull).to_jacobian().to_affine()};
  }();
  return window_sum(offsets.first, offsets.second);
}

template void lane_buckets_t<g1_params>::fold_sides();
template std::pair<xyzz1_t, xyzz1_t> lane_buckets_t<g1_params>::run_sum(size_t, size_t) const;
template xyzz1_t lane_buckets_t<g1_params>::window_sum(const g1_affine_t&, const g1_affine_t&);
template xyzz1_t lane_buckets_t<g1_params>::window_sum();

}  // namespace starzk
