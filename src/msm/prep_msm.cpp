// prep_msm and split_msm (see prep_msm.hpp), split_msm instantiated for G1
// and G2.
#include "msm/prep_msm.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "msm/batch_add.hpp"
#include "util/parallel.hpp"

namespace starzk {

prep_msm_t prep_msm(std::span<const fr_t> scalars, size_t forced_tail, unsigned threads) {
  const size_t n = scalars.size();
  if (forced_tail > n)
    throw std::invalid_argument("prep_msm: forced_tail = " + std::to_string(forced_tail) + " exceeds the " +
                                std::to_string(n) + " scalars");
  if (n > size_t(UINT32_MAX))
    throw std::invalid_argument("prep_msm: " + std::to_string(n) + " scalars exceed the 32-bit tail index");
  prep_msm_t prep;
  prep.n = n;
  prep.forced_tail = forced_tail;
  const size_t words = bitmap_words(n);
  prep.ones.assign(words, 0);
  if (n == 0) return prep;

  const fr_t one = fr_t::one();
  const unsigned t = resolve_threads(threads);
  const size_t n_chunks = std::max<size_t>(1, std::min<size_t>(words, t));
  struct local_t {
    std::vector<uint32_t> index;
    std::vector<fr_t> scalar;
    size_t zeros = 0, ones = 0;
  };
  std::vector<local_t> local(n_chunks);
  parallel_tasks(n_chunks, t, [&](size_t ch) {
    const size_t wb = ch * words / n_chunks, we = (ch + 1) * words / n_chunks;
    local_t& out = local[ch];
    for (size_t w = wb; w < we; ++w) {
      uint64_t bits = 0;
      const size_t end = std::min(n, (w + 1) * 64);
      for (size_t i = w * 64; i < end; ++i) {
        const fr_t& s = scalars[i];
        if (i >= forced_tail) {
          if (s.is_zero()) {
            ++out.zeros;
            continue;
          }
          if (s == one) {
            bits |= uint64_t(1) << (i % 64);
            ++out.ones;
            continue;
          }
        }
        out.index.push_back(uint32_t(i));
        out.scalar.push_back(s);
      }
      prep.ones[w] = bits;  // each word is owned by one chunk
    }
  });

  // Concatenate the local tails in chunk order (indices stay increasing).
  size_t total = 0;
  std::vector<size_t> offset(n_chunks);
  for (size_t ch = 0; ch < n_chunks; ++ch) {
    offset[ch] = total;
    total += local[ch].index.size();
    prep.n_zero += local[ch].zeros;
    prep.n_one += local[ch].ones;
  }
  prep.tail_index.resize(total);
  prep.tail_scalars.resize(total);
  parallel_tasks(n_chunks, t, [&](size_t ch) {
    std::copy(local[ch].index.begin(), local[ch].index.end(), prep.tail_index.begin() + ptrdiff_t(offset[ch]));
    std::copy(local[ch].scalar.begin(), local[ch].scalar.end(), prep.tail_scalars.begin() + ptrdiff_t(offset[ch]));
  });
  return prep;
}

template <class P>
jacobian_t<P> split_msm(std::span<const affine_t<P>> bases, const prep_msm_t& prep, const msm_config_t& cfg) {
  if (bases.size() != prep.n)
    throw std::invalid_argument(std::string("split_msm<") + P::name + ">: " + std::to_string(bases.size()) +
                                " bases for a prep_msm of " + std::to_string(prep.n) + " scalars");
  const jacobian_t<P> ones = batch_add<P>(bases, prep.ones, cfg);
  const jacobian_t<P> tail = msm_pippenger_indexed<P>(bases, prep.tail_index, prep.tail_scalars, cfg);
  return ones.add(tail);
}

template <class P>
jacobian_t<P> split_msm(std::span<const affine_t<P>> bases, const prep_msm_t& prep, unsigned threads) {
  return split_msm<P>(bases, prep, msm_config_t{.threads = threads});
}

template jacobian_t<g1_params> split_msm(std::span<const affine_t<g1_params>>, const prep_msm_t&, unsigned);
template jacobian_t<g2_params> split_msm(std::span<const affine_t<g2_params>>, const prep_msm_t&, unsigned);
template jacobian_t<g1_params> split_msm(std::span<const affine_t<g1_params>>, const prep_msm_t&, const msm_config_t&);
template jacobian_t<g2_params> split_msm(std::span<const affine_t<g2_params>>, const prep_msm_t&, const msm_config_t&);

}  // namespace starzk
