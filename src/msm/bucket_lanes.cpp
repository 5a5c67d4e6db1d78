// The lane buckets (bucket_lanes.hpp), G1 and G2: placing terms (scalar
// code) and the batch (AVX-512 IFMA, eight pairs per step).
//
// Bounds in the batch (fp_x8_t keeps value < bound·p; an F_p2 value is two
// of them): loaded coordinates are canonical (bound 1); d = x_p − x_q has
// bound 2; on G1 λ and every product bound 2, x_3 = λ² − x_q − x_p bound 4
// and y_3 = λ·(x_q − x_3) − y_q bound 3; on G2 the Karatsuba product and
// the complex square leave parts of bound up to 6, so x_3 and y_3 stay
// below 8p. Both are brought back below p by conditional subtractions (of
// 4p, 2p, then p) before they are stored, so that buckets stay canonical.
#include "msm/bucket_lanes.hpp"

#include <cstring>

#include "ec/points_x8.hpp"
#include "ff/fp2.hpp"
#include "ff/fp_x8_ifma.hpp"
#include "msm/lane_access.hpp"

namespace starzk {

namespace {

template <class T>
bool is_o(const T& p) {
  const auto* w = reinterpret_cast<const uint64_t*>(&p);
  uint64_t any = 0;
  for (size_t i = 0; i < sizeof(T) / 8; ++i) any |= w[i];
  return any == 0;
}

// p − y in radix 2^52 (y canonical and nonzero, so the result is too);
// y = 0 stays 0. One F_p coordinate (eight limbs).
void negate_part(const uint64_t* y, uint64_t* out) {
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

// The value a of a lane coordinate v = a·2^416 as fp_t: the limbs v read as
// an fp_t stand for v·2^−384 = a·2^32, times 2^−32 (the fp_t whose limbs
// are 2^352 mod p).
fp_t lane_coord(const uint64_t* l) {
  static const fp_t two_m32 = fp_t::from_mont_limbs(limbs::pow2_mod(352, fp_t::modulus));
  ifma::limbs52_t r;
  std::memcpy(r.data(), l, 64);
  return fp_t::from_mont_limbs(ifma::from_radix52(r)) * two_m32;
}

}  // namespace

bool lane_buckets_available() {
#if STARZK_FF_IFMA
  return ff_path::wide();
#else
  return false;
#endif
}

g1_affine_t from_lane_point(const lane_point_t& p) { return g1_affine_t{lane_coord(p.x), lane_coord(p.y)}; }
g2_affine_t from_lane_point(const lane_point2_t& p) {
  return g2_affine_t{fp2_t{lane_coord(p.x[0]), lane_coord(p.x[1])}, fp2_t{lane_coord(p.y[0]), lane_coord(p.y[1])}};
}

#if STARZK_FF_IFMA
namespace {

using ifma::fp_x8_t;
using namespace lane_access;
using fp2_x8_t = fp2_over<fp_x8_t>;

// What the batch needs of a curve's lane form: its 8-lane field F and the
// scalar field E the chain products are inverted in, the coordinates'
// places in a lane point (in 64-bit words), and F's loads, stores,
// selections and reduction.
template <class P>
struct lane_math;

template <>
struct lane_math<g1_params> {
  using F = fp_x8_t;
  using E = fp_t;
  static constexpr int64_t words = sizeof(lane_point_t) / 8, y_at = 8;
  STARZK_IFMA_TARGET static F load(const uint64_t* base, const int64_t* off) { return load_part(base, off); }
  STARZK_IFMA_TARGET static void store(uint64_t* base, const int64_t* off, __mmask8 m, const F& v) {
    store_part(base, off, m, v);
  }
  STARZK_IFMA_TARGET static F pick(__mmask8 m, const F& a, const F& b) { return select(m, a, b); }
  STARZK_IFMA_TARGET static F reduce(const F& v) { return canonical(v); }
  STARZK_IFMA_TARGET static void out(const F& v, E* e) { ifma::from_lanes(v, e); }
  STARZK_IFMA_TARGET static F in(const E* e) { return ifma::to_lanes(e); }
};

template <>
struct lane_math<g2_params> {
  using F = fp2_x8_t;
  using E = fp2_t;
  static constexpr int64_t words = sizeof(lane_point2_t) / 8, y_at = 16;
  STARZK_IFMA_TARGET static F load(const uint64_t* base, const int64_t* off) {
    return F{load_part(base, off), load_part(base + 8, off)};
  }
  STARZK_IFMA_TARGET static void store(uint64_t* base, const int64_t* off, __mmask8 m, const F& v) {
    store_part(base, off, m, v.c0);
    store_part(base + 8, off, m, v.c1);
  }
  STARZK_IFMA_TARGET static F pick(__mmask8 m, const F& a, const F& b) {
    return F{select(m, a.c0, b.c0), select(m, a.c1, b.c1)};
  }
  // Parts of bound up to 8: minus 4p where ≥ 4p, then canonical.
  STARZK_IFMA_TARGET static fp_x8_t reduce_part(const fp_x8_t& v) {
    return canonical(fp_x8_t::reduce_once(v.l, ifma::consts::pow2_p52[2]));
  }
  STARZK_IFMA_TARGET static F reduce(const F& v) { return F{reduce_part(v.c0), reduce_part(v.c1)}; }
  STARZK_IFMA_TARGET static void out(const F& v, E* e) {
    fp_t a[8], b[8];
    ifma::from_lanes(v.c0, a);
    ifma::from_lanes(v.c1, b);
    for (unsigned l = 0; l < 8; ++l) e[l] = E{a[l], b[l]};
  }
  STARZK_IFMA_TARGET static F in(const E* e) {
    fp_t a[8], b[8];
    for (unsigned l = 0; l < 8; ++l) a[l] = e[l].c0, b[l] = e[l].c1;
    return F{ifma::to_lanes(a), ifma::to_lanes(b)};
  }
};

}  // namespace

// alignas(64) on the element types: outside an AVX-512 target GCC gives
// __m512i a smaller alignment, and the vector code stores with aligned moves.
template <class P>
struct lane_buckets_t<P>::scratch_t {
  struct alignas(64) group_t {
    int64_t boff[8], toff[8];  // word offsets of the lanes' buckets and terms
    __mmask8 live, neg;        // lanes holding a pair; lanes whose term is negated
  };
  struct alignas(64) slot_t {
    typename lane_math<P>::F v;
  };
  std::vector<group_t> grp;
  std::vector<slot_t> dx, prefix, xq, xp;
};
#else
template <class P>
struct lane_buckets_t<P>::scratch_t {};
#endif

template <class P>
lane_buckets_t<P>::lane_buckets_t(size_t n, size_t batch, const point_t* terms)
    : bucket_(n),
      state_(n, empty),
      side_(n, xyzz::infinity()),
      terms_(terms),
      batch_(batch < 8 ? 8 : batch),
      scratch_(std::make_shared<scratch_t>()) {
  pend_.reserve(batch_);
}

template <class P>
void lane_buckets_t<P>::to_side(uint32_t b, uint32_t j, bool neg) {
  const affine_t<P> p = from_lane_point(terms_[j]);
  side_[b] += neg ? -p : p;
}

template <class P>
void lane_buckets_t<P>::place(uint32_t b, uint32_t j, bool neg, bool may_wait) {
  const point_t& p = terms_[j];
  if (is_o(p)) return;
  switch (state_[b]) {
    case busy:
      if (may_wait)
        wait_.push_back({b, j, neg});
      else
        to_side(b, j, neg);
      return;
    case empty:
      std::memcpy(&bucket_[b].x, &p.x, sizeof p.x);
      if (neg)
        for (size_t k = 0; k < sizeof p.y / 64; ++k)
          negate_part(reinterpret_cast<const uint64_t*>(&p.y) + 8 * k,
                      reinterpret_cast<uint64_t*>(&bucket_[b].y) + 8 * k);
      else
        std::memcpy(&bucket_[b].y, &p.y, sizeof p.y);
      state_[b] = full;
      return;
    default:
      // Same x: P + P or P + (−P), which the affine formula cannot take.
      if (std::memcmp(&bucket_[b].x, &p.x, sizeof p.x) == 0) {
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
template <class P>
void lane_buckets_t<P>::flush() {
  run_batch();
  std::vector<pending_t> again;
  again.swap(wait_);
  for (const pending_t& e : again) place(e.b, e.j, e.neg, false);
}

template <class P>
void lane_buckets_t<P>::finish() {
  while (!pend_.empty() || !wait_.empty()) flush();
  out_.assign(bucket_.size(), affine_t<P>::infinity());
  const size_t n = bucket_.size();
  for (size_t b = 0; b < n; ++b)
    if (state_[b] != empty) out_[b] = from_lane_point(bucket_[b]);
}

#if STARZK_FF_IFMA

namespace {

// F_p coordinate `part` of a point (x, y on G1; x0, x1, y0, y1 on G2) and
// the row of its lane form that holds it.
const fp_t& part_of(const g1_affine_t& p, unsigned part) { return part == 0 ? p.x : p.y; }
const fp_t& part_of(const g2_affine_t& p, unsigned part) {
  const fp2_t& c = part < 2 ? p.x : p.y;
  return part % 2 == 0 ? c.c0 : c.c1;
}
uint64_t* row_of(lane_point_t& q, unsigned part) { return part == 0 ? q.x : q.y; }
uint64_t* row_of(lane_point2_t& q, unsigned part) { return part < 2 ? q.x[part] : q.y[part - 2]; }

// Eight points at a time: each coordinate into the lanes (a product by a
// constant), canonical, and the eight lanes transposed into their rows.
template <class A, class L>
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void lane_points_of(std::span<const A> in, L* out) {
  constexpr unsigned parts = sizeof(L) / 64;
  for (size_t i = 0; i < in.size(); i += 8) {
    const size_t k = in.size() - i < 8 ? in.size() - i : 8;
    for (unsigned part = 0; part < parts; ++part) {
      alignas(64) fp_t c[8];
      for (unsigned l = 0; l < 8; ++l) c[l] = part_of(in[i + (l < k ? l : 0)], part);
      fp_x8_t v = canonical(ifma::to_lanes(c));
      transpose8(v.l);
      for (unsigned l = 0; l < k; ++l) _mm512_store_si512(row_of(out[i + l], part), v.l[l]);
    }
  }
}

}  // namespace

void to_lane_points(std::span<const g1_affine_t> in, lane_point_t* out) { lane_points_of(in, out); }
void to_lane_points(std::span<const g2_affine_t> in, lane_point2_t* out) { lane_points_of(in, out); }

namespace {

// The batch: pass 1 chains the denominators lane by lane, the eight chain
// products are inverted together, pass 2 walks back (bucket_affine.hpp's
// run_batch, eight chains wide). Lanes past the last pair carry d = 1.
// (A free function: the target attributes do not reach a member template's
// out-of-class definition.)
template <class P, class Pend, class Scratch>
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void run_batch_lanes(const std::vector<Pend>& pend_, Scratch& scratch,
                                                            const uint64_t* terms, uint64_t* buckets) {
  using M = lane_math<P>;
  using F = typename M::F;
  using E = typename M::E;
  const size_t m = pend_.size();
  const size_t groups = (m + 7) / 8;
  using group_t = typename Scratch::group_t;
  auto& [grp, dx, prefix, xq, xp] = scratch;
  for (auto* v : {&dx, &prefix, &xq, &xp})
    if (v->size() < groups) v->resize(groups);
  if (grp.size() < groups) grp.resize(groups);
  const F one = F::one();
  F acc = one;
  for (size_t g = 0; g < groups; ++g) {
    group_t& gr = grp[g];
    gr.live = gr.neg = 0;
    for (unsigned l = 0; l < 8; ++l) {
      const size_t e = 8 * g + l < m ? 8 * g + l : 8 * g;  // a dead lane repeats the group's first pair
      gr.boff[l] = int64_t(pend_[e].b) * M::words;
      gr.toff[l] = int64_t(pend_[e].j) * M::words;
      if (8 * g + l < m) gr.live |= __mmask8(1u << l);
      if (pend_[e].neg) gr.neg |= __mmask8(1u << l);
    }
    xq[g].v = M::load(buckets, gr.boff);
    xp[g].v = M::load(terms, gr.toff);
    dx[g].v = M::pick(gr.live, xp[g].v - xq[g].v, one);
    prefix[g].v = acc;
    acc = acc * dx[g].v;
  }
  // The eight chain products (never 0: x_p != x_q in every pair), inverted
  // with one inversion in E.
  E tot[8], pre[8];
  M::out(acc, tot);
  E run = E::one();
  for (unsigned l = 0; l < 8; ++l) {
    pre[l] = run;
    run *= tot[l];
  }
  E inv_all = run.inverse();
  for (unsigned l = 8; l-- > 0;) {
    const E t = inv_all * pre[l];
    inv_all *= tot[l];
    tot[l] = t;
  }
  F inv = M::in(tot);
  for (size_t g = groups; g-- > 0;) {
    const group_t& gr = grp[g];
    const F dinv = inv * prefix[g].v;
    inv = inv * dx[g].v;
    const F yq = M::load(buckets + M::y_at, gr.boff);
    const F y0 = M::load(terms + M::y_at, gr.toff);
    const F yp = M::pick(gr.neg, F::zero() - y0, y0);
    const F lambda = (yp - yq) * dinv;
    const F x3 = M::reduce(lambda.sqr() - xq[g].v - xp[g].v);
    const F y3 = M::reduce(lambda * (xq[g].v - x3) - yq);
    M::store(buckets, gr.boff, gr.live, x3);
    M::store(buckets + M::y_at, gr.boff, gr.live, y3);
  }
}

}  // namespace

template <class P>
void lane_buckets_t<P>::run_batch() {
  if (pend_.empty()) return;
  run_batch_lanes<P>(pend_, *scratch_, reinterpret_cast<const uint64_t*>(terms_),
                     reinterpret_cast<uint64_t*>(bucket_.data()));
  for (const pending_t& e : pend_) state_[e.b] = full;
  pend_.clear();
}

#else

// Never reached: lane_buckets_available() is false without IFMA.
void to_lane_points(std::span<const g1_affine_t>, lane_point_t*) {}
void to_lane_points(std::span<const g2_affine_t>, lane_point2_t*) {}
template <class P>
void lane_buckets_t<P>::run_batch() {}

#endif

template class lane_buckets_t<g1_params>;
template class lane_buckets_t<g2_params>;

}  // namespace starzk
