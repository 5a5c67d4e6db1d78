// Pippenger MSM implementation (see pippenger.hpp), instantiated for G1 and
// G2.
//
// Signed digits without carries. With bits b_j of k (b_j = 0 for j < 0)
// and raw_w = bits [wc, wc + c) of k, set
//   d_w = raw_w + b_(wc−1) − 2^c · b_(wc+c−1)
// i.e. add the top bit of the window below and subtract 2^c when our own top
// bit is set. Then
//   Σ_w d_w 2^(wc) = Σ_w raw_w 2^(wc) + Σ_w b_(wc−1) 2^(wc) − Σ_w b_((w+1)c−1) 2^((w+1)c)
//                  = (k mod 2^(Wc)) + b_(−1) − b_(Wc−1) 2^(Wc),
// the last two sums telescoping, with b_(−1) = 0. A scalar is a string of
// 64-bit limbs in two's complement, its bits past the top limb read as the
// sign (sign extension), and |k| < 2^(Wc−1). For k ≥ 0, b_(Wc−1) = 0 and
// k mod 2^(Wc) = k; for k < 0, b_(Wc−1) = 1 and k mod 2^(Wc) = k + 2^(Wc):
// either way the sum is k. The plain path has k < r < 2^255 in 4 limbs
// (never negative) and Wc ≥ 256; the GLV halves have |k| < 2^127 in 2 limbs
// and Wc ≥ 128. Range: top bit clear ⇒ raw < 2^(c−1), d ∈ [0, 2^(c−1)];
// top bit set ⇒ raw ≥ 2^(c−1), d ∈ [−2^(c−1), 0]. Each digit depends only on
// c + 1 bits of k, so every window is computed independently (no carry pass,
// no digit table in memory).
#include "msm/pippenger.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ec/glv.hpp"
#include "ec/xyzz.hpp"
#include "msm/bucket_affine.hpp"
#include "msm/bucket_lanes.hpp"
#include "util/parallel.hpp"
#include "util/uninit_vector.hpp"

namespace starzk {
namespace {

using canon_t = std::array<uint64_t, 4>;  // the plain path: 0 ≤ k < r
using glv_t = std::array<uint64_t, 2>;    // a GLV half: |k| < 2^127, two's complement

// Bits of k that an MSM of such scalars must cover: k < 2^bits in size.
constexpr unsigned canon_bits = 255, glv_bits = 127;

// Bits [pos, pos + len) of k, len ≤ 32; bits past the top limb read as the
// sign bit (0 for the canonical scalars, whose bit 255 is clear).
template <size_t L>
inline uint32_t get_bits(const std::array<uint64_t, L>& k, unsigned pos, unsigned len) {
  const uint64_t fill = uint64_t(int64_t(k[L - 1]) >> 63);
  const unsigned limb = pos / 64, off = pos % 64;
  uint64_t v = (limb < L ? k[limb] : fill) >> off;
  if (off + len > 64) v |= (limb + 1 < L ? k[limb + 1] : fill) << (64 - off);
  return uint32_t(v & ((uint64_t(1) << len) - 1));
}

template <size_t L>
inline int32_t signed_digit(const std::array<uint64_t, L>& k, unsigned w, unsigned c) {
  const unsigned pos = w * c;
  const int32_t raw = int32_t(get_bits(k, pos, c));
  const int32_t below = pos == 0 ? 0 : int32_t(get_bits(k, pos - 1, 1));
  const int32_t top = raw >> (c - 1);
  return raw + below - (top << c);
}

// The plain buckets: XYZZ, one mixed addition per point (8M + 2S).
template <class P>
struct xyzz_buckets_t {
  std::vector<xyzz_t<P>> v;
  explicit xyzz_buckets_t(size_t n) : v(n, xyzz_t<P>::infinity()) {}
  size_t size() const { return v.size(); }
  void add(size_t b, const affine_t<P>& p) { v[b] += p; }
  void finish() {}
  void add_bucket_to(xyzz_t<P>& acc, size_t b) const { acc += v[b]; }
};

// Buckets window w can reach for scalars of size below 2^bits: the window
// holds s = min(c, bits − wc) bits of |k|; with s < c the rest of it is
// sign (0 for k ≥ 0, 1 for k < 0) and d ∈ [−2^s, 2^s] (the carry from below
// included).
inline size_t window_reach(unsigned w, unsigned c, unsigned bits) {
  const unsigned lo = w * c;
  const unsigned s = lo >= bits ? 0 : std::min(c, bits - lo);
  return s == c ? size_t(1) << (c - 1) : (size_t(1) << s);
}

// Affine buckets pay once a unit holds enough points per reachable bucket
// for full batches: batches of half the buckets (up to 512) meet few taken
// buckets (~B²/(2N)) and share one inversion among hundreds of additions.
constexpr size_t affine_min_points = 1024, affine_min_buckets = 64, affine_max_batch = 512;
inline size_t affine_batch(const msm_config_t& cfg, size_t points, size_t reach) {
  if (!cfg.affine_buckets || points < affine_min_points || reach < affine_min_buckets || points < 2 * reach) return 0;
  return std::min(affine_max_batch, reach / 2);
}

// Σ_b (b + 1)·bucket[first + b] over b < count, after finish(): running =
// Σ_{j ≥ b} bucket[first + j], total += running, from the top.
template <class P, class Buckets>
xyzz_t<P> running_sum(const Buckets& bucket, size_t first, size_t count) {
  xyzz_t<P> running = xyzz_t<P>::infinity(), total = xyzz_t<P>::infinity();
  for (size_t b = count; b-- > 0;) {
    bucket.add_bucket_to(running, first + b);  // add-2008-s (12M + 2S); madd-2008-s from affine
    total += running;
  }
  return total;
}

// One unit: window w of the points [begin, end); returns Σ_b (b + 1)·bucket[b].
template <class P, class Buckets, class BaseFn, class K>
xyzz_t<P> window_sum(Buckets& bucket, BaseFn& base, const std::vector<K>& k, unsigned w, unsigned c, size_t begin,
                     size_t end) {
  for (size_t i = begin; i < end; ++i) {
    const int32_t d = signed_digit(k[i], w, c);
    if (d > 0)
      bucket.add(size_t(d - 1), base(i));
    else if (d < 0)
      bucket.add(size_t(-d - 1), -base(i));
  }
  bucket.finish();
  return running_sum<P>(bucket, 0, bucket.size());
}

// The lane buckets (msm/bucket_lanes.hpp) where a unit reaches at least
// lane_min_reach buckets (batches of a quarter of them, up to
// lane_max_batch: few pairs wait, one inversion is shared by hundreds), the
// CPU has the lanes, and the table of the terms in the lane form (128 bytes
// a term on G1, 256 on G2) fits in glv_table_max_bytes.
constexpr size_t lane_min_reach = 512, lane_max_batch = 1024;
// The fewest terms for which pooled windows (below) are worth their pool.
constexpr size_t pool_min_terms = 256;
inline size_t lane_batch(size_t points, size_t reach) {
  if (points < affine_min_points || reach < lane_min_reach || points < 2 * reach) return 0;
  return std::min(lane_max_batch, reach / 4);
}

template <class P>
bool use_lanes(const msm_config_t& cfg, size_t n, bool pooled) {
  return cfg.affine_buckets && cfg.lanes && n >= (pooled ? pool_min_terms : affine_min_points) &&
         n <= cfg.glv_table_max_bytes / sizeof(lane_point_of<P>) && lane_buckets_available();
}

// Pooled windows: where a window alone would fill only short batches (its
// few buckets, or its few terms: the tail of a split MSM, a few thousand
// scalars), the windows of one thread share a pool of buckets, window w's
// bucket b at (w − w0)·2^(c−1) + b. A term adds into each of the pool's
// windows in turn, so consecutive additions meet distinct buckets, and a
// batch of a quarter of the pool shares its inversion among hundreds of
// additions instead of tens, with ~1/8 of them meeting a taken bucket.
// Returns the number of pools (one per thread, at most one per window), 0
// where the windows go alone or a pool would pass 2^16 buckets (a wide
// window fixed by msm_config_t::window_bits).
constexpr size_t pool_max_batch = 512, pool_short_batch = 256, pool_max_buckets = size_t(1) << 16;
template <class P>
size_t pool_count(const msm_config_t& cfg, size_t n, const msm_plan_t& plan, unsigned threads, unsigned bits) {
  if (!cfg.affine_buckets || plan.slices != 1 || n < pool_min_terms) return 0;
  const size_t reach = window_reach(0, plan.window_bits, bits);
  const size_t alone = use_lanes<P>(cfg, n, false) ? lane_batch(n, reach) : affine_batch(cfg, n, reach);
  const size_t pools = std::min<size_t>(plan.windows, threads);
  const size_t widest = (plan.windows + pools - 1) / pools * (size_t(1) << (plan.window_bits - 1));
  if (alone >= pool_short_batch || widest > pool_max_buckets) return 0;
  return pools;
}
inline size_t pool_batch(size_t pool) { return std::min(pool_max_batch, std::max<size_t>(8, pool / 4)); }

// The window sums S_w, w in [w0, w1), of one pool: add(bucket, b, i, neg)
// puts ±term i into pool bucket b.
template <class P, class Buckets, class AddFn, class K>
void pooled_sums(Buckets& bucket, AddFn add, const std::vector<K>& k, unsigned w0, unsigned w1, unsigned c,
                 jacobian_t<P>* out) {
  const size_t nb = size_t(1) << (c - 1);
  for (size_t i = 0; i < k.size(); ++i)
    for (unsigned w = w0; w < w1; ++w) {
      const int32_t d = signed_digit(k[i], w, c);
      if (d != 0) add(bucket, (w - w0) * nb + size_t(d > 0 ? d : -d) - 1, i, d < 0);
    }
  bucket.finish();
  for (unsigned w = w0; w < w1; ++w) out[w - w0] = running_sum<P>(bucket, (w - w0) * nb, nb).to_jacobian();
}

// The lane form of window_sum: the buckets take the term's index; on G1
// the running sums run in lanes too.
template <class P, class K>
xyzz_t<P> window_sum_lanes(lane_buckets_t<P>& bucket, const std::vector<K>& k, unsigned w, unsigned c, size_t begin,
                           size_t end) {
  for (size_t i = begin; i < end; ++i) {
    const int32_t d = signed_digit(k[i], w, c);
    if (d > 0)
      bucket.add(size_t(d - 1), i, false);
    else if (d < 0)
      bucket.add(size_t(-d - 1), i, true);
  }
  if constexpr (std::is_same_v<P, g1_params>) {
    return bucket.window_sum();
  } else {
    bucket.finish();
    return running_sum<P>(bucket, 0, bucket.size());
  }
}

// The shared core: n terms, base(i) the i-th affine base, k[i] the i-th
// scalar (canon_t or glv_t), of size below 2^bits.
template <class P, class BaseFn, class K>
jacobian_t<P> pippenger_core(size_t n, BaseFn base, const std::vector<K>& k, unsigned bits, const msm_config_t& cfg) {
  using jac = jacobian_t<P>;
  if (n == 0) return jac::infinity();
  const unsigned threads = resolve_threads(cfg.threads);
  // The plan for the G1 lanes where they may run. G2 keeps the plain plan:
  // its running sums are not in lanes.
  const bool lane_plan = std::is_same_v<P, g1_params> && use_lanes<P>(cfg, n, false);
  const msm_plan_t plan = msm_plan(n, threads, cfg.window_bits, bits, lane_plan);
  const size_t pools = pool_count<P>(cfg, n, plan, threads, bits);
  const bool lanes = use_lanes<P>(cfg, n, pools != 0);
  uninit_vector_t<lane_point_of<P>> table;  // first touched by the threads that fill it
  if (lanes) {
    table.resize(n);
    constexpr size_t chunk = 1024;
    parallel_tasks((n + chunk - 1) / chunk, threads, [&](size_t t) {
      const size_t b = t * chunk, e = std::min(n, b + chunk);
      std::vector<affine_t<P>> in(e - b);
      for (size_t i = b; i < e; ++i) in[i - b] = base(i);
      to_lane_points(std::span<const affine_t<P>>(in), table.data() + b);
    });
  }
  const unsigned c = plan.window_bits, n_windows = plan.windows;
  const size_t parts = plan.slices;
  const size_t n_buckets = size_t(1) << (c - 1);  // |d| = 1 .. 2^(c−1)
  const size_t slice = (n + parts - 1) / parts;

  std::vector<jac> unit_sum(size_t(n_windows) * parts, jac::infinity());
  if (pools) {  // parts = 1: unit_sum[w] = S_w
    parallel_tasks(pools, threads, [&](size_t g) {
      const unsigned w0 = unsigned(g * n_windows / pools), w1 = unsigned((g + 1) * n_windows / pools);
      const size_t pool = size_t(w1 - w0) * n_buckets;
      if (lanes) {
        lane_buckets_t<P> bucket(pool, pool_batch(pool), table.data());
        auto add = [](lane_buckets_t<P>& bk, size_t b, size_t i, bool neg) { bk.add(b, i, neg); };
        return pooled_sums<P>(bucket, add, k, w0, w1, c, unit_sum.data() + w0);
      }
      affine_buckets_t<P> bucket(pool, pool_batch(pool));
      auto add = [&](affine_buckets_t<P>& bk, size_t b, size_t i, bool neg) { bk.add(b, neg ? -base(i) : base(i)); };
      pooled_sums<P>(bucket, add, k, w0, w1, c, unit_sum.data() + w0);
    });
  } else {
    parallel_tasks(unit_sum.size(), threads, [&](size_t u) {
      const unsigned w = unsigned(u / parts);
      const size_t begin = std::min(n, (u % parts) * slice), end = std::min(n, begin + slice);
      if (const size_t batch = lanes ? lane_batch(end - begin, window_reach(w, c, bits)) : 0) {
        lane_buckets_t<P> bucket(n_buckets, batch, table.data());
        unit_sum[u] = window_sum_lanes<P>(bucket, k, w, c, begin, end).to_jacobian();
        return;
      }
      if (const size_t batch = affine_batch(cfg, end - begin, window_reach(w, c, bits))) {
        affine_buckets_t<P> bucket(n_buckets, batch);
        unit_sum[u] = window_sum<P>(bucket, base, k, w, c, begin, end).to_jacobian();
      } else {
        xyzz_buckets_t<P> bucket(n_buckets);
        unit_sum[u] = window_sum<P>(bucket, base, k, w, c, begin, end).to_jacobian();
      }
    });
  }

  // Σ_w 2^(wc) S_w, top window first (Horner), S_w = Σ of its slices.
  jac acc = jac::infinity();
  for (unsigned w = n_windows; w-- > 0;) {
    for (unsigned i = 0; i < c; ++i) acc = acc.dbl();  // dbl-2009-l, 2M + 5S
    for (size_t p = 0; p < parts; ++p) acc = acc.add(unit_sum[size_t(w) * parts + p]);
  }
  return acc;
}

// Montgomery -> canonical, once per scalar, in parallel.
std::vector<canon_t> to_canonical(std::span<const fr_t> scalars, unsigned threads) {
  std::vector<canon_t> k(scalars.size());
  parallel_for(
      scalars.size(), threads,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) k[i] = scalars[i].to_canonical();
      },
      4096);
  return k;
}

// The GLV form (pippenger.hpp, ec/glv.hpp): 2n terms, term i < n is
// (base(i), k1_i) and term n + i is (x2_endo(base(i)), k2_i), with
// s_i ≡ k1_i + k2_i·x^2 (mod r), so Σ s_i·base(i) = Σ k1_i·base(i) +
// Σ k2_i·[x^2]base(i), and |k1_i|, |k2_i| < 2^127.
template <class P, class BaseFn>
jacobian_t<P> glv_core(size_t n, BaseFn base, std::span<const fr_t> scalars, const msm_config_t& cfg) {
  using aff = affine_t<P>;
  if (n == 0) return jacobian_t<P>::infinity();
  std::vector<glv_t> k(2 * n);
  // The images x2_endo(base(i)) in a table of their own, unless the MSM
  // runs in lanes: its lane table is built in one pass over the terms, each
  // image made there (a narrow top window in plain buckets makes its
  // images again, one product each).
  const bool table = !use_lanes<P>(cfg, 2 * n, false) && n <= cfg.glv_table_max_bytes / sizeof(aff);
  std::vector<aff> endo(table ? n : 0);
  parallel_for(
      n, cfg.threads,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          const glv_split_t d = glv_split(scalars[i].to_canonical());
          k[i] = {uint64_t(d.k1), uint64_t(d.k1 >> 64)};
          k[n + i] = {uint64_t(d.k2), uint64_t(d.k2 >> 64)};
          if (table) endo[i] = x2_endo(base(i));
        }
      },
      4096);
  if (table)
    return pippenger_core<P>(
        2 * n, [&](size_t j) -> const aff& { return j < n ? base(j) : endo[j - n]; }, k, glv_bits, cfg);
  return pippenger_core<P>(
      2 * n, [&](size_t j) -> aff { return j < n ? base(j) : x2_endo(base(j - n)); }, k, glv_bits, cfg);
}

// Σ scalars[i]·base(i) in the form cfg asks for.
template <class P, class BaseFn>
jacobian_t<P> msm_any(size_t n, BaseFn base, std::span<const fr_t> scalars, const msm_config_t& cfg) {
  if (cfg.glv) return glv_core<P>(n, base, scalars, cfg);
  return pippenger_core<P>(n, base, to_canonical(scalars, cfg.threads), canon_bits, cfg);
}

}  // namespace

msm_plan_t msm_plan(size_t n, unsigned threads, unsigned window_bits, unsigned scalar_bits, bool lanes) {
  if (window_bits > msm_config_t::max_window_bits)
    throw std::invalid_argument("msm: window_bits = " + std::to_string(window_bits) + " (at most " +
                                std::to_string(msm_config_t::max_window_bits) + ")");
  const double t = double(resolve_threads(threads));
  const unsigned c_lo = window_bits ? window_bits : 1, c_hi = window_bits ? window_bits : msm_config_t::max_window_bits;
  // W·c ≥ scalar_bits + 1: the top digit sees the sign bit (pippenger.cpp).
  const auto windows = [&](unsigned c) { return (scalar_bits + c) / c; };
  msm_plan_t best{c_lo, windows(c_lo), 1};
  double best_cost = -1;
  for (unsigned c = c_lo; c <= c_hi; ++c) {
    const unsigned w = windows(c);
    double reduce = 1.4 * double(uint64_t(1) << c), per_term = 1;
    // In the G1 lanes (a window of at least lane_min_reach buckets): each
    // batch of min(1024, 2^(c−1)/4) additions costs a fixed ~80 terms'
    // time (its inversion, ~25, and what a short batch wastes besides),
    // the running sums ~1 term per bucket: c = 13 at 2^14-2^17 terms and
    // 16 at 2^19, the windows measured best (docs/benchmarks.md).
    if (lanes && (size_t(1) << (c - 1)) >= lane_min_reach) {
      reduce = double(uint64_t(1) << c);
      per_term = 1 + 80.0 / double(std::min(lane_max_batch, (size_t(1) << (c - 1)) / 4));
    }
    // More slices than threads never shortens the critical path.
    const size_t max_p = std::max<size_t>(1, std::min<size_t>(size_t(t), n));
    for (size_t p = 1; p <= max_p; ++p) {
      const double rounds = std::ceil(double(w) * double(p) / t);
      const double cost = rounds * (std::ceil(double(n) / double(p)) * per_term + reduce);
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        best = {c, w, p};
      }
    }
  }
  return best;
}

unsigned msm_window_bits(size_t n) { return msm_plan(n, 1).window_bits; }

template <class P>
jacobian_t<P> msm_pippenger(std::span<const affine_t<P>> bases, std::span<const fr_t> scalars,
                            const msm_config_t& cfg) {
  if (bases.size() != scalars.size())
    throw std::invalid_argument(std::string("msm_pippenger<") + P::name + ">: " + std::to_string(bases.size()) +
                                " bases but " + std::to_string(scalars.size()) + " scalars");
  msm_plan(0, 1, cfg.window_bits);  // validates window_bits before any work
  return msm_any<P>(
      bases.size(), [&](size_t i) -> const affine_t<P>& { return bases[i]; }, scalars, cfg);
}

template <class P>
jacobian_t<P> msm_pippenger_indexed(std::span<const affine_t<P>> bases, std::span<const uint32_t> index,
                                    std::span<const fr_t> scalars, const msm_config_t& cfg) {
  if (index.size() != scalars.size())
    throw std::invalid_argument(std::string("msm_pippenger_indexed<") + P::name + ">: " + std::to_string(index.size()) +
                                " indices but " + std::to_string(scalars.size()) + " scalars");
  msm_plan(0, 1, cfg.window_bits);  // validates window_bits before any work
  for (size_t j = 0; j < index.size(); ++j)
    if (index[j] >= bases.size())
      throw std::out_of_range(std::string("msm_pippenger_indexed<") + P::name + ">: index[" + std::to_string(j) +
                              "] = " + std::to_string(index[j]) + " but only " + std::to_string(bases.size()) +
                              " bases");
  return msm_any<P>(
      index.size(), [&](size_t j) -> const affine_t<P>& { return bases[index[j]]; }, scalars, cfg);
}

template jacobian_t<g1_params> msm_pippenger(std::span<const affine_t<g1_params>>, std::span<const fr_t>,
                                             const msm_config_t&);
template jacobian_t<g2_params> msm_pippenger(std::span<const affine_t<g2_params>>, std::span<const fr_t>,
                                             const msm_config_t&);
template jacobian_t<g1_params> msm_pippenger_indexed(std::span<const affine_t<g1_params>>, std::span<const uint32_t>,
                                                     std::span<const fr_t>, const msm_config_t&);
template jacobian_t<g2_params> msm_pippenger_indexed(std::span<const affine_t<g2_params>>, std::span<const uint32_t>,
                                                     std::span<const fr_t>, const msm_config_t&);

}  // namespace starzk
