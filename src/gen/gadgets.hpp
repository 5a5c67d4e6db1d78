// The constraint patterns ("gadgets") the synthetic Filecoin-shaped circuit
// is built from, written once for both of their uses: emitting the rows of
// the circuit and computing the witness values that satisfy them.
//
// Every gadget puts exactly one term in B, like the SHA-256 gadgets of
// bellman that dominate a PoRep circuit (nnz(B) / rows = 1.0 there too).
// Wire 0 is the constant one. Per row, (A·w)·(B·w) = C·w:
//
//   boolean    (1 − b)·b = 0                 A {0:1, b:−1}  B {b}   C {}
//              (bellman's Boolean::alloc form)            nnz 2 / 1 / 0
//   xor        (2a)·b = a + b − c            A {a:2}  B {b}  C {a, b, c:−1}
//              c = a + b − 2ab = a ⊕ b for bits (bellman Boolean::xor)
//                                                         nnz 1 / 1 / 3
//   and        a·b = c                                    nnz 1 / 1 / 1
//   addition   (Σ_j Σ_i 2^i·x_j,i + K)·1 = Σ_i 2^i·r_i   of m words of
//              width w (rotated, as SHA-256's Σ/σ inputs are) plus a
//              constant K (SHA-256's round constant), then a boolean row
//              for each result bit r_i; w + carry result bits, the low w
//              forming the output word (bellman UInt32::addmany)
//                                     nnz m·w(+1) / 1 / w + carry
//   pack       (Σ_i 2^i·x_i)·1 = p     bit decomposition of a word into one
//              field element: a public input (Filecoin's packed
//              commitments and challenges) or an aux wire  nnz w / 1 / 1
//   multiply   (k·v)·v = v'            full-field squaring chain with a
//              random circuit constant k, started from a packed word;
//              the only non-boolean aux values besides the packs
//                                                         nnz 1 / 1 / 1
//
// A unit is a fixed schedule of these over words of width w (32, or less
// for the one tail unit that fills the row count exactly): 2 free input
// words, then 17 xors, 1 and, 2 three-word additions and 4 five-word
// additions with a constant (schedule below), 3 packs of the last three
// addition results and a multiplication chain of ~1% of the rows. At w = 32
// that is 866 rows with nnz 2.38 / 1.00 / 2.18 per row (Filecoin PoRep:
// 2.37 / 1.00 / 2.17) and 860 aux wires of which 12 are not bits.
// Operand choices and rotations (from the last 8 words), and which K and
// k each gadget takes from the circuit's constant tables (coeffs_t below),
// are drawn from a stream seeded by (seed, unit); free input words from a
// stream seeded by (seed, partition, unit): the circuit depends on the
// seed only, the witness also on the partition.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ff/fr.hpp"

namespace starzk::gen_detail {

// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit counter passed through a
// bijective mixer; a URBG for fr_t::random and our own draws.
struct splitmix64_t {
  using result_type = uint64_t;
  uint64_t state;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return ~uint64_t(0); }
  static constexpr uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t operator()() { return mix(state += 0x9e3779b97f4a7c15ull); }
};

// A stream for (seed, a, b, tag): each input goes through the mixer in turn.
inline splitmix64_t stream_for(uint64_t seed, uint64_t a, uint64_t b, uint64_t tag) {
  uint64_t h = splitmix64_t::mix(seed + 0x9e3779b97f4a7c15ull);
  h = splitmix64_t::mix(h ^ (a + 0x632be59bd9b4e019ull));
  h = splitmix64_t::mix(h ^ (b + 0x85157af5ull));
  return splitmix64_t{splitmix64_t::mix(h ^ tag)};
}

inline constexpr uint64_t tag_structure = 0x5354525543ull;  // "STRUC"
inline constexpr uint64_t tag_witness = 0x5749544e53ull;    // "WITNS"
inline constexpr uint64_t tag_constants = 0x434f4e5354ull;  // "CONST"

// ---- the unit schedule --------------------------------------------------
inline constexpr unsigned full_width = 32;
inline constexpr unsigned n_free_words = 2;
// x = xor, n = and, a = 3-word addition, A = 5-word addition + constant.
// The first addition comes after 5 words exist (5 distinct operands).
inline constexpr char op_schedule[] = "xxxAxxxaxxAxnxAxxxaxxAxx";
inline constexpr unsigned n_ops = sizeof(op_schedule) - 1;
inline constexpr unsigned n_packs = 3;         // public-input slots per unit
inline constexpr unsigned operand_window = 8;  // operands come from the last 8 words
inline constexpr unsigned max_words = n_free_words + n_ops;

constexpr unsigned count_op(char c) {
  unsigned n = 0;
  for (unsigned i = 0; i < n_ops; ++i) n += op_schedule[i] == c;
  return n;
}
static_assert(count_op('x') == 17 && count_op('n') == 1 && count_op('a') == 2 && count_op('A') == 4);
static_assert(count_op('a') + count_op('A') >= n_packs, "packs take the last additions");

// Multiplication rows: ~1% of a unit (9 at w = 32), at least one.
constexpr unsigned n_mul_rows(unsigned width) { return width >= 32 ? 9 : (9 * width + 16) / 32 + 1; }

// Result bits of an addition of m words of width w plus (with_k) a constant
// below 2^w: the bit length of (m + with_k)·(2^w − 1).
constexpr unsigned add_result_bits(unsigned width, unsigned m, bool with_k) {
  const uint64_t max_sum = uint64_t(m + (with_k ? 1 : 0)) * ((uint64_t(1) << width) - 1);
  unsigned bits = 0;
  while (bits < 64 && (max_sum >> bits) != 0) ++bits;
  return bits;
}
static_assert(add_result_bits(32, 3, false) == 34 && add_result_bits(32, 5, true) == 35);

// ---- coefficients -----------------------------------------------------------
// Every coefficient of the circuit, known before any row is written: the
// dictionary of its coded matrices (groth16/r1cs.hpp) and each gadget's code
// in it, so rows carry codes and the parallel writers never look a value up.
//   2^i, i < 64       bit packing and additions (1 = 2^0; 2 = 2^1, xor)
//   −1                boolean and xor rows
//   K_j, j < 64       the additions' constants: one table per circuit, as
//                     SHA-256 has 64 round constants; K_j cut to a word
//                     width w is its low w bits, made odd (always a term)
//   k_j, j < 256      the multiplication chain's non-zero constants
// The tables are drawn from the circuit's seed; the dictionary holds the K's
// of the widths the circuit uses (32 and the tail's): at most
// 64 + 1 + 2 × 64 + 256 = 449 values.
inline constexpr unsigned n_add_constants = 64;
inline constexpr unsigned n_mul_constants = 256;

struct coeffs_t {
  std::vector<fr_t> dict;
  std::array<uint16_t, 64> pow2{};
  uint16_t minus_one = 0;
  std::array<uint64_t, n_add_constants> add_raw{};                               // K_j, below 2^32
  std::array<std::array<uint16_t, n_add_constants>, full_width + 1> add_code{};  // [w][j], widths used only
  std::array<fr_t, n_mul_constants> mul{};
  std::array<uint16_t, n_mul_constants> mul_code{};

  uint16_t one() const { return pow2[0]; }
  uint16_t two() const { return pow2[1]; }
  static constexpr uint64_t add_value(uint64_t raw, unsigned width) {
    return (width >= 64 ? raw : raw & ((uint64_t(1) << width) - 1)) | 1;
  }
};

// ---- linear combinations ---------------------------------------------------
inline constexpr unsigned max_terms = 5 * full_width + 1;  // the widest row: a 5-word addition + K

struct term_t {
  uint32_t col;
  uint16_t code;  // into coeffs_t::dict
};

struct lc_t {
  std::array<term_t, max_terms> t;
  unsigned n = 0;
  void clear() { n = 0; }
  void add(uint32_t col, uint16_t code) { t[n++] = term_t{col, code}; }
};

// Where a unit sits and what it is: the walker (unit_walker.hpp) needs
// nothing else.
struct unit_ctx_t {
  uint64_t seed = 0;
  uint64_t index = 0;  // unit number: seeds its structure stream
  unsigned width = full_width;
  uint32_t first_aux = 0;            // its first aux wire
  uint32_t first_public = 0;         // wire of the public input its pack 0 produces
  unsigned n_public_here = 0;        // how many of its packs are public inputs
  uint64_t partition = 0;            // seeds its free words (witness mode)
  const coeffs_t* coeffs = nullptr;  // the circuit's (its K codes cover `width`)
};

}  // namespace starzk::gen_detail
