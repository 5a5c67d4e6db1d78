// bellman / Filecoin .params writer (format in params.hpp): the key's
// shape checked first (a bellman-convention key, every query of the length
// its counts imply, no verifying-key point at infinity), then the
// verifying key's fixed points, and each query as a u32 big-endian count
// and its points, encoded chunk by chunk in parallel so that a key of any
// size streams through a bounded buffer into an atomic file (a failed
// write leaves no half-written .params behind).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/bellman_vk.hpp"
#include "io/io_error.hpp"
#include "io/params.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

void store_u32_be(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (24 - 8 * i));
}

void encode(const g1_affine_t& p, uint8_t* out) { encode_g1_uncompressed(p, out); }
void encode(const g2_affine_t& p, uint8_t* out) { encode_g2_uncompressed(p, out); }

// Writes the u32 count and the points of `v` (without its O points when
// `drop_infinity`), encoding chunk by chunk in parallel so that a key of any
// size streams through a bounded buffer.
template <class P>
void write_query(atomic_file_t& out, const char* name, std::span<const affine_t<P>> v, bool drop_infinity,
                 bool infinity_ok, unsigned threads) {
  constexpr size_t size = sizeof(affine_t<P>);  // 96 / 192: the uncompressed sizes too
  // One pass to count (and to refuse O where no reader would accept it).
  std::atomic<uint64_t> kept{0};
  std::atomic<bool> has_inf{false};
  parallel_for(
      v.size(), threads,
      [&](size_t b, size_t e) {
        uint64_t k = 0;
        for (size_t i = b; i < e; ++i) {
          if (v[i].is_infinity())
            has_inf = true;
          else
            ++k;
        }
        kept += k;
      },
      4096);
  if (!infinity_ok && has_inf) {
    throw io_error(out.target(), std::string("cannot write .params: the ") + name +
                                     " query contains the point at infinity, which no .params reader accepts");
  }
  const uint64_t count = drop_infinity ? kept.load() : v.size();
  if (count > std::numeric_limits<uint32_t>::max()) {
    throw io_error(out.target(), std::string("cannot write .params: the ") + name + " query has " +
                                     std::to_string(count) + " points, more than a u32 count can say");
  }
  uint8_t be[4];
  store_u32_be(be, uint32_t(count));
  out.write(be, 4);

  constexpr size_t chunk = size_t(1) << 16;  // 6 / 12 MiB of output per round
  std::vector<uint8_t> buf;
  std::vector<size_t> idx;
  for (size_t start = 0; start < v.size(); start += chunk) {
    const size_t end = std::min(v.size(), start + chunk);
    idx.clear();
    for (size_t i = start; i < end; ++i) {
      if (!drop_infinity || !v[i].is_infinity()) idx.push_back(i);
    }
    buf.resize(idx.size() * size);
    parallel_for(
        idx.size(), threads,
        [&](size_t b, size_t e) {
          for (size_t k = b; k < e; ++k) encode(v[idx[k]], buf.data() + k * size);
        },
        1024);
    out.write(buf.data(), buf.size());
  }
}

void check_shape(const std::filesystem::path& file, const proving_key_t& k) {
  auto fail = [&](const std::string& m) { throw io_error(file, "cannot write .params: " + m); };
  if (k.convention != root_convention_t::bellman) {
    fail(
        "the key uses the snarkjs H convention (odd-coset evaluations); .params needs a bellman-convention key "
        "(starzk setup --params makes one)");
  }
  auto want = [&](const char* name, size_t have, uint64_t need) {
    if (have != need)
      fail(std::string(name) + " has " + std::to_string(have) + " points, expected " + std::to_string(need));
  };
  if (k.n_vars < uint64_t(k.n_public) + 1) fail("n_vars is smaller than n_public + 1");
  if (k.domain_size == 0 || (k.domain_size & (k.domain_size - 1)) != 0) fail("domain_size is not a power of two");
  want("vk.ic", k.vk.ic.size(), uint64_t(k.n_public) + 1);
  want("h", k.h.size(), k.domain_size - 1);
  want("l", k.l.size(), uint64_t(k.n_vars) - k.n_public - 1);
  want("a", k.a.size(), k.n_vars);
  want("b_g1", k.b_g1.size(), k.n_vars);
  want("b_g2", k.b_g2.size(), k.n_vars);
  if (k.alpha_g1.is_infinity() || k.beta_g1.is_infinity() || k.delta_g1.is_infinity() || k.beta_g2.is_infinity() ||
      k.delta_g2.is_infinity() || k.vk.gamma_g2.is_infinity()) {
    fail("a verifying key point (alpha, beta, gamma or delta) is the point at infinity");
  }
}

}  // namespace

void write_params(const std::filesystem::path& file, const proving_key_t& key) { write_params(file, key, 0); }

void write_params(const std::filesystem::path& file, const proving_key_t& k, unsigned threads) {
  check_shape(file, k);
  write_file_atomic(file, [&](atomic_file_t& out) {
    uint8_t vk[bellman_vk_points_bytes];
    encode_bellman_vk_points(key_head_t::of(k), vk);
    out.write(vk, sizeof vk);
    write_query<g1_params>(out, "ic", k.vk.ic, false, false, threads);
    write_query<g1_params>(out, "h", k.h, false, false, threads);
    write_query<g1_params>(out, "l", k.l, false, true, threads);
    write_query<g1_params>(out, "a", k.a, true, true, threads);
    write_query<g1_params>(out, "b_g1", k.b_g1, true, true, threads);
    write_query<g2_params>(out, "b_g2", k.b_g2, true, true, threads);
  });
}

}  // namespace starzk
