// forward_lanes (ntt_lanes.hpp): the NTT's stages in IFMA lanes. Every
// function here that touches a vector register carries STARZK_IFMA_TARGET;
// forward_lanes is called only where ff_path::wide() is true.
//
// Moving eight fr_t between memory and the lanes (load8 / store8): the
// four 64-byte rows R_i = (e_2i limbs 0-3, e_2i+1 limbs 0-3) hold limb k
// of element 2i at R_i[k] and of element 2i + 1 at R_i[4 + k]; the limb
// registers x_k hold limb k of e_0..e_7. load8: x_k = (R_0[k], R_0[4+k],
// R_1[k], R_1[4+k]) from one two-source permutation, the same from R_2, R_3,
// and the two halves joined; then the change of radix (fr_x8_t::from_limbs64).
// store8 the other way: pairs (x_0, x_1) and (x_2, x_3) interleaved
// (unpack), then 128-bit quarters shuffled into the rows.
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
// Every lane: the zero-masked and masked forms of the shuffles and the
// gather with it are the plain instructions, whose intrinsics trip GCC 12's
// -Wuninitialized on their undefined pass-through operand.
constexpr __mmask8 all = 0xff;

STARZK_IFMA_TARGET inline fr_x8_t load8(const fr_t* p) {
  const auto* q = reinterpret_cast<const uint64_t*>(p);
  const __m512i r0 = _mm512_loadu_si512(q), r1 = _mm512_loadu_si512(q + 8), r2 = _mm512_loadu_si512(q + 16),
                r3 = _mm512_loadu_si512(q + 24);
  __m512i x[4];
#pragma GCC unroll 4
  for (unsigned k = 0; k < 4; ++k) {
    // Lanes 0-3: first[k], first[4 + k], second[k], second[4 + k] (8 + i: the second source).
    const __m512i idx = _mm512_set_epi64(0, 0, 0, 0, 12 + k, 8 + k, 4 + k, k);
    const __m512i lo = _mm512_permutex2var_epi64(r0, idx, r1), hi = _mm512_permutex2var_epi64(r2, idx, r3);
    x[k] = _mm512_maskz_shuffle_i64x2(all, lo, hi, 0x44);  // lo's quarters 0, 1 then hi's 0, 1
  }
  return fr_x8_t::from_limbs64(x);
}

STARZK_IFMA_TARGET inline void store8(fr_t* p, const fr_x8_t& v) {
  __m512i x[4];
  v.to_limbs64(x);
  const __m512i lo01 = _mm512_maskz_unpacklo_epi64(all, x[0], x[1]),
                hi01 = _mm512_maskz_unpackhi_epi64(all, x[0], x[1]);
  const __m512i lo23 = _mm512_maskz_unpacklo_epi64(all, x[2], x[3]),
                hi23 = _mm512_maskz_unpackhi_epi64(all, x[2], x[3]);
  // Quarter i of lo01 is (x0[2i], x1[2i]), of hi01 (x0[2i+1], x1[2i+1]); row
  // i is (lo01_i, lo23_i, hi01_i, hi23_i).
  const __m512i a = _mm512_maskz_shuffle_i64x2(all, lo01, lo23, 0x44),
                b = _mm512_maskz_shuffle_i64x2(all, hi01, hi23, 0x44);
  const __m512i c = _mm512_maskz_shuffle_i64x2(all, lo01, lo23, 0xEE),
                d = _mm512_maskz_shuffle_i64x2(all, hi01, hi23, 0xEE);
  auto* q = reinterpret_cast<uint64_t*>(p);
  _mm512_storeu_si512(q, _mm512_maskz_shuffle_i64x2(all, a, b, 0x88));
  _mm512_storeu_si512(q + 8, _mm512_maskz_shuffle_i64x2(all, a, b, 0xDD));
  _mm512_storeu_si512(q + 16, _mm512_maskz_shuffle_i64x2(all, c, d, 0x88));
  _mm512_storeu_si512(q + 24, _mm512_maskz_shuffle_i64x2(all, c, d, 0xDD));
}

// tw[(j + l)·stride], l = 0..7, in the twiddle form.
STARZK_IFMA_TARGET inline fr_x8_t twiddles8(const fr_t* tw, size_t j, size_t stride) {
  const fr_x8_t to_tw = fr_x8_t::broadcast(ifma::fr_consts::to_twiddle52);
  if (stride == 1) return load8(tw + j) * to_tw;
  const auto* base = reinterpret_cast<const long long*>(tw);
  const int64_t p0 = int64_t(4 * j * stride), d = int64_t(4 * stride);
  const __m512i pos =
      _mm512_set_epi64(p0 + 7 * d, p0 + 6 * d, p0 + 5 * d, p0 + 4 * d, p0 + 3 * d, p0 + 2 * d, p0 + d, p0);
  __m512i x[4];
#pragma GCC unroll 4
  for (unsigned k = 0; k < 4; ++k)
    x[k] =
        _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), all, _mm512_add_epi64(pos, _mm512_set1_epi64(k)), base, 8);
  return fr_x8_t::from_limbs64(x) * to_tw;
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
  const fr_x8_t u = load8(lo), t = load8(hi) * w;
  fr_x8_t s = u + t, d = u - t;
  if (last) {
    s = s.canonical();
    d = d.canonical();
  }
  store8(lo, s);
  store8(hi, d);
}

// Stages 1 .. min(k, chunk_log) on the chunk a[c0, c0 + size).
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void chunk_stages(const plan_t& pl, size_t c0, size_t size) {
  fr_t* a = pl.a + c0;
  const unsigned top = std::min(pl.k, chunk_log);
  for (size_t q = 0; q < size; q += 8) {
    fr_x8_t x = load8(a + q);
    x = in_block<1>(x, nullptr);
    x = in_block<2>(x, &pl.w2);
    x = in_block<4>(x, &pl.w4);
    store8(a + q, x);
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
  const size_t len = size_t(1) << s, half = len / 2, stride = pl.n / len, groups = pl.n / len;
  size_t cur = ~size_t(0);
  fr_x8_t w = fr_x8_t::broadcast({});
  for (size_t t = begin; t < end; ++t) {
    const size_t j = (t / groups) * 8, g = t % groups;
    if (j != cur) {
      w = twiddles8(pl.tw, j, stride);
      cur = j;
    }
    butterfly8(pl.a + g * len + j, pl.a + g * len + j + half, w, s == pl.k);
  }
}

STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN fr_x8_t pair_twiddles(const fr_t* tw, size_t n, unsigned h) {
  // Lane l's pair twiddle in the stage of half h: ω_(2h)^(l mod h) = tw[(l mod h)·n/(2h)].
  alignas(64) fr_t t[8];
  for (unsigned l = 0; l < 8; ++l) t[l] = tw[(l % h) * (n / (2 * h))];
  return load8(t) * fr_x8_t::broadcast(ifma::fr_consts::to_twiddle52);
}

// a[i] <- a[i]·p_i for i in [begin, end) (multiples of 8), p_begin..p_begin+7
// given in the twiddle form and multiplied by `step` (twiddle form) from
// one run of eight to the next; canonical out.
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void scale_run(fr_t* a, size_t begin, size_t end, fr_x8_t p, const fr_x8_t& step,
                                                      bool advance) {
  for (size_t i = begin; i < end; i += 8) {
    store8(a + i, (load8(a + i) * p).canonical());
    if (advance) p = p * step;
  }
}

// Eight elements (canonical fr_t) in the twiddle form.
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN fr_x8_t twiddle_form(const fr_t* v) {
  return load8(v) * fr_x8_t::broadcast(ifma::fr_consts::to_twiddle52);
}

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
