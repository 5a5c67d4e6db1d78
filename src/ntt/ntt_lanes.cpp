// forward_lanes (ntt_lanes.hpp): the NTT's stages in IFMA lanes. Every
// function here that touches a vector register carries STARZK_IFMA_TARGET;
// forward_lanes is called only where ff_path::wide() is true.

#include "ntt/ntt_lanes.hpp"

#include <algorithm>
#include <cstdint>

#include "ff/fr_x8_ifma.hpp"
#include "util/parallel.hpp"

namespace starzk {

bool ntt_lanes_available() {
#if STARZK_FF_IFMA
  return ff_path::wide();
#else
  return false;
#endif
}

#if STARZK_FF_IFMA

namespace {

using ifma::fr_x8_t;

constexpr unsigned chunk_log = 12;  // 4096 elements × 32 bytes = 128 KiB, as in ntt.cpp
// Every lane: the masked form of the gather with it is the plain
// instruction, whose intrinsic trips GCC 12's -Wuninitialized on its
// undefined pass-through operand.
constexpr __mmask8 all = 0xff;

// tw[(j + l)·stride], l = 0..7, in the twiddle form.
STARZK_IFMA_TARGET inline fr_x8_t twiddles8(const fr_t* tw, size_t j, size_t stride) {
  if (stride == 1) return fr_x8_t::load(tw + j).twiddle_form();
  const auto* base = reinterpret_cast<const long long*>(tw);
  const int64_t p0 = int64_t(4 * j * stride), d = int64_t(4 * stride);
  const __m512i pos =
      _mm512_set_epi64(p0 + 7 * d, p0 + 6 * d, p0 + 5 * d, p0 + 4 * d, p0 + 3 * d, p0 + 2 * d, p0 + d, p0);
  __m512i x[4];
#pragma GCC unroll 4
  for (unsigned k = 0; k < 4; ++k)
    x[k] =
        _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), all, _mm512_add_epi64(pos, _mm512_set1_epi64(k)), base, 8);
  return fr_x8_t::from_limbs64(x).twiddle_form();
}

// One in-register stage of half h (1, 2 or 4): lane l pairs with l ^ h;
// `upper` marks the lanes with that bit set; w holds each pair's twiddle
// in both of its lanes (none for h = 1: ω^0).
template <unsigned H>
STARZK_IFMA_TARGET inline fr_x8_t in_block(const fr_x8_t& x, const fr_x8_t* w) {
  constexpr __mmask8 upper = H == 1 ? 0xAA : (H == 2 ? 0xCC : 0xF0);
  const __m512i idx = _mm512_xor_si512(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(H));
  const fr_x8_t p = fr_x8_t::permute(x, idx);
  const fr_x8_t u = fr_x8_t::blend(upper, x, p), v = fr_x8_t::blend(upper, p, x);
  const fr_x8_t t = w ? v * *w : v;
  return fr_x8_t::blend(upper, u + t, u - t);
}

struct plan_t {
  fr_t* a;
  const fr_t* tw;
  size_t n;
  unsigned k;
  fr_x8_t w2, w4;  // stage 2's and stage 3's pair twiddles, per lane
};

// (lo, hi) <- (lo + w·hi, lo − w·hi) on eight runs; canonical on the last stage.
STARZK_IFMA_TARGET inline void butterfly8(fr_t* lo, fr_t* hi, const fr_x8_t& w, bool last) {
  const fr_x8_t u = fr_x8_t::load(lo), t = fr_x8_t::load(hi) * w;
  fr_x8_t s = u + t, d = u - t;
  if (last) {
    s = s.canonical();
    d = d.canonical();
  }
  fr_x8_t::store(lo, s);
  fr_x8_t::store(hi, d);
}

// Stages 1 .. min(k, chunk_log) on the chunk a[c0, c0 + size).
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void chunk_stages(const plan_t& pl, size_t c0, size_t size) {
  fr_t* a = pl.a + c0;
  const unsigned top = std::min(pl.k, chunk_log);
  for (size_t q = 0; q < size; q += 8) {
    fr_x8_t x = fr_x8_t::load(a + q);
    x = in_block<1>(x, nullptr);
    x = in_block<2>(x, &pl.w2);
    x = in_block<4>(x, &pl.w4);
    fr_x8_t::store(a + q, x);
  }
  for (unsigned s = 4; s <= top; ++s) {
    const size_t len = size_t(1) << s, half = len / 2, stride = pl.n / len;
    for (size_t j = 0; j < half; j += 8) {
      const fr_x8_t w = twiddles8(pl.tw, j, stride);
      for (size_t g = 0; g < size; g += len) butterfly8(a + g + j, a + g + j + half, w, s == pl.k);
    }
  }
}

// Stage s > chunk_log, runs [begin, end) of its n/16, run t = j8·groups + g
// (j8 the twiddle run, g the group), so that a run of threads' work shares
// its twiddles.
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void wide_stage(const plan_t& pl, unsigned s, size_t begin, size_t end) {
  // n/len groups of len elements; the stage's twiddles are every (n/len)-th.
  const size_t len = size_t(1) << s, half = len / 2, groups = pl.n / len;
  size_t cur = ~size_t(0);
  fr_x8_t w = fr_x8_t::broadcast({});
  for (size_t t = begin; t < end; ++t) {
    const size_t j = (t / groups) * 8, g = t % groups;
    if (j != cur) {
      w = twiddles8(pl.tw, j, groups);
      cur = j;
    }
    butterfly8(pl.a + g * len + j, pl.a + g * len + j + half, w, s == pl.k);
  }
}

STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN fr_x8_t pair_twiddles(const fr_t* tw, size_t n, unsigned h) {
  // Lane l's pair twiddle in the stage of half h: ω_(2h)^(l mod h) = tw[(l mod h)·n/(2h)].
  alignas(64) fr_t t[8];
  for (unsigned l = 0; l < 8; ++l) t[l] = tw[(l % h) * (n / (2 * h))];
  return fr_x8_t::load(t).twiddle_form();
}

// a[i] <- a[i]·p_i for i in [begin, end) (multiples of 8), p_begin..p_begin+7
// given in the twiddle form and multiplied by `step` (twiddle form) from
// one run of eight to the next; canonical out.
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void scale_run(fr_t* a, size_t begin, size_t end, fr_x8_t p, const fr_x8_t& step,
                                                      bool advance) {
  for (size_t i = begin; i < end; i += 8) {
    fr_x8_t::store(a + i, (fr_x8_t::load(a + i) * p).canonical());
    if (advance) p = p * step;
  }
}

// Eight elements (canonical fr_t) in the twiddle form.
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN fr_x8_t twiddle_form(const fr_t* v) { return fr_x8_t::load(v).twiddle_form(); }

}  // namespace

void forward_lanes(std::span<fr_t> a, std::span<const fr_t> tw, unsigned threads) {
  plan_t pl{a.data(), tw.data(), a.size(), unsigned(std::countr_zero(a.size())), {}, {}};
  pl.w2 = pair_twiddles(tw.data(), pl.n, 2);
  pl.w4 = pair_twiddles(tw.data(), pl.n, 4);
  const size_t chunk = size_t(1) << std::min(pl.k, chunk_log);
  parallel_tasks(pl.n / chunk, threads, [&](size_t c) { chunk_stages(pl, c * chunk, chunk); });
  for (unsigned s = chunk_log + 1; s <= pl.k; ++s)
    parallel_for(
        pl.n / 16, threads, [&](size_t begin, size_t end) { wide_stage(pl, s, begin, end); }, 64);
}

void scale_lanes(std::span<fr_t> a, const fr_t& s, bool powers, unsigned threads) {
  const fr_t s8 = s.pow(uint64_t(8));
  alignas(64) fr_t step[8];
  std::fill(step, step + 8, s8);
  const fr_x8_t step_tw = twiddle_form(step);
  parallel_for(
      a.size() / 8, threads,
      [&](size_t begin, size_t end) {
        alignas(64) fr_t p[8];
        p[0] = powers ? s.pow(uint64_t(8 * begin)) : s;
        for (unsigned l = 1; l < 8; ++l) p[l] = powers ? p[l - 1] * s : s;
        scale_run(a.data(), 8 * begin, 8 * end, twiddle_form(p), step_tw, powers);
      },
      128);
}

#else

void forward_lanes(std::span<fr_t>, std::span<const fr_t>, unsigned) {}  // never reached
void scale_lanes(std::span<fr_t>, const fr_t&, bool, unsigned) {}        // never reached

#endif

}  // namespace starzk
