// The CPU fixed-base products of a development setup: k·G for millions of
// scalars k and one base G (a generator), by the 8-bit comb of
// ec/comb_table.hpp: k·G = Σ_w table[w·256 + byte_w(k)], at most 32 mixed
// additions (7M+4S each) and no doubling per product.
//
// mul_to hands the products to a sink in pieces, as affine points (one
// batched inversion per piece), from the worker threads: sink(first, pts)
// receives pts = k[first .. first + pts.size())·G. Pieces are disjoint, so a
// sink that writes each piece to its own place needs no lock. mul_all is the
// in-memory form.
#pragma once

#include <span>
#include <vector>

#include "ec/comb_table.hpp"
#include "ec/jacobian.hpp"
#include "ff/fr.hpp"
#include "util/parallel.hpp"

namespace starzk {

template <class P>
class fixed_base_t {
 public:
  explicit fixed_base_t(const affine_t<P>& g) : table_(comb_table(g)) {}

  jacobian_t<P> mul(const fr_t& k) const {
    const auto c = k.to_canonical();
    jacobian_t<P> acc = jacobian_t<P>::infinity();
    for (unsigned w = 0; w < comb_windows; ++w) {
      const unsigned d = unsigned(c[w / 8] >> (8 * (w % 8))) & 0xff;
      if (d) acc = acc.add_mixed(table_[w * comb_digits + d]);
    }
    return acc;
  }

  template <class Sink>
  void mul_to(std::span<const fr_t> k, unsigned threads, Sink&& sink) const {
    parallel_for(
        k.size(), threads,
        [&](size_t begin, size_t end) {
          // Pieces of at most 2^16 products keep the buffers small.
          constexpr size_t step = size_t(1) << 16;
          std::vector<jacobian_t<P>> jac;
          std::vector<affine_t<P>> aff;
          for (size_t b = begin; b < end; b += step) {
            const size_t e = std::min(end, b + step);
            jac.resize(e - b);
            aff.resize(e - b);
            for (size_t i = b; i < e; ++i) jac[i - b] = mul(k[i]);
            jacobian_t<P>::batch_to_affine(jac, aff);
            sink(uint64_t(b), std::span<const affine_t<P>>(aff));
          }
        },
        size_t(1) << 10);
  }

  std::vector<affine_t<P>> mul_all(std::span<const fr_t> k, unsigned threads) const {
    std::vector<affine_t<P>> out(k.size());
    mul_to(k, threads, [&](uint64_t first, std::span<const affine_t<P>> pts) {
      std::copy(pts.begin(), pts.end(), out.begin() + ptrdiff_t(first));
    });
    return out;
  }

 private:
  std::vector<affine_t<P>> table_;
};

}  // namespace starzk
