// all_in_g1 and its two parts, all_in_g2 (batch_membership.hpp, where the
// math is).
//
// Both parts cut the points into slices, one per thread (none shorter than
// min_slice points: each slice pays a fixed cost for its buckets), and
// each slice draws its random bytes from the caller's source a block at a
// time. A slice's buckets are its own; the slices' results are combined in
// slice order, so the work done does not depend on timing.
//   Part A: a slice keeps nine groups of 243 F_p buckets; a point multiplies
//   one bucket of each group by u = y − 2. The slices' buckets are
//   multiplied together, and the 45 rounds are read off them and raised to
//   (p − 1)/3 (on the threads, a round each).
//   Part B (G1 and G2 alike): a slice keeps the rounds' 127 buckets in one
//   bucket set, so consecutive additions meet distinct buckets and a batch
//   of a quarter of the set shares one inversion; in the IFMA lanes the
//   slice's points go into the lane form a chunk at a time (the chunk's
//   pending additions run before the next chunk replaces it), which bounds
//   the table's memory for a key's largest queries. Each slice's share of
//   Q_k comes from the running sum over round k's buckets; the shares are
//   added, the Q_k made affine with one inversion and checked by
//   first_outside_subgroup (eight at a time where the CPU has AVX-512 IFMA).
#include "msm/batch_membership.hpp"

#include <algorithm>
#include <array>
#include <type_traits>
#include <vector>

#include "ec/subgroup.hpp"
#include "ec/xyzz.hpp"
#include "msm/bucket_affine.hpp"
#include "msm/bucket_lanes.hpp"
#include "util/os_random.hpp"
#include "util/parallel.hpp"

namespace starzk {
namespace {

// The fewest points a slice gets unless it is the only one, and the points
// a slice draws random bytes for at a time.
constexpr size_t min_slice = 2048, block_points = 1024;

// Random bytes from the caller's source, a block at a time.
class random_bytes_t {
 public:
  random_bytes_t(const random_fill_t& fill, size_t block) : fill_(fill), buf_(block), at_(block) {}

  uint8_t next() {
    if (at_ == buf_.size()) {
      fill_(std::span<uint8_t>(buf_));
      at_ = 0;
    }
    return buf_[at_++];
  }

  // Uniform in [0, 3^5): five independent uniform trits, its base-3 digits.
  // A byte of 243 or more is drawn again.
  unsigned next_trits() {
    for (;;)
      if (const uint8_t v = next(); v < 243) return v;
  }

 private:
  const random_fill_t& fill_;
  std::vector<uint8_t> buf_;
  size_t at_;
};

size_t slice_count(size_t n, unsigned threads) {
  return std::clamp<size_t>(n / min_slice, 1, resolve_threads(threads));
}

// Slice t of s: [t·n/s, (t + 1)·n/s), never empty for s ≤ n.
template <class A>
std::span<const A> slice_of(std::span<const A> v, size_t t, size_t s) {
  const size_t b = t * v.size() / s, e = (t + 1) * v.size() / s;
  return v.subspan(b, e - b);
}

// ---- Part A: the 3-components (cubic characters of y − 2) ----

constexpr unsigned trit_groups = 9, trits_per_byte = 5, cube_rounds = trit_groups * trits_per_byte;
constexpr size_t group_buckets = 243;  // 3^5: bucket v holds the u whose byte was v

// (p − 1)/3, the exponent of the cubic character χ(u) = u^((p−1)/3) ∈ μ_3.
constexpr fp_t::limbs_t cube_exponent = [] {
  fp_t::limbs_t e = fp_t::m_minus_1;
  limbs::div_small(e, 3);
  return e;
}();

// One slice's buckets: b[g·243 + v] = Π of the u_i = y_i − 2 whose byte in
// group g was v (v = 0, all five exponents 0, is never read). False at
// P = T (u = 0), whose 3-component is T.
bool cube_buckets(std::span<const g1_affine_t> pts, const random_fill_t& fill, std::vector<fp_t>& b) {
  b.assign(trit_groups * group_buckets, fp_t::one());
  random_bytes_t rnd(fill, block_points * (trit_groups + 1));
  const fp_t two = fp_t::from_u64(2);
  for (const g1_affine_t& p : pts) {
    if (p.is_infinity()) continue;
    const fp_t u = p.y - two;
    if (u.is_zero()) return false;
    for (unsigned g = 0; g < trit_groups; ++g)
      if (const unsigned v = rnd.next_trits()) b[g * group_buckets + v] *= u;
  }
  return true;
}

// Round 5g + d: point i's exponent is digit d of its byte v_ig, so
//   c = Π_v B_g[v]^(digit_d(v)) = (Π_{digit_d(v) = 1} B_g[v]) · (Π_{digit_d(v) = 2} B_g[v])²,
// and the round passes iff χ(c) = 1.
bool round_passes(const fp_t* bg, unsigned d) {
  unsigned place = 1;  // 3^d
  for (unsigned i = 0; i < d; ++i) place *= 3;
  fp_t ones = fp_t::one(), twos = fp_t::one();
  for (unsigned v = 1; v < group_buckets; ++v) {
    const unsigned digit = v / place % 3;
    if (digit == 1)
      ones *= bg[v];
    else if (digit == 2)
      twos *= bg[v];
  }
  return (ones * twos.sqr()).pow(std::span<const uint64_t>(cube_exponent)) == fp_t::one();
}

// ---- Part B: the other primes (random combinations) ----

// Rounds per group: 19 on G1 (worst prime 11), 18 on G2 (worst prime 13).
template <class P>
constexpr unsigned sum_rounds = std::is_same_v<P, g1_params> ? 19 : 18;
constexpr unsigned rho_values = 128, round_buckets = rho_values - 1;  // round k's ρ at k·127 + ρ − 1
template <class P>
constexpr size_t sum_buckets = size_t(sum_rounds<P>) * round_buckets;
// Batches of a quarter of the buckets (about one addition in eight meets a
// bucket already in the batch), at most 512 one at a time as in
// pippenger.cpp's affine batches, at most 1024 in lanes as in its lane ones.
template <class P>
constexpr size_t affine_batch = std::min<size_t>(512, sum_buckets<P> / 4);
template <class P>
constexpr size_t lane_batch = std::min<size_t>(1024, sum_buckets<P> / 4);
// Points in the lane form at a time (128 bytes each on G1, 256 on G2).
constexpr size_t lane_chunk = size_t(1) << 15;

template <class P>
using round_sums_t = std::array<xyzz_t<P>, sum_rounds<P>>;

// A point's draws: add(b) puts it into bucket b of round k for each ρ ≠ 0.
template <class P, class Add>
void place_point(random_bytes_t& rnd, Add add) {
  for (unsigned k = 0; k < sum_rounds<P>; ++k)
    if (const unsigned rho = rnd.next() & (rho_values - 1)) add(size_t(k) * round_buckets + rho - 1);
}

// The slice's share of each Q_k = Σ_ρ ρ·B_k[ρ − 1]: running = Σ_{ρ' ≥ ρ} B_k[ρ' − 1],
// total += running, ρ from the top (after finish()).
template <class P, class Buckets>
round_sums_t<P> round_sums(const Buckets& bk) {
  round_sums_t<P> q;
  for (unsigned k = 0; k < sum_rounds<P>; ++k) {
    xyzz_t<P> running = xyzz_t<P>::infinity(), total = xyzz_t<P>::infinity();
    for (size_t b = round_buckets; b-- > 0;) {
      bk.add_bucket_to(running, size_t(k) * round_buckets + b);  // madd-2008-s, add-2008-s with a side sum
      total += running;                                          // add-2008-s
    }
    q[k] = total;
  }
  return q;
}

template <class P>
round_sums_t<P> slice_sums_affine(std::span<const affine_t<P>> pts, const random_fill_t& fill) {
  affine_buckets_t<P> bk(sum_buckets<P>, affine_batch<P>);
  random_bytes_t rnd(fill, block_points * sum_rounds<P>);
  for (const affine_t<P>& p : pts)
    if (!p.is_infinity()) place_point<P>(rnd, [&](size_t b) { bk.add(b, p); });
  bk.finish();
  return round_sums<P>(bk);
}

template <class P>
round_sums_t<P> slice_sums_lanes(std::span<const affine_t<P>> pts, const random_fill_t& fill) {
  std::vector<lane_point_of<P>> table(std::min(pts.size(), lane_chunk));
  lane_buckets_t<P> bk(sum_buckets<P>, lane_batch<P>, table.data());
  random_bytes_t rnd(fill, block_points * sum_rounds<P>);
  for (size_t c = 0; c < pts.size(); c += lane_chunk) {
    const std::span<const affine_t<P>> chunk = pts.subspan(c, std::min(lane_chunk, pts.size() - c));
    to_lane_points(chunk, table.data());
    for (size_t j = 0; j < chunk.size(); ++j)
      if (!chunk[j].is_infinity()) place_point<P>(rnd, [&](size_t b) { bk.add(b, j, false); });
    bk.finish();  // what is pending on this chunk's terms runs before the next chunk replaces them
  }
  return round_sums<P>(bk);
}

// Part B on either group: the slices' shares of each Q_k, added in slice
// order, made affine together and checked.
template <class P>
bool random_sums_in_subgroup(std::span<const affine_t<P>> points, const random_fill_t& fill,
                             const membership_config_t& cfg) {
  if (points.empty()) return true;
  const size_t s = slice_count(points.size(), cfg.threads);
  const bool lanes = cfg.lanes && lane_buckets_available();
  std::vector<round_sums_t<P>> share(s);
  parallel_tasks(s, unsigned(s), [&](size_t t) {
    const std::span<const affine_t<P>> pts = slice_of(points, t, s);
    share[t] = lanes ? slice_sums_lanes<P>(pts, fill) : slice_sums_affine<P>(pts, fill);
  });
  std::vector<xyzz_t<P>> q(share[0].begin(), share[0].end());
  for (size_t t = 1; t < s; ++t)
    for (unsigned k = 0; k < sum_rounds<P>; ++k) q[k] += share[t][k];
  std::vector<affine_t<P>> qa(sum_rounds<P>);
  xyzz_t<P>::batch_to_affine(q, qa);
  return !first_outside_subgroup(std::span<const affine_t<P>>(qa), 1).has_value();
}

}  // namespace

bool three_components_zero(std::span<const g1_affine_t> points, const random_fill_t& fill, unsigned threads) {
  if (points.empty()) return true;
  const size_t s = slice_count(points.size(), threads);
  std::vector<std::vector<fp_t>> bucket(s);
  std::vector<uint8_t> no_t(s, 0);
  parallel_tasks(s, unsigned(s), [&](size_t t) { no_t[t] = cube_buckets(slice_of(points, t, s), fill, bucket[t]); });
  if (std::find(no_t.begin(), no_t.end(), 0) != no_t.end()) return false;
  // B_g[v] of the whole set: the slices' products, multiplied in slice order.
  std::vector<fp_t>& b = bucket[0];
  for (size_t t = 1; t < s; ++t)
    for (size_t i = 0; i < b.size(); ++i) b[i] *= bucket[t][i];
  std::vector<uint8_t> pass(cube_rounds, 0);
  parallel_tasks(cube_rounds, resolve_threads(threads), [&](size_t k) {
    pass[k] = round_passes(b.data() + k / trits_per_byte * group_buckets, unsigned(k % trits_per_byte));
  });
  return std::find(pass.begin(), pass.end(), 0) == pass.end();
}

bool random_sums_in_g1(std::span<const g1_affine_t> points, const random_fill_t& fill, const membership_config_t& cfg) {
  return random_sums_in_subgroup<g1_params>(points, fill, cfg);
}

bool all_in_g1(std::span<const g1_affine_t> points, const random_fill_t& fill, const membership_config_t& cfg) {
  // Part A first: it costs a fraction of part B and ends early at P = T.
  return three_components_zero(points, fill, cfg.threads) && random_sums_in_g1(points, fill, cfg);
}

bool all_in_g1(std::span<const g1_affine_t> points, const random_fill_t& fill, unsigned threads) {
  return all_in_g1(points, fill, membership_config_t{.threads = threads});
}

bool all_in_g2(std::span<const g2_affine_t> points, const random_fill_t& fill, const membership_config_t& cfg) {
  return random_sums_in_subgroup<g2_params>(points, fill, cfg);
}

bool all_in_g2(std::span<const g2_affine_t> points, const random_fill_t& fill, unsigned threads) {
  return all_in_g2(points, fill, membership_config_t{.threads = threads});
}

std::optional<uint64_t> first_outside_subgroup_batched(std::span<const g1_affine_t> points, unsigned threads) {
  if (points.size() >= batched_min && all_in_g1(points, fill_random, threads)) return std::nullopt;
  return first_outside_subgroup(points, threads);
}

std::optional<uint64_t> first_outside_subgroup_batched(std::span<const g2_affine_t> points, unsigned threads) {
  if (points.size() >= batched_min && all_in_g2(points, fill_random, threads)) return std::nullopt;
  return first_outside_subgroup(points, threads);
}

}  // namespace starzk
