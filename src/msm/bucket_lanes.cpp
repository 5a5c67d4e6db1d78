// The G1 lane buckets (bucket_lanes.hpp): placing terms (scalar code) and
// the batch (AVX-512 IFMA, eight pairs per step).
//
// Bounds in the batch (fp_x8_t keeps value < bound·p): gathered coordinates
// are canonical (bound 1); d = x_p − x_q has bound 2; λ and every product
// bound 2; x_3 = λ² − x_q − x_p bound 4 and y_3 = λ·(x_q − x_3) − y_q bound
// 3, both brought back below p by two conditional subtractions (of 2p, then
// of p) before they are stored, so that buckets stay canonical.
#include "msm/bucket_lanes.hpp"

#include <cstring>

#include "ff/fp_x8_ifma.hpp"
#include "msm/lane_access.hpp"

namespace starzk {

namespace {

bool is_o(const lane_point_t& p) {
  uint64_t any = 0;
  for (unsigned i = 0; i < 8; ++i) any |= p.x[i] | p.y[i];
  return any == 0;
}

// p − y in radix 2^52 (y canonical and nonzero, so the result is too);
// y = 0 stays 0.
void negate_y(const uint64_t* y, uint64_t* out) {
  uint64_t any = 0;
  for (unsigned i = 0; i < 8; ++i) any |= y[i];
  if (any == 0) {
    std::memset(out, 0, 64);
    return;
  }
  int64_t borrow = 0;
  for (unsigned i = 0; i < 8; ++i) {
    const int64_t v = int64_t(ifma::consts::p52[i]) - int64_t(y[i]) + borrow;
    out[i] = uint64_t(v) & ifma::limb_mask;
    borrow = v >> ifma::limb_bits;  // 0 or −1
  }
}

}  // namespace

bool lane_buckets_available() {
#if STARZK_FF_IFMA
  return ff_path::wide();
#else
  return false;
#endif
}

// The value a of a lane point's coordinate v = a·2^416 as fp_t: the limbs
// v read as an fp_t stand for v·2^−384 = a·2^32, times 2^−32 (the fp_t whose
// limbs are 2^352 mod p).
g1_affine_t from_lane_point(const lane_point_t& p) {
  static const fp_t two_m32 = fp_t::from_mont_limbs(limbs::pow2_mod(352, fp_t::modulus));
  auto coord = [](const uint64_t* l) {
    ifma::limbs52_t r;
    std::memcpy(r.data(), l, 64);
    return fp_t::from_mont_limbs(ifma::from_radix52(r)) * two_m32;
  };
  return g1_affine_t{coord(p.x), coord(p.y)};
}

#if STARZK_FF_IFMA
// alignas(64) on the element types: outside an AVX-512 target GCC gives
// __m512i a smaller alignment, and the vector code stores with aligned moves.
struct lane_buckets_t::scratch_t {
  struct alignas(64) group_t {
    __m512i boff, toff;  // word offsets of the lanes' buckets and terms
    __mmask8 live, neg;  // lanes holding a pair; lanes whose term is negated
  };
  struct alignas(64) slot_t {
    ifma::fp_x8_t v;
  };
  std::vector<group_t> grp;
  std::vector<slot_t> dx, prefix, xq, xp;
};
#else
struct lane_buckets_t::scratch_t {};
#endif

lane_buckets_t::lane_buckets_t(size_t n, size_t batch, const lane_point_t* terms)
    : bucket_(n),
      state_(n, empty),
      side_(n, xyzz_t<g1_params>::infinity()),
      terms_(terms),
      batch_(batch < 8 ? 8 : batch),
      scratch_(std::make_shared<scratch_t>()) {
  pend_.reserve(batch_);
}

void lane_buckets_t::to_side(uint32_t b, uint32_t j, bool neg) {
  const g1_affine_t p = from_lane_point(terms_[j]);
  side_[b] += neg ? -p : p;
}

void lane_buckets_t::place(uint32_t b, uint32_t j, bool neg, bool may_wait) {
  const lane_point_t& p = terms_[j];
  if (is_o(p)) return;
  switch (state_[b]) {
    case busy:
      if (may_wait)
        wait_.push_back({b, j, neg});
      else
        to_side(b, j, neg);
      return;
    case empty:
      std::memcpy(bucket_[b].x, p.x, 64);
      if (neg)
        negate_y(p.y, bucket_[b].y);
      else
        std::memcpy(bucket_[b].y, p.y, 64);
      state_[b] = full;
      return;
    default:
      // Same x: P + P or P + (−P), which the affine formula cannot take.
      if (std::memcmp(bucket_[b].x, p.x, 64) == 0) {
        to_side(b, j, neg);
        return;
      }
      state_[b] = busy;
      pend_.push_back({b, j, neg});
      if (pend_.size() >= batch_) flush();
  }
}

// The pairs that met a busy bucket go once more, now that the batch has
// freed every bucket; none of them waits a second time, so a nested flush
// (a full batch while they are placed) finds nothing waiting.
void lane_buckets_t::flush() {
  run_batch();
  std::vector<pending_t> again;
  again.swap(wait_);
  for (const pending_t& e : again) place(e.b, e.j, e.neg, false);
}

void lane_buckets_t::finish() {
  while (!pend_.empty() || !wait_.empty()) flush();
  out_.assign(bucket_.size(), g1_affine_t::infinity());
  const size_t n = bucket_.size();
  for (size_t b = 0; b < n; ++b)
    if (state_[b] != empty) out_[b] = from_lane_point(bucket_[b]);
}

#if STARZK_FF_IFMA

using ifma::fp_x8_t;
using namespace lane_access;

STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void to_lane_points(std::span<const g1_affine_t> in, lane_point_t* out) {
  for (size_t i = 0; i < in.size(); i += 8) {
    const size_t k = in.size() - i < 8 ? in.size() - i : 8;
    alignas(64) fp_t xs[8], ys[8];
    for (unsigned l = 0; l < 8; ++l) {
      const g1_affine_t& p = in[i + (l < k ? l : 0)];
      xs[l] = p.x;
      ys[l] = p.y;
    }
    const fp_x8_t x = canonical(ifma::to_lanes(xs)), y = canonical(ifma::to_lanes(ys));
    alignas(64) uint64_t bx[8][8], by[8][8];
    for (unsigned li = 0; li < 8; ++li) {
      _mm512_store_si512(bx[li], x.l[li]);
      _mm512_store_si512(by[li], y.l[li]);
    }
    for (unsigned l = 0; l < k; ++l)
      for (unsigned li = 0; li < 8; ++li) {
        out[i + l].x[li] = bx[li][l];
        out[i + l].y[li] = by[li][l];
      }
  }
}

// The batch: pass 1 chains the denominators lane by lane, the eight chain
// products are inverted together, pass 2 walks back (bucket_affine.hpp's
// run_batch, eight chains wide). Lanes past the last pair carry d = 1.
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void lane_buckets_t::run_batch() {
  const size_t m = pend_.size();
  if (m == 0) return;
  const size_t groups = (m + 7) / 8;
  using group_t = scratch_t::group_t;
  auto& [grp, dx, prefix, xq, xp] = *scratch_;
  for (auto* v : {&dx, &prefix, &xq, &xp})
    if (v->size() < groups) v->resize(groups);
  if (grp.size() < groups) grp.resize(groups);
  const uint64_t* terms = terms_[0].x;
  uint64_t* buckets = bucket_[0].x;
  const fp_x8_t one = fp_x8_t::one();
  fp_x8_t acc = one;
  for (size_t g = 0; g < groups; ++g) {
    alignas(64) int64_t bo[8], to[8];
    __mmask8 live = 0, neg = 0;
    for (unsigned l = 0; l < 8; ++l) {
      const size_t e = 8 * g + l < m ? 8 * g + l : 8 * g;  // a dead lane repeats the group's first pair
      bo[l] = int64_t(pend_[e].b) * 16;
      to[l] = int64_t(pend_[e].j) * 16;
      if (8 * g + l < m) live |= __mmask8(1u << l);
      if (pend_[e].neg) neg |= __mmask8(1u << l);
    }
    group_t& gr = grp[g];
    gr = {_mm512_load_si512(bo), _mm512_load_si512(to), live, neg};
    xq[g].v = gather(buckets, gr.boff);
    xp[g].v = gather(terms, gr.toff);
    dx[g].v = select(live, xp[g].v - xq[g].v, one, 2);
    prefix[g].v = acc;
    acc = acc * dx[g].v;
  }
  // The eight chain products (never 0: x_p != x_q in every pair), inverted
  // with one fp_t inversion.
  alignas(64) fp_t tot[8], pre[8];
  ifma::from_lanes(acc, tot);
  fp_t run = fp_t::one();
  for (unsigned l = 0; l < 8; ++l) {
    pre[l] = run;
    run *= tot[l];
  }
  fp_t inv_all = run.inverse();
  for (unsigned l = 8; l-- > 0;) {
    const fp_t t = inv_all * pre[l];
    inv_all *= tot[l];
    tot[l] = t;
  }
  fp_x8_t inv = ifma::to_lanes(tot);
  for (size_t g = groups; g-- > 0;) {
    const group_t& gr = grp[g];
    const fp_x8_t dinv = inv * prefix[g].v;
    inv = inv * dx[g].v;
    const fp_x8_t yq = gather(buckets + 8, gr.boff);
    const fp_x8_t y0 = gather(terms + 8, gr.toff);
    const fp_x8_t yp = select(gr.neg, fp_x8_t::zero() - y0, y0, 2);
    const fp_x8_t lambda = (yp - yq) * dinv;
    const fp_x8_t x3 = canonical(lambda.sqr() - xq[g].v - xp[g].v);
    const fp_x8_t y3 = canonical(lambda * (xq[g].v - x3) - yq);
    scatter(buckets, gr.boff, gr.live, x3);
    scatter(buckets + 8, gr.boff, gr.live, y3);
  }
  for (const pending_t& e : pend_) state_[e.b] = full;
  pend_.clear();
}

#else

// Never reached: lane_buckets_available() is false without IFMA.
void to_lane_points(std::span<const g1_affine_t>, lane_point_t*) {}
void lane_buckets_t::run_batch() {}

#endif

}  // namespace starzk
