// Endomorphisms, subgroup membership and cofactor clearing for G1 and G2.
//
// The fast tests (eprint 2021/1130) are described in subgroup.hpp; the slow
// ones are the definition of the subgroup, on the curve and [r] P = O, and
// exist so that tests can hold the fast ones against them. Every check
// starts with the curve equation: the endomorphism arguments only hold for
// points of the curve, and a point off the curve is in no subgroup.
#include "ec/subgroup.hpp"

#include <algorithm>
#include <atomic>

#include "ec/scalar_mul.hpp"
#include "ec/subgroup_x8.hpp"
#include "ec/x_chain.hpp"
#include "ff/fp_x8_ifma.hpp"
#include "util/parallel.hpp"

namespace starzk {

g1_affine_t phi(const g1_affine_t& p) {
  if (p.is_infinity()) return p;
  return g1_affine_t{p.x * g1_params::endo_beta(), p.y};
}

g1_jacobian_t phi(const g1_jacobian_t& p) { return g1_jacobian_t{p.x * g1_params::endo_beta(), p.y, p.z}; }

g2_affine_t psi(const g2_affine_t& p) {
  if (p.is_infinity()) return p;
  return g2_affine_t{p.x.conjugate() * g2_params::psi_cx(), p.y.conjugate() * g2_params::psi_cy()};
}

g2_jacobian_t psi(const g2_jacobian_t& p) {
  return g2_jacobian_t{p.x.conjugate() * g2_params::psi_cx(), p.y.conjugate() * g2_params::psi_cy(), p.z.conjugate()};
}

namespace {

template <class P>
jacobian_t<P> as_jacobian(const affine_t<P>& p) {
  return jacobian_t<P>::from_affine(p);
}
template <class P>
const jacobian_t<P>& as_jacobian(const jacobian_t<P>& p) {
  return p;
}

// [|x|] P along the fixed chain of ec/x_chain.hpp: 63 doublings and 5
// additions (mixed, 7M + 4S, when P is affine; 11M + 5S when it is
// Jacobian). The additions are the complete ones (jacobian.hpp), so a point
// of small order, whose multiples reach O or repeat along the chain, still
// gets the right answer.
template <class P, class Base>
jacobian_t<P> times_x_abs(const Base& p) {
  return x_abs_chain(as_jacobian(p), p, [](jacobian_t<P> acc, const Base& q) { return acc += q; });
}

// [x] P for the (negative) BLS parameter x: -[|x|] P.
template <class P>
jacobian_t<P> mul_by_bls_x(const jacobian_t<P>& p) {
  static_assert(bls_x_is_negative, "[x] P = -[|x|] P assumes x < 0");
  return times_x_abs<P>(p).neg();
}

}  // namespace

g1_jacobian_t mul_by_x_abs(const g1_affine_t& p) { return times_x_abs<g1_params>(p); }
g1_jacobian_t mul_by_x_abs(const g1_jacobian_t& p) { return times_x_abs<g1_params>(p); }
g2_jacobian_t mul_by_x_abs(const g2_affine_t& p) { return times_x_abs<g2_params>(p); }

g1_jacobian_t clear_cofactor(const g1_jacobian_t& p) {
  // 1 - x = 1 + |x| = 0xd201000000010001 (x < 0).
  static_assert(bls_x_is_negative, "h_eff = 1 - x = 1 + |x| assumes x < 0");
  return times_x_abs<g1_params>(p) + p;
}

g2_jacobian_t clear_cofactor(const g2_jacobian_t& p) {
  // RFC 9380 appendix G.3, step by step (c1 = x):
  const g2_jacobian_t t1 = mul_by_bls_x(p);  // t1 = [x] P
  g2_jacobian_t t2 = psi(p);                 // t2 = psi(P)
  g2_jacobian_t t3 = psi(psi(p.dbl()));      // t3 = psi^2([2] P)
  t3 = t3 - t2;                              // t3 = psi^2(2P) - psi(P)
  t2 = mul_by_bls_x(t1 + t2);                // t2 = [x] ([x] P + psi(P))
  t3 = t3 + t2;
  t3 = t3 - t1;
  return t3 - p;  // [x^2 - x - 1] P + [x - 1] psi(P) + psi^2(2P)
}

// G1: phi(P) == [-x^2] P  <=>  [|x|]([|x|] P) == -phi(P), as x^2 = |x|^2:
// two chains, the first with mixed additions of the affine P.
template <>
bool affine_t<g1_params>::is_in_subgroup() const {
  if (is_infinity()) return true;
  if (!is_on_curve()) return false;
  return times_x_abs<g1_params>(times_x_abs<g1_params>(*this)) == -phi(*this);
}

// G2: psi(P) == [x] P = -[|x|] P  <=>  [|x|] P == -psi(P): one chain.
template <>
bool affine_t<g2_params>::is_in_subgroup() const {
  if (is_infinity()) return true;
  if (!is_on_curve()) return false;
  return times_x_abs<g2_params>(*this) == -psi(*this);
}

namespace {

// The lowest index in [begin, end) of a point outside the subgroup, one
// point at a time; end when there is none or once `known` (a failure found
// elsewhere) is at or below the index reached.
template <class P>
size_t first_failure_scalar(std::span<const affine_t<P>> v, size_t begin, size_t end,
                            const std::atomic<uint64_t>& known) {
  for (size_t i = begin; i < end; ++i) {
    if (i >= known.load(std::memory_order_relaxed)) return end;
    if (!v[i].is_in_subgroup()) return i;
  }
  return end;
}

// Blocks of `block` points are handed to the threads in order; a block
// stops at its first failure and records it in `first` (an atomic
// minimum), and a thread stops scanning a block once a failure at a lower
// index is known. The lowest failing index is always found: no block skips
// an index below the least failure recorded so far. Each block runs eight
// points at a time on AVX-512 IFMA where ff_path::wide() (subgroup_x8.hpp),
// else one at a time.
template <class P>
std::optional<uint64_t> first_outside(std::span<const affine_t<P>> v, unsigned threads) {
  constexpr size_t block = 256;  // 256 G1 points: ~10 ms of work one at a time
  constexpr uint64_t none = UINT64_MAX;
  const bool wide = ff_path::wide();
  std::atomic<uint64_t> first{none};
  parallel_tasks((v.size() + block - 1) / block, threads, [&](size_t b) {
    const size_t begin = b * block, end = std::min(v.size(), (b + 1) * block);
    const size_t i = wide ? first_failure_x8(v, begin, end, first) : first_failure_scalar(v, begin, end, first);
    if (i == end) return;
    uint64_t seen = first.load(std::memory_order_relaxed);
    while (i < seen && !first.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
    }
  });
  const uint64_t f = first.load();
  return f == none ? std::nullopt : std::optional<uint64_t>(f);
}

}  // namespace

std::optional<uint64_t> first_outside_subgroup(std::span<const g1_affine_t> points, unsigned threads) {
  return first_outside<g1_params>(points, threads);
}
std::optional<uint64_t> first_outside_subgroup(std::span<const g2_affine_t> points, unsigned threads) {
  return first_outside<g2_params>(points, threads);
}

template <>
bool affine_t<g1_params>::is_in_subgroup_slow() const {
  return is_on_curve() && mul_limbs(*this, std::span<const uint64_t>(group_order_limbs)).is_infinity();
}

template <>
bool affine_t<g2_params>::is_in_subgroup_slow() const {
  return is_on_curve() && mul_limbs(*this, std::span<const uint64_t>(group_order_limbs)).is_infinity();
}

}  // namespace starzk
