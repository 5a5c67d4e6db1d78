// Subgroup checks of eight points at once on AVX-512 IFMA.
//
// The fast tests of subgroup.hpp are one fixed chain per point (G2:
// [|x|] P == -psi(P)) or two (G1: [|x|]([|x|] P) == -phi(P)), the same
// sequence of doublings and additions for every point (ec/x_chain.hpp).
// Here lane j of each register carries point j's coordinates
// (ff/fp_x8_ifma.hpp), and the chains run the formulas of ec/jacobian.hpp
// instantiated over the 8-lane field: one walk does the work of eight.
//
// The additions on the chain are the branch-free ones (add_unchecked,
// add_mixed_unchecked), which are wrong exactly when an operand is O or the
// two points share their x; and then they give Z3 = 0. Doubling keeps
// Z = 0 (Z3 = 2 Y1 Z1) and so do the additions (Z3 = 2 Z1 Z2 H), so a lane
// that went wrong anywhere ends with Z = 0. A lane that ends with Z != 0
// took no exceptional step: its result is [|x|^2] P (G1) or [|x|] P (G2)
// exactly, and the comparison with -phi(P) / -psi(P) is the scalar check's
// own. A lane that ends with Z = 0 (a point of small order, never a valid
// key point) is decided by the scalar check. Points at infinity pass and
// points off the curve fail before they reach a lane.
//
// Only the chain functions carry STARZK_IFMA_TARGET; they are flattened so
// the point formulas (compiled as ordinary templates) and the lane
// arithmetic become one AVX-512 function each. The scan around them is
// portable code.
#include "ec/subgroup_x8.hpp"

#include <bit>

#include "ec/points_x8.hpp"
#include "ec/subgroup.hpp"
#include "ec/x_chain.hpp"

namespace starzk {

namespace {

#if STARZK_FF_IFMA

// The chain's three steps on eight lanes, one out-of-line AVX-512 copy each
// per curve (a doubling is ~25 KB of code on G1, ~75 KB on G2), called by
// the chains below rather than inlined at each of their eleven places.
template <class J>
struct x8_steps {
  using affine_type = typename J::affine_type;
  [[gnu::noinline]] STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN static void dbl_n(J& p, unsigned n) { p = p.dbl_n(n); }
  [[gnu::noinline]] STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN static void add_mixed(J& acc, const affine_type& q) {
    acc = acc.add_mixed_unchecked(q);
  }
  [[gnu::noinline]] STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN static void add(J& acc, const J& q) {
    acc = acc.add_unchecked(q);
  }
  // [|x|] P with mixed additions (P affine) or general ones (P Jacobian).
  STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN static J x_abs(const affine_type& p) {
    const J start{p.x, p.y, J::field_t::one()};
    return x_abs_chain(start, p, add_mixed_step, dbl_n_step);
  }
  STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN static J x_abs(const J& p) { return x_abs_chain(p, p, add_step, dbl_n_step); }
  static J add_mixed_step(J acc, const affine_type& q) {
    add_mixed(acc, q);
    return acc;
  }
  static J add_step(J acc, const J& q) {
    add(acc, q);
    return acc;
  }
  static J dbl_n_step(J acc, unsigned n) {
    dbl_n(acc, n);
    return acc;
  }
};

// [|x|]([|x|] P) for eight affine points, neither O nor off the curve: the
// first chain adds the affine P (mixed, 7M + 4S), the second its Jacobian
// result Q (11M + 5S). Out: canonical fp_t Jacobian points.
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void g1_chains_x8(const g1_affine_t* p, g1_jacobian_t* out) {
  fp_t x[8], y[8];
  for (unsigned j = 0; j < 8; ++j) x[j] = p[j].x, y[j] = p[j].y;
  const g1_x8_affine_t a{ifma::to_lanes(x), ifma::to_lanes(y)};
  using steps = x8_steps<g1_x8_jacobian_t>;
  const g1_x8_jacobian_t r = steps::x_abs(steps::x_abs(a));
  fp_t rx[8], ry[8], rz[8];
  ifma::from_lanes(r.x, rx);
  ifma::from_lanes(r.y, ry);
  ifma::from_lanes(r.z, rz);
  for (unsigned j = 0; j < 8; ++j) out[j] = g1_jacobian_t{rx[j], ry[j], rz[j]};
}

// [|x|] P for eight affine points of E'(F_p2), neither O nor off the curve:
// one chain with mixed additions, in F_p2 over the lanes (Karatsuba, 3M).
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void g2_chain_x8(const g2_affine_t* p, g2_jacobian_t* out) {
  fp_t c[4][8];  // x.c0, x.c1, y.c0, y.c1 of each lane
  for (unsigned j = 0; j < 8; ++j) c[0][j] = p[j].x.c0, c[1][j] = p[j].x.c1, c[2][j] = p[j].y.c0, c[3][j] = p[j].y.c1;
  const g2_x8_affine_t a{{ifma::to_lanes(c[0]), ifma::to_lanes(c[1])}, {ifma::to_lanes(c[2]), ifma::to_lanes(c[3])}};
  const g2_x8_jacobian_t r = x8_steps<g2_x8_jacobian_t>::x_abs(a);
  fp_t o[6][8];
  const ifma::fp_x8_t* coords[6] = {&r.x.c0, &r.x.c1, &r.y.c0, &r.y.c1, &r.z.c0, &r.z.c1};
  for (unsigned k = 0; k < 6; ++k) ifma::from_lanes(*coords[k], o[k]);
  for (unsigned j = 0; j < 8; ++j) out[j] = g2_jacobian_t{{o[0][j], o[1][j]}, {o[2][j], o[3][j]}, {o[4][j], o[5][j]}};
}

#endif  // STARZK_FF_IFMA

// Below this many points a partial batch is tested one point at a time: a
// walk of eight lanes costs what 1.7 (G1) to 1.9 (G2) scalar checks cost
// (docs/benchmarks.md), so padding pays from two points on.
constexpr unsigned min_lanes = 2;

// The scan of first_failure_x8: candidates (on the curve, not O) gather in
// index order into batches of eight; a partial batch (the block's end, or
// before a point off the curve) is padded with the generator, or tested
// point by point when it is short.
template <class A>
size_t first_failure_batched(std::span<const A> v, size_t begin, size_t end, const std::atomic<uint64_t>& known) {
  constexpr size_t none = SIZE_MAX;
  size_t idx[8];
  unsigned n = 0;
  // The lowest failing index among the pending candidates, or none; empties
  // the batch.
  auto flush = [&]() -> size_t {
    const unsigned count = n;
    n = 0;
    if (count < min_lanes) {
      for (unsigned k = 0; k < count; ++k)
        if (!v[idx[k]].is_in_subgroup()) return idx[k];
      return none;
    }
    A lanes[8];
    for (unsigned j = 0; j < 8; ++j) lanes[j] = j < count ? v[idx[j]] : A::generator();
    const unsigned bits = outside_x8(lanes) & ((1u << count) - 1);
    return bits ? idx[std::countr_zero(bits)] : none;
  };
  for (size_t i = begin; i < end; ++i) {
    // A failure known below i lies in an earlier block, below every pending
    // candidate: nothing here can be lower.
    if (i >= known.load(std::memory_order_relaxed)) return end;
    const A& p = v[i];
    if (p.is_infinity()) continue;
    if (!p.is_on_curve()) {
      const size_t f = flush();  // pending candidates are all below i
      return f != none ? f : i;
    }
    idx[n++] = i;
    if (n == 8) {
      const size_t f = flush();
      if (f != none) return f;
    }
  }
  const size_t f = flush();
  return f != none ? f : end;
}

}  // namespace

namespace {

// Bit j set when p[j] is outside the subgroup. With IFMA: r[j] = the
// group's multiple of p[j] from its eight-lane chain must equal
// -image(p[j]) (G1: [|x|]([|x|] P) == -phi(P); G2: [|x|] P == -psi(P);
// subgroup.cpp); Z = 0 is an exceptional step, and the scalar check
// decides. Without IFMA: the scalar check for each point.
template <class J, class A, class Chain, class Image>
unsigned outside_bits(const A* p, [[maybe_unused]] Chain chain, [[maybe_unused]] Image image) {
  unsigned bits = 0;
#if STARZK_FF_IFMA
  J r[8];
  chain(p, r);
  for (unsigned j = 0; j < 8; ++j)
    if (!(r[j].is_infinity() ? p[j].is_in_subgroup() : r[j] == -image(p[j]))) bits |= 1u << j;
#else
  for (unsigned j = 0; j < 8; ++j)
    if (!p[j].is_in_subgroup()) bits |= 1u << j;
#endif
  return bits;
}

}  // namespace

#if STARZK_FF_IFMA
unsigned outside_x8(const g1_affine_t* p) {
  return outside_bits<g1_jacobian_t>(p, g1_chains_x8, [](const g1_affine_t& q) { return phi(q); });
}
unsigned outside_x8(const g2_affine_t* p) {
  return outside_bits<g2_jacobian_t>(p, g2_chain_x8, [](const g2_affine_t& q) { return psi(q); });
}
#else
unsigned outside_x8(const g1_affine_t* p) { return outside_bits<g1_jacobian_t>(p, nullptr, nullptr); }
unsigned outside_x8(const g2_affine_t* p) { return outside_bits<g2_jacobian_t>(p, nullptr, nullptr); }
#endif

size_t first_failure_x8(std::span<const g1_affine_t> v, size_t begin, size_t end, const std::atomic<uint64_t>& known) {
  return first_failure_batched(v, begin, end, known);
}
size_t first_failure_x8(std::span<const g2_affine_t> v, size_t begin, size_t end, const std::atomic<uint64_t>& known) {
  return first_failure_batched(v, begin, end, known);
}

}  // namespace starzk
