// The x86-64 BMI2/ADX Montgomery product for the 4-limb (F_r) and 6-limb
// (F_p) fields, and the run-time switch that picks it over the portable C++.
//
// mulx (BMI2) multiplies without touching the flags; adcx and adox (ADX) are
// two add-with-carry instructions that use two different carry flags (CF and
// OF). So one row of a Montgomery product can run two independent carry
// chains through one pass: the low halves of a_j·d into limb j on one flag,
// the high halves into limb j+1 on the other, with no carry words kept in
// registers. This is how blst and gnark-crypto reach ~25 ns per F_p product
// on a current x86 core. The algorithm is the same no-carry CIOS as the
// portable mont_t::mul_raw_cios (ff/mont_arith.hpp), written in inline
// assembly; the portable code stays as the fallback and the cross-check.
//
// Selection happens once, at static initialisation, from CPUID (leaf 7:
// EBX bit 8 = BMI2, bit 19 = ADX). The environment variable
// STARZK_FF_PORTABLE=1 keeps the portable path; ff_path::set_fast() switches
// at run time (tests, benchmarks). Until the initialiser has run, and on a
// CPU without ADX, every product is the portable one. The instructions are
// in asm text, so nothing here needs -madx/-mbmi2: the binary still runs on
// an x86-64 CPU without them (it never calls the kernel there).
//
// Compiled by GCC and Clang on x86-64 host code only; nvcc's host pass and
// every other target see STARZK_FF_MULX 0 and the portable code alone (the
// ff_path switch exists everywhere but in nvcc's translation units).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#if !defined(__CUDACC__)
#include "util/config.hpp"
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#include <cpuid.h>
#include <emmintrin.h>
#define STARZK_FF_MULX 1
#else
#define STARZK_FF_MULX 0
#endif

// nvcc's translation units see none of this (they use the portable product
// only), so every inline definition below is the same wherever it appears.
#if !defined(__CUDACC__)
namespace starzk::ff_path {

// Does this CPU execute mulx, adcx and adox (BMI2 and ADX)?
inline bool cpu_has_mulx() {
#if STARZK_FF_MULX
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return (ebx & (1u << 8)) && (ebx & (1u << 19));
#else
  return false;
#endif
}

// The switch read by every product: false (portable) until initialised.
inline std::atomic<bool> fast_on{false};

// Turn the fast kernels on or off; on only where the CPU has them.
// Returns the state now in force.
inline bool set_fast(bool on) {
  static const bool can = cpu_has_mulx();
  fast_on.store(on && can, std::memory_order_relaxed);
  return fast_on.load(std::memory_order_relaxed);
}
inline bool fast() { return fast_on.load(std::memory_order_relaxed); }

// The start-up choice: on where the CPU has ADX, unless the switch
// STARZK_FF_PORTABLE is on (util/config.hpp). Read while the program's
// statics are made, so a bad value cannot be thrown here: it means portable,
// and the program's start check refuses it before any work.
inline bool initial_choice() {
  bool portable = true;
  try {
    portable = config::get_switch("STARZK_FF_PORTABLE").value_or(false);
  } catch (...) {
  }
  return set_fast(!portable);
}
inline const bool fast_at_start = initial_choice();

}  // namespace starzk::ff_path
#endif  // !__CUDACC__

#if STARZK_FF_MULX
namespace starzk::mulx {

// ---- the assembly, one macro per step; T(x) names register operand x ----
// (laid out by hand: one instruction per line, rows of a round side by side)
// clang-format off
#define SZK_T(x) "%[" #x "]"

// k = t0·(-m^-1) mod 2^64, the reduction's multiplier, as soon as t0 is
// final (after the row's first product), so the multiply that makes it does
// not wait behind the rest of the row: this shortens each round's chain.
#define SZK_K(t0)                        \
  "movq " SZK_T(t0) ", %[k]\n\t" \
  "imulq %[minv], %[k]\n\t"

// Row 0: t = a·b[0] into t0..tN with one plain adc chain.
#define SZK_ROW0_FIRST(t0, t1)                       \
  "movq (%[b]), %%rdx\n\t"                         \
  "mulxq (%[a]), " SZK_T(t0) ", " SZK_T(t1) "\n\t" \
  SZK_K(t0)
#define SZK_ROW0_STEP(j, op, tj, tj1)                \
  "mulxq 8*" #j "(%[a]), %%rax, " SZK_T(tj1) "\n\t" \
  op " %%rax, " SZK_T(tj) "\n\t"
#define SZK_ROW0_END(tn) "adcq $0, " SZK_T(tn) "\n\t"

// Row i > 0: t += a·b[i]. Step j: lo(a_j·b_i) into t_j on OF, hi into
// t_{j+1} on CF. The last step writes hi straight into t_N (free before the
// row) and folds both pending carries into it; t + a·b_i < 2^(64(N+1))
// (t < 2m, m < 2^(64N-1)), so neither add carries out.
#define SZK_ROW_BEGIN(i)          \
  "movq 8*" #i "(%[b]), %%rdx\n\t"
#define SZK_ROW_STEP(j, tj, tj1)              \
  "mulxq 8*" #j "(%[a]), %%rax, %[h]\n\t" \
  "adoxq %%rax, " SZK_T(tj) "\n\t"          \
  "adcxq %[h], " SZK_T(tj1) "\n\t"
// Step 0 of a row: t0 + lo(a_0·b_i) is t0's final value (lea adds without
// touching the flags), so k is made from it before the carry chains start;
// test then clears CF and OF for them.
#define SZK_ROW_FIRST(t0, t1)                    \
  "mulxq (%[a]), %%rax, %[h]\n\t"             \
  "leaq (" SZK_T(t0) ", %%rax), %[k]\n\t"     \
  "imulq %[minv], %[k]\n\t"                     \
  "testq %%rax, %%rax\n\t"                      \
  "adoxq %%rax, " SZK_T(t0) "\n\t"              \
  "adcxq %[h], " SZK_T(t1) "\n\t"
#define SZK_ROW_END(j, tj, tn)                       \
  "mulxq 8*" #j "(%[a]), %%rax, " SZK_T(tn) "\n\t" \
  "adoxq %%rax, " SZK_T(tj) "\n\t"                   \
  "movl $0, %%eax\n\t"                               \
  "adcxq %%rax, " SZK_T(tn) "\n\t"                   \
  "adoxq %%rax, " SZK_T(tn) "\n\t"

// Reduction: with k made in the row (SZK_K, SZK_ROW_FIRST), t += k·m (t0
// becomes 0), and the window moves up one register (the caller rotates the
// names). Step j: lo(k·m_j) into t_j on CF, hi into t_{j+1} on OF; the last
// CF into t_N. (t + k·m)/2^64 < 2m, as in CIOS.
#define SZK_RED_BEGIN(t0, t1)                                \
  "movq %[k], %%rdx\n\t"                                     \
  "xorl %%eax, %%eax\n\t"                                    \
  "mulxq (%[m]), %%rax, %[h]\n\t"                            \
  "adcxq " SZK_T(t0) ", %%rax\n\t" /* low word: 0, carry */ \
  "adoxq %[h], " SZK_T(t1) "\n\t"
#define SZK_RED_STEP(j, tj, tj1)              \
  "mulxq 8*" #j "(%[m]), %%rax, %[h]\n\t" \
  "adcxq %%rax, " SZK_T(tj) "\n\t"          \
  "adoxq %[h], " SZK_T(tj1) "\n\t"
#define SZK_RED_END(tn) \
  "movl $0, %%eax\n\t"  \
  "adcxq %%rax, " SZK_T(tn) "\n\t"

// One round (row + reduction) over the window t0..t4 (N = 4) / t0..t6 (N = 6).
#define SZK_RED4(t0, t1, t2, t3, t4) \
  SZK_RED_BEGIN(t0, t1) SZK_RED_STEP(1, t1, t2) SZK_RED_STEP(2, t2, t3) SZK_RED_STEP(3, t3, t4) SZK_RED_END(t4)
#define SZK_ROUND4_0(t0, t1, t2, t3, t4)                                                          \
  SZK_ROW0_FIRST(t0, t1) SZK_ROW0_STEP(1, "addq", t1, t2) SZK_ROW0_STEP(2, "adcq", t2, t3)     \
  SZK_ROW0_STEP(3, "adcq", t3, t4) SZK_ROW0_END(t4) SZK_RED4(t0, t1, t2, t3, t4)
#define SZK_ROUND4(i, t0, t1, t2, t3, t4)                                                          \
  SZK_ROW_BEGIN(i) SZK_ROW_FIRST(t0, t1) SZK_ROW_STEP(1, t1, t2) SZK_ROW_STEP(2, t2, t3)      \
  SZK_ROW_END(3, t3, t4) SZK_RED4(t0, t1, t2, t3, t4)

#define SZK_RED6(t0, t1, t2, t3, t4, t5, t6)                                                  \
  SZK_RED_BEGIN(t0, t1) SZK_RED_STEP(1, t1, t2) SZK_RED_STEP(2, t2, t3) SZK_RED_STEP(3, t3, t4) \
  SZK_RED_STEP(4, t4, t5) SZK_RED_STEP(5, t5, t6) SZK_RED_END(t6)
#define SZK_ROUND6_0(t0, t1, t2, t3, t4, t5, t6)                                               \
  SZK_ROW0_FIRST(t0, t1) SZK_ROW0_STEP(1, "addq", t1, t2) SZK_ROW0_STEP(2, "adcq", t2, t3)  \
  SZK_ROW0_STEP(3, "adcq", t3, t4) SZK_ROW0_STEP(4, "adcq", t4, t5)                         \
  SZK_ROW0_STEP(5, "adcq", t5, t6) SZK_ROW0_END(t6) SZK_RED6(t0, t1, t2, t3, t4, t5, t6)
#define SZK_ROUND6(i, t0, t1, t2, t3, t4, t5, t6)                                              \
  SZK_ROW_BEGIN(i) SZK_ROW_FIRST(t0, t1) SZK_ROW_STEP(1, t1, t2) SZK_ROW_STEP(2, t2, t3)  \
  SZK_ROW_STEP(3, t3, t4) SZK_ROW_STEP(4, t4, t5) SZK_ROW_END(5, t5, t6)                     \
  SZK_RED6(t0, t1, t2, t3, t4, t5, t6)
// clang-format on

// t = a·b·2^(-64N) mod m, not yet reduced: t < 2m (the caller subtracts m
// once). a < m; b any N-limb value; m odd with m < 2^(64N-1) - 2^(64N-64);
// minv = -m^-1 mod 2^64. Each round frees the register that held t0, and
// the next round uses it as its top word: the names rotate by one per round.
template <size_t N>
void mont_rows(uint64_t* t, const uint64_t* a, const uint64_t* b, const uint64_t* m, uint64_t minv);

template <>
inline __attribute__((always_inline)) void mont_rows<4>(uint64_t* t, const uint64_t* a, const uint64_t* b,
                                                        const uint64_t* m, uint64_t minv) {
  uint64_t t0, t1, t2, t3, t4, h, k;
  __asm__(SZK_ROUND4_0(t0, t1, t2, t3, t4) SZK_ROUND4(1, t1, t2, t3, t4, t0) SZK_ROUND4(2, t2, t3, t4, t0, t1)
              SZK_ROUND4(3, t3, t4, t0, t1, t2)
          : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [h] "=&r"(h), [k] "=&r"(k)
          : [a] "r"(a), [b] "r"(b), [m] "r"(m), [minv] "m"(minv)
          : "rax", "rdx", "cc", "memory");
  // After 4 rounds the window t3..t2 has moved to t4, t0, t1, t2.
  t[0] = t4, t[1] = t0, t[2] = t1, t[3] = t2;
}

template <>
inline __attribute__((always_inline)) void mont_rows<6>(uint64_t* t, const uint64_t* a, const uint64_t* b,
                                                        const uint64_t* m, uint64_t minv) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, h, k;
  __asm__(SZK_ROUND6_0(t0, t1, t2, t3, t4, t5, t6) SZK_ROUND6(1, t1, t2, t3, t4, t5, t6, t0)
              SZK_ROUND6(2, t2, t3, t4, t5, t6, t0, t1) SZK_ROUND6(3, t3, t4, t5, t6, t0, t1, t2)
                  SZK_ROUND6(4, t4, t5, t6, t0, t1, t2, t3) SZK_ROUND6(5, t5, t6, t0, t1, t2, t3, t4)
          : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
            [t6] "=&r"(t6), [h] "=&r"(h), [k] "=&r"(k)
          : [a] "r"(a), [b] "r"(b), [m] "r"(m), [minv] "m"(minv)
          : "rax", "rdx", "cc", "memory");
  // After 6 rounds the window has moved to t6, t0, t1, t2, t3, t4.
  t[0] = t6, t[1] = t0, t[2] = t1, t[3] = t2, t[4] = t3, t[5] = t4;
}

// r = v, written 16 bytes at a time. Callers often copy a field element
// with 16-byte SSE moves; a 16-byte load that spans two 8-byte stores cannot
// be forwarded from the store buffer and stalls (~15 cycles on current
// Intel cores), while 8-byte loads forward from a 16-byte store fine.
template <size_t N>
inline __attribute__((always_inline)) void store_pairs(uint64_t* r, const uint64_t* v) {
  static_assert(N % 2 == 0);
  for (size_t i = 0; i < N; i += 2)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(r + i), _mm_set_epi64x(int64_t(v[i + 1]), int64_t(v[i])));
}

#undef SZK_T
#undef SZK_ROW0_FIRST
#undef SZK_ROW0_STEP
#undef SZK_ROW0_END
#undef SZK_ROW_BEGIN
#undef SZK_ROW_STEP
#undef SZK_ROW_FIRST
#undef SZK_K
#undef SZK_ROW_END
#undef SZK_RED_BEGIN
#undef SZK_RED_STEP
#undef SZK_RED_END
#undef SZK_RED4
#undef SZK_ROUND4_0
#undef SZK_ROUND4
#undef SZK_RED6
#undef SZK_ROUND6_0
#undef SZK_ROUND6

}  // namespace starzk::mulx
#endif  // STARZK_FF_MULX
