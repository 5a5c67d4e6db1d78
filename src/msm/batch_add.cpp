// batch_add (see batch_add.hpp), instantiated for G1 and G2.
#include "msm/batch_add.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

#include "ec/xyzz.hpp"
#include "util/parallel.hpp"

namespace starzk {

template <class P>
jacobian_t<P> batch_add(std::span<const affine_t<P>> bases, std::span<const uint64_t> bitmap, unsigned threads) {
  using xyzz = xyzz_t<P>;
  using jac = jacobian_t<P>;
  const size_t n = bases.size(), words = bitmap_words(n);
  if (bitmap.size() != words)
    throw std::invalid_argument(std::string("batch_add<") + P::name + ">: bitmap of " + std::to_string(bitmap.size()) +
                                " words for " + std::to_string(n) + " bases (expected " + std::to_string(words) + ")");
  if (n % 64 != 0 && words > 0 && (bitmap[words - 1] >> (n % 64)) != 0)
    throw std::invalid_argument(std::string("batch_add<") + P::name + ">: bitmap selects an entry past the " +
                                std::to_string(n) + " bases");

  const unsigned t = resolve_threads(threads);
  // A few chunks per thread so a dense region does not hold up one thread.
  const size_t n_chunks = std::max<size_t>(1, std::min<size_t>(words, size_t(t) * 4));
  std::vector<jac> partial(n_chunks, jac::infinity());
  parallel_tasks(n_chunks, t, [&](size_t ch) {
    const size_t wb = ch * words / n_chunks, we = (ch + 1) * words / n_chunks;
    xyzz acc = xyzz::infinity();
    for (size_t w = wb; w < we; ++w) {
      for (uint64_t bits = bitmap[w]; bits != 0; bits &= bits - 1) {
        const size_t i = w * 64 + size_t(std::countr_zero(bits));
        acc += bases[i];  // madd-2008-s, 8M + 2S
      }
    }
    partial[ch] = acc.to_jacobian();
  });
  jac sum = jac::infinity();
  for (const jac& p : partial) sum = sum.add(p);  // add-2007-bl, 11M + 5S
  return sum;
}

template jacobian_t<g1_params> batch_add(std::span<const affine_t<g1_params>>, std::span<const uint64_t>, unsigned);
template jacobian_t<g2_params> batch_add(std::span<const affine_t<g2_params>>, std::span<const uint64_t>, unsigned);

}  // namespace starzk
