// domain_t construction: roots from ntt/convention.hpp, inverses, the twiddle table
// built in parallel (each thread starts from ω^begin by one exponentiation
// and then multiplies up: n/2 M plus one pow per thread).
#include "ntt/domain.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "util/parallel.hpp"

namespace starzk {

unsigned log2_ceil(size_t n) {
  if (n <= 1) return 0;
  return unsigned(std::bit_width(n - 1));
}

domain_t::domain_t(unsigned log_n, root_convention_t conv, unsigned threads)
    : log_n_(log_n), n_(size_t(1) << (log_n <= max_log_size ? log_n : 0)), conv_(conv) {
  if (log_n > max_log_size)
    throw std::invalid_argument("ntt: domain of size 2^" + std::to_string(log_n) + " exceeds the supported 2^" +
                                std::to_string(max_log_size));
  omega_ = root_of_unity(log_n, conv);
  omega_inv_ = omega_.inverse();
  n_inv_ = fr_t::from_u64(uint64_t(n_)).inverse();
  g_ = fr_t::multiplicative_generator();
  g_inv_ = g_.inverse();

  twiddles_.resize(n_ / 2);
  const fr_t w = omega_;
  parallel_for(
      twiddles_.size(), threads,
      [&](size_t begin, size_t end) {
        fr_t p = w.pow(uint64_t(begin));
        for (size_t i = begin; i < end; ++i) {
          twiddles_[i] = p;
          p *= w;
        }
      },
      size_t(1) << 12);
}

domain_t domain_t::for_size(size_t min_size, root_convention_t conv, unsigned threads) {
  return domain_t(log2_ceil(min_size), conv, threads);
}

fr_t domain_t::vanishing_at(const fr_t& x) const {
  fr_t p = x;
  for (unsigned i = 0; i < log_n_; ++i) p = p.sqr();  // x^(2^k) = x^n
  return p - fr_t::one();
}

}  // namespace starzk
