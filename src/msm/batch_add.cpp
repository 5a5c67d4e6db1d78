// batch_add (see batch_add.hpp), instantiated for G1 and G2.
//
// A chunk of the bitmap sums its selected bases one of three ways:
//   few bases (< affine_min):  mixed XYZZ additions, 8M + 2S each;
//   otherwise:                 B affine buckets, base j of the chunk into
//                              bucket j mod B, so every batch of B additions
//                              meets B distinct buckets and shares one
//                              inversion (msm/bucket_affine.hpp, ~5M + 1S
//                              each), then the B buckets summed in XYZZ;
//   with IFMA lanes:           the same buckets eight additions at a time
//                              (msm/bucket_lanes.hpp, G1 and G2), the
//                              chunk's bases first converted to the lane
//                              form.
// B = count/16 within [8, 1024]: a bucket takes ~16 bases, so the final
// B-term sum costs ~1/16 of the additions, and a batch shares its
// inversion among B of them. Bases at infinity (a key's query holds one
// for every wire the polynomial does not use) take no bucket turn, so the
// turns stay regular and no addition meets a bucket already in the
// batch. Equal or opposite points (a repeated base, P + (−P)) go to the
// buckets' XYZZ side sums, as in the MSM, so any bitmap over any bases
// gives the same group element as the plain sum.
#include "msm/batch_add.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

#include "ec/xyzz.hpp"
#include "msm/bucket_affine.hpp"
#include "msm/bucket_lanes.hpp"
#include "util/parallel.hpp"

namespace starzk {
namespace {

constexpr size_t affine_min = 256, bases_per_bucket = 16, min_buckets = 8, max_buckets = 1024;

// Calls f(i) for each set bit i of words [wb, we), in increasing order.
template <class F>
void for_each_selected(std::span<const uint64_t> bitmap, size_t wb, size_t we, F f) {
  for (size_t w = wb; w < we; ++w)
    for (uint64_t bits = bitmap[w]; bits != 0; bits &= bits - 1) f(w * 64 + size_t(std::countr_zero(bits)));
}

// Σ of the selected bases of words [wb, we) (see the file comment).
template <class P>
xyzz_t<P> chunk_sum(std::span<const affine_t<P>> bases, std::span<const uint64_t> bitmap, size_t wb, size_t we,
                    const msm_config_t& cfg) {
  xyzz_t<P> acc = xyzz_t<P>::infinity();
  size_t count = 0;
  for (size_t w = wb; w < we; ++w) count += size_t(std::popcount(bitmap[w]));
  if (!cfg.affine_buckets || count < affine_min) {
    for_each_selected(bitmap, wb, we, [&](size_t i) { acc += bases[i]; });  // madd-2008-s
    return acc;
  }
  const size_t n_buckets = std::clamp(count / bases_per_bucket, min_buckets, max_buckets);
  size_t j = 0;
  if (cfg.lanes && lane_buckets_available()) {
    std::vector<affine_t<P>> chosen;
    chosen.reserve(count);
    for_each_selected(bitmap, wb, we, [&](size_t i) {
      if (!bases[i].is_infinity()) chosen.push_back(bases[i]);
    });
    std::vector<lane_point_of<P>> table(chosen.size());
    to_lane_points(std::span<const affine_t<P>>(chosen), table.data());
    lane_buckets_t<P> bucket(n_buckets, n_buckets, table.data());
    for (; j < chosen.size(); ++j) bucket.add(j % n_buckets, j, false);
    bucket.finish();
    for (size_t b = 0; b < n_buckets; ++b) bucket.add_bucket_to(acc, b);
    return acc;
  }
  affine_buckets_t<P> bucket(n_buckets, n_buckets);
  for_each_selected(bitmap, wb, we, [&](size_t i) {
    if (!bases[i].is_infinity()) bucket.add(j++ % n_buckets, bases[i]);
  });
  bucket.finish();
  for (size_t b = 0; b < n_buckets; ++b) bucket.add_bucket_to(acc, b);
  return acc;
}

}  // namespace

template <class P>
jacobian_t<P> batch_add(std::span<const affine_t<P>> bases, std::span<const uint64_t> bitmap, const msm_config_t& cfg) {
  using jac = jacobian_t<P>;
  const size_t n = bases.size(), words = bitmap_words(n);
  if (bitmap.size() != words)
    throw std::invalid_argument(std::string("batch_add<") + P::name + ">: bitmap of " + std::to_string(bitmap.size()) +
                                " words for " + std::to_string(n) + " bases (expected " + std::to_string(words) + ")");
  if (n % 64 != 0 && words > 0 && (bitmap[words - 1] >> (n % 64)) != 0)
    throw std::invalid_argument(std::string("batch_add<") + P::name + ">: bitmap selects an entry past the " +
                                std::to_string(n) + " bases");

  const unsigned t = resolve_threads(cfg.threads);
  // A few chunks per thread so a dense region does not hold up one thread.
  const size_t n_chunks = std::max<size_t>(1, std::min<size_t>(words, size_t(t) * 4));
  std::vector<jac> partial(n_chunks, jac::infinity());
  parallel_tasks(n_chunks, t, [&](size_t ch) {
    const size_t wb = ch * words / n_chunks, we = (ch + 1) * words / n_chunks;
    partial[ch] = chunk_sum<P>(bases, bitmap, wb, we, cfg).to_jacobian();
  });
  jac sum = jac::infinity();
  for (const jac& p : partial) sum = sum.add(p);  // add-2007-bl, 11M + 5S
  return sum;
}

template <class P>
jacobian_t<P> batch_add(std::span<const affine_t<P>> bases, std::span<const uint64_t> bitmap, unsigned threads) {
  return batch_add<P>(bases, bitmap, msm_config_t{.threads = threads});
}

template jacobian_t<g1_params> batch_add(std::span<const affine_t<g1_params>>, std::span<const uint64_t>, unsigned);
template jacobian_t<g2_params> batch_add(std::span<const affine_t<g2_params>>, std::span<const uint64_t>, unsigned);
template jacobian_t<g1_params> batch_add(std::span<const affine_t<g1_params>>, std::span<const uint64_t>,
                                         const msm_config_t&);
template jacobian_t<g2_params> batch_add(std::span<const affine_t<g2_params>>, std::span<const uint64_t>,
                                         const msm_config_t&);

}  // namespace starzk
