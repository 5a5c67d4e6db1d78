// Unpacking a packed key into full-length queries (packed_key.hpp), and the
// CPU point decoder.
//
// The decoder turns compressed points into affine ones; this file decides
// everything else once, whichever device decodes: the order of the
// queries, where O is allowed, the placement of the dense A and B points on
// their wires, and the error that names the query and the point. Dense
// queries are decoded in pieces of at most `piece` points into a reused
// buffer and then scattered, so unpacking never holds a query twice.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <limits>
#include <mutex>

#include "io/io_error.hpp"
#include "io/packed_key.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

constexpr uint64_t piece = uint64_t(1) << 24;  // points per decoder call (1.6 / 3.2 GB of G1 / G2 points)

class cpu_decoder_t final : public point_decoder_t {
 public:
  explicit cpu_decoder_t(unsigned threads) : threads_(threads) {}
  std::string g1(const uint8_t* in, uint64_t n, g1_affine_t* out, bool sub, bool inf, uint64_t* bad) override {
    return run<g1_params>(
        in, n, out, sub, inf, bad, g1_compressed_size,
        [](const uint8_t* p, g1_affine_t& o, decode_check c) { return decode_g1_compressed(p, o, c); });
  }
  std::string g2(const uint8_t* in, uint64_t n, g2_affine_t* out, bool sub, bool inf, uint64_t* bad) override {
    return run<g2_params>(
        in, n, out, sub, inf, bad, g2_compressed_size,
        [](const uint8_t* p, g2_affine_t& o, decode_check c) { return decode_g2_compressed(p, o, c); });
  }

 private:
  template <class P, class Decode>
  std::string run(const uint8_t* in, uint64_t n, affine_t<P>* out, bool sub, bool inf, uint64_t* bad, size_t size,
                  Decode decode) {
    std::mutex mu;
    uint64_t first = std::numeric_limits<uint64_t>::max();
    std::string why;
    const decode_check check = sub ? decode_check::full : decode_check::on_curve;
    parallel_for(
        n, threads_,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) {
            const decode_status s = decode(in + i * size, out[i], check);
            const char* w = s != decode_status::ok           ? describe(s)
                            : (!inf && out[i].is_infinity()) ? "is the point at infinity, not allowed here"
                                                             : nullptr;
            if (w) {
              std::lock_guard<std::mutex> lock(mu);
              if (i < first) first = i, why = w;
              return;
            }
          }
        },
        256);
    *bad = first;
    return why;
  }
  unsigned threads_;
};

using steady = std::chrono::steady_clock;
double seconds_since(steady::time_point t0) { return std::chrono::duration<double>(steady::now() - t0).count(); }

// Decodes `n` points of section s (from point `first`) into out, or throws
// naming the query and the point. Adds the decoder's time to *seconds.
template <class P>
void decode_range(const packed_key_view_t& v, packed_section_t s, uint64_t first, uint64_t n, affine_t<P>* out,
                  bool subgroup, bool allow_infinity, point_decoder_t& dec, double* seconds) {
  const auto t0 = steady::now();
  constexpr size_t size = sizeof(affine_t<P>) / 2;  // compressed: x only
  const uint8_t* in = v.points(s).data() + first * size;
  uint64_t bad = std::numeric_limits<uint64_t>::max();
  std::string why;
  if constexpr (std::is_same_v<P, g1_params>)
    why = dec.g1(in, n, out, subgroup, allow_infinity, &bad);
  else
    why = dec.g2(in, n, out, subgroup, allow_infinity, &bad);
  *seconds += seconds_since(t0);
  if (!why.empty())
    v.fail(std::string(packed_section_name(s)) + " query point " + std::to_string(first + bad) + " " + why);
}

// A query stored whole (ic, h, l): decoded straight into place.
template <class P, class V>
void unpack_whole(const packed_key_view_t& v, packed_section_t s, V& out, bool subgroup, bool allow_infinity,
                  point_decoder_t& dec, unpack_stats_t::query_t& st) {
  const auto t0 = steady::now();
  out.resize(v.shape().count(s));
  for (uint64_t off = 0; off < out.size(); off += piece)
    decode_range<P>(v, s, off, std::min(piece, out.size() - off), out.data() + off, subgroup, allow_infinity, dec,
                    &st.decode_seconds);
  st.points = out.size();
  st.other_seconds = seconds_since(t0) - st.decode_seconds;
}

// A dense query (a, b_g1, b_g2): the k-th point on the wire of the k-th set
// bit, O on the others. Pieces are whole bitmap words holding at most
// `piece` points (a word holds 64), decoded into `tmp`, then scattered: each
// word's 64 wires are written once, a point or O (a fill with O first would
// write the whole query twice, and at 2^27 the first touch of its pages is
// most of the time outside the decoder).
template <class P, class V>
void unpack_dense(const packed_key_view_t& v, packed_section_t s, packed_section_t d, V& out, bool subgroup,
                  point_decoder_t& dec, unsigned threads, unpack_stats_t::query_t& st) {
  const auto t0 = steady::now();
  const std::span<const uint64_t> words = v.density(d);
  out.resize(v.shape().n_vars);  // uninitialised (uninit_vector_t): every wire is written below
  const uint64_t n = out.size();
  const affine_t<P> inf = affine_t<P>::infinity();
  uninit_vector_t<affine_t<P>> tmp;  // every element is decoded before it is read
  uint64_t word = 0, k = 0;          // next word, points before it
  while (word < words.size()) {
    uint64_t end = word, cnt = 0;
    while (end < words.size() && cnt + uint64_t(std::popcount(words[end])) <= piece) cnt += std::popcount(words[end++]);
    tmp.resize(cnt);
    decode_range<P>(v, s, k, cnt, tmp.data(), subgroup, false, dec, &st.decode_seconds);
    // Scatter in parallel over words: each range starts at its own count.
    std::vector<uint64_t> base(end - word + 1, 0);
    for (uint64_t w = word; w < end; ++w) base[w - word + 1] = base[w - word] + std::popcount(words[w]);
    parallel_for(
        end - word, threads,
        [&](size_t b, size_t e) {
          for (size_t w = b; w < e; ++w) {
            const uint64_t bits = words[word + w], first = (word + w) * 64;
            uint64_t at = base[w];
            const unsigned wires = unsigned(std::min<uint64_t>(64, n > first ? n - first : 0));
            for (unsigned i = 0; i < wires; ++i) out[first + i] = (bits >> i) & 1 ? tmp[at++] : inf;
          }
        },
        size_t(1) << 12);
    word = end;
    k += cnt;
  }
  // Wires past the bitmap's last word (none when it covers n_vars) are O.
  const uint64_t covered = std::min<uint64_t>(n, uint64_t(words.size()) * 64);
  if (covered < n) parallel_fill(std::span<affine_t<P>>(out).subspan(covered), inf, threads);
  st.points = k;
  st.other_seconds = seconds_since(t0) - st.decode_seconds;
}

}  // namespace

std::unique_ptr<point_decoder_t> cpu_point_decoder(unsigned threads) {
  return std::make_unique<cpu_decoder_t>(threads);
}

std::string unpack_stats_t::line() const {
  std::string s;
  for (const query_t& q : queries) {
    char b[96];
    std::snprintf(b, sizeof b, "%s%s %.1fM in %.2f s (+%.2f s)", s.empty() ? "" : ", ", q.name, double(q.points) / 1e6,
                  q.decode_seconds, q.other_seconds);
    s += b;
  }
  return s;
}

verifying_key_t unpack_packed_vk(const packed_key_view_t& v, point_decoder_t& dec) {
  proving_key_t k;
  v.head().apply_to(k);
  unpack_stats_t::query_t st{"ic", 0, 0, 0};
  unpack_whole<g1_params>(v, packed_section_t::ic, k.vk.ic, true, false, dec, st);
  return std::move(k.vk);
}

proving_key_t unpack_packed_key(const packed_key_view_t& v, bool subgroup, point_decoder_t& dec, unsigned threads,
                                unpack_stats_t* stats) {
  const packed_key_shape_t& sh = v.shape();
  proving_key_t k;
  k.convention = sh.convention;
  k.n_vars = sh.n_vars;
  k.n_public = sh.n_public;
  k.domain_size = sh.domain_size;
  v.head().apply_to(k);
  unpack_stats_t local;
  unpack_stats_t& st = stats ? *stats : local;
  st.queries.clear();
  for (packed_section_t s : {packed_section_t::ic, packed_section_t::h, packed_section_t::l, packed_section_t::a,
                             packed_section_t::b_g1, packed_section_t::b_g2})
    st.queries.push_back({packed_section_name(s), 0, 0, 0});
  unpack_whole<g1_params>(v, packed_section_t::ic, k.vk.ic, subgroup, false, dec, st.queries[0]);
  unpack_whole<g1_params>(v, packed_section_t::h, k.h, subgroup, false, dec, st.queries[1]);
  unpack_whole<g1_params>(v, packed_section_t::l, k.l, subgroup, true, dec, st.queries[2]);
  unpack_dense<g1_params>(v, packed_section_t::a, packed_section_t::a_density, k.a, subgroup, dec, threads,
                          st.queries[3]);
  unpack_dense<g1_params>(v, packed_section_t::b_g1, packed_section_t::b_density, k.b_g1, subgroup, dec, threads,
                          st.queries[4]);
  unpack_dense<g2_params>(v, packed_section_t::b_g2, packed_section_t::b_density, k.b_g2, subgroup, dec, threads,
                          st.queries[5]);
  return k;
}

}  // namespace starzk
