// One unit of the synthetic circuit, walked gadget by gadget (gadgets.hpp
// documents the patterns and the schedule). The same walk serves three
// sinks, so the rows and the witness can never disagree:
//   - a counter (rows, aux wires, nnz per matrix: the layout of a unit);
//   - a CSR writer (the circuit);
//   - a witness writer (values; rows are skipped).
// A Sink provides
//   static constexpr bool wants_rows, wants_values;
//   void row(const lc_t& a, const lc_t& b, const lc_t& c);
//   void value(uint32_t wire, const fr_t& v);
// Structural draws (operands, rotations, which K and k) happen in every
// mode, in the same order; the witness stream is touched only when values
// are wanted. Row terms carry coefficient codes (ctx.coeffs, gadgets.hpp).
#pragma once

#include <cstdint>

#include "gen/gadgets.hpp"

namespace starzk::gen_detail {

template <class Sink>
class unit_walker_t {
 public:
  unit_walker_t(const unit_ctx_t& ctx, Sink& sink)
      : ctx_(ctx),
        co_(*ctx.coeffs),
        sink_(sink),
        w_(ctx.width),
        mask_(ctx.width >= 64 ? ~uint64_t(0) : (uint64_t(1) << ctx.width) - 1),
        srng_(stream_for(ctx.seed, ctx.index, 0, tag_structure)),
        wrng_(stream_for(ctx.seed, ctx.index, ctx.partition, tag_witness)),
        next_aux_(ctx.first_aux) {}

  // Walks the whole unit; returns the number of aux wires it allocated.
  uint32_t run() {
    for (unsigned i = 0; i < n_free_words; ++i) free_word();
    unsigned adds[n_ops];
    unsigned n_adds = 0;
    for (unsigned i = 0; i < n_ops; ++i) {
      switch (op_schedule[i]) {
        case 'x':
          bitwise(true);
          break;
        case 'n':
          bitwise(false);
          break;
        case 'a':
          adds[n_adds++] = addition(3, false);
          break;
        case 'A':
          adds[n_adds++] = addition(5, true);
          break;
      }
    }
    // Pack the last n_packs addition results; the first one starts the
    // multiplication chain.
    uint32_t chain_wire = 0;
    fr_t chain_value{};
    for (unsigned p = 0; p < n_packs; ++p) {
      const word_t& word = words_[adds[n_adds - n_packs + p]];
      const uint32_t out = p < ctx_.n_public_here ? ctx_.first_public + p : alloc(1);
      const fr_t v = fr_t::from_u64(word.value);
      if constexpr (Sink::wants_rows) {
        a_.clear(), b_.clear(), c_.clear();
        for (unsigned i = 0; i < w_; ++i) a_.add(word.first + i, co_.pow2[i]);
        b_.add(0, co_.one());
        c_.add(out, co_.one());
        sink_.row(a_, b_, c_);
      }
      if constexpr (Sink::wants_values) sink_.value(out, v);
      if (p == 0) chain_wire = out, chain_value = v;
    }
    multiplication_chain(chain_wire, chain_value);
    return next_aux_ - ctx_.first_aux;
  }

 private:
  // A word: w consecutive bit wires from `first` (bit i = wire first + i)
  // and, in witness mode, its integer value.
  struct word_t {
    uint32_t first = 0;
    uint64_t value = 0;
  };
  struct operand_t {
    unsigned word;
    unsigned rot;  // bit i of the operand is bit (i + rot) mod w of the word
  };

  uint32_t alloc(unsigned n) {
    const uint32_t first = next_aux_;
    next_aux_ += n;
    return first;
  }
  uint32_t bit_wire(const operand_t& o, unsigned i) const { return words_[o.word].first + (i + o.rot) % w_; }
  uint64_t rotated_value(const operand_t& o) const {
    const uint64_t v = words_[o.word].value;
    return o.rot == 0 ? v : ((v >> o.rot) | (v << (w_ - o.rot))) & mask_;
  }

  // m distinct words among the last operand_window, each with a rotation
  // (a partial Fisher-Yates draw over the window).
  void pick(unsigned m, operand_t* out) {
    const unsigned window = n_words_ < operand_window ? n_words_ : operand_window;
    unsigned idx[operand_window];
    for (unsigned i = 0; i < window; ++i) idx[i] = n_words_ - window + i;
    for (unsigned j = 0; j < m; ++j) {
      const unsigned r = j + unsigned(srng_() % (window - j));
      const unsigned t = idx[j];
      idx[j] = idx[r], idx[r] = t;
      out[j] = operand_t{idx[j], unsigned(srng_() % w_)};
    }
  }

  // (1 − b)·b = 0.
  void boolean_row(uint32_t bit) {
    if constexpr (Sink::wants_rows) {
      a_.clear(), b_.clear(), c_.clear();
      a_.add(0, co_.one());
      a_.add(bit, co_.minus_one);
      b_.add(bit, co_.one());
      sink_.row(a_, b_, c_);
    }
  }

  void set_bits(uint32_t first, unsigned n, uint64_t value) {
    if constexpr (Sink::wants_values)
      for (unsigned i = 0; i < n; ++i) sink_.value(first + i, (value >> i) & 1 ? fr_t::one() : fr_t::zero());
  }

  // A witness input word: w free bits, each with its boolean row.
  void free_word() {
    word_t word{alloc(w_), 0};
    if constexpr (Sink::wants_values) word.value = wrng_() & mask_;
    set_bits(word.first, w_, word.value);
    for (unsigned i = 0; i < w_; ++i) boolean_row(word.first + i);
    words_[n_words_++] = word;
  }

  // Bitwise xor ((2a)·b = a + b − c) or and (a·b = c) of two rotated words.
  void bitwise(bool is_xor) {
    operand_t op[2];
    pick(2, op);
    word_t word{alloc(w_), 0};
    if constexpr (Sink::wants_values) {
      const uint64_t x = rotated_value(op[0]), y = rotated_value(op[1]);
      word.value = is_xor ? (x ^ y) : (x & y);
    }
    set_bits(word.first, w_, word.value);
    if constexpr (Sink::wants_rows) {
      for (unsigned i = 0; i < w_; ++i) {
        const uint32_t x = bit_wire(op[0], i), y = bit_wire(op[1], i);
        a_.clear(), b_.clear(), c_.clear();
        b_.add(y, co_.one());
        if (is_xor) {
          a_.add(x, co_.two());
          c_.add(x, co_.one());
          c_.add(y, co_.one());
          c_.add(word.first + i, co_.minus_one);
        } else {
          a_.add(x, co_.one());
          c_.add(word.first + i, co_.one());
        }
        sink_.row(a_, b_, c_);
      }
    }
    words_[n_words_++] = word;
  }

  // (Σ_j Σ_i 2^i·x_j,i + K)·1 = Σ_i 2^i·r_i, then a boolean row per r_i.
  // Returns the index of the output word (the low w result bits).
  unsigned addition(unsigned m, bool with_k) {
    operand_t op[5];
    pick(m, op);
    const unsigned kj = with_k ? unsigned(srng_() % n_add_constants) : 0;  // which K
    const uint64_t k = with_k ? coeffs_t::add_value(co_.add_raw[kj], w_) : 0;
    const unsigned n_bits = add_result_bits(w_, m, with_k);
    word_t word{alloc(n_bits), 0};
    uint64_t sum = k;
    if constexpr (Sink::wants_values) {
      for (unsigned j = 0; j < m; ++j) sum += rotated_value(op[j]);
      word.value = sum & mask_;
    }
    set_bits(word.first, n_bits, sum);
    if constexpr (Sink::wants_rows) {
      a_.clear(), b_.clear(), c_.clear();
      for (unsigned j = 0; j < m; ++j)
        for (unsigned i = 0; i < w_; ++i) a_.add(bit_wire(op[j], i), co_.pow2[i]);
      if (with_k) a_.add(0, co_.add_code[w_][kj]);
      b_.add(0, co_.one());
      for (unsigned i = 0; i < n_bits; ++i) c_.add(word.first + i, co_.pow2[i]);
      sink_.row(a_, b_, c_);
    }
    for (unsigned i = 0; i < n_bits; ++i) boolean_row(word.first + i);
    words_[n_words_] = word;
    return n_words_++;
  }

  // v_{i+1} = k_i·v_i², k_i one of the circuit's non-zero constants.
  void multiplication_chain(uint32_t wire, fr_t value) {
    const unsigned n = n_mul_rows(w_);
    for (unsigned i = 0; i < n; ++i) {
      const unsigned j = unsigned(srng_() % n_mul_constants);
      const uint32_t out = alloc(1);
      if constexpr (Sink::wants_rows) {
        a_.clear(), b_.clear(), c_.clear();
        a_.add(wire, co_.mul_code[j]);
        b_.add(wire, co_.one());
        c_.add(out, co_.one());
        sink_.row(a_, b_, c_);
      }
      if constexpr (Sink::wants_values) {
        value = co_.mul[j] * value * value;
        sink_.value(out, value);
      }
      wire = out;
    }
  }

  const unit_ctx_t& ctx_;
  const coeffs_t& co_;
  Sink& sink_;
  unsigned w_;
  uint64_t mask_;
  splitmix64_t srng_, wrng_;
  uint32_t next_aux_;
  word_t words_[max_words];
  unsigned n_words_ = 0;
  lc_t a_, b_, c_;
};

}  // namespace starzk::gen_detail
