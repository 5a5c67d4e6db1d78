// Layout, circuit and witness of the synthetic Filecoin-shaped circuit
// (filecoin_shape.hpp). The rows are, in order:
//   n_full_units units of width 32 (unit u packs public inputs
//     3u+1 .. 3u+3 while any are left),
//   at most one tail unit of the widest width whose rows still fit,
//   n_pad_rows xor rows c_j = x ⊕ y over the last unit's two free words
//     (fewer than one unit's rows per bit of width: < 60 rows).
// Wires: 0, the publics, then each unit's aux wires in order, then the pad
// outputs. Every unit's first row, first nnz and first aux wire follow from
// its index by a multiplication, so units are generated independently.
#include "gen/filecoin_shape.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <stdexcept>
#include <string>

#include "gen/unit_walker.hpp"
#include "util/parallel.hpp"

namespace starzk {
namespace {

using namespace gen_detail;

// ---- sinks ---------------------------------------------------------------

struct unit_shape_t {
  uint64_t rows = 0, aux = 0, nnz_a = 0, nnz_b = 0, nnz_c = 0;
};

struct count_sink_t {
  static constexpr bool wants_rows = true, wants_values = false;
  unit_shape_t s;
  void row(const lc_t& a, const lc_t& b, const lc_t& c) {
    ++s.rows;
    s.nnz_a += a.n, s.nnz_b += b.n, s.nnz_c += c.n;
  }
  void value(uint32_t, const fr_t&) {}
};

// Writes rows at absolute positions of the three CSR matrices (coded form:
// the terms' codes go straight into code[]; the dictionary is set after).
struct csr_sink_t {
  static constexpr bool wants_rows = true, wants_values = false;
  struct cursor_t {
    sparse_matrix_t* m;
    uint64_t row;  // next row to write
    uint64_t nnz;  // next term to write
    void put(const lc_t& lc) {
      for (unsigned i = 0; i < lc.n; ++i, ++nnz) {
        m->col[nnz] = lc.t[i].col;
        m->code[nnz] = lc.t[i].code;
      }
      m->row_ptr[++row] = nnz;
    }
  } a, b, c;
  void row(const lc_t& la, const lc_t& lb, const lc_t& lc) { a.put(la), b.put(lb), c.put(lc); }
  void value(uint32_t, const fr_t&) {}
};

struct witness_sink_t {
  static constexpr bool wants_rows = false, wants_values = true;
  fr_t* w;
  void row(const lc_t&, const lc_t&, const lc_t&) {}
  void value(uint32_t wire, const fr_t& v) { w[wire] = v; }
};

// The coefficient tables and dictionary of a circuit (gadgets.hpp
// coeffs_t), with the K codes of widths w1 and w2 (0: none). A pure
// function of its arguments, computed before any row.
coeffs_t make_coeffs(uint64_t seed, unsigned w1, unsigned w2) {
  coeffs_t co;
  value_dict_t dict;
  auto code = [&](const fr_t& v) { return *dict.insert(v); };  // < 500 values: never full
  fr_t p = fr_t::one();
  for (unsigned i = 0; i < 64; ++i, p = p + p) co.pow2[i] = code(p);
  co.minus_one = code(-fr_t::one());
  splitmix64_t rng = stream_for(seed, 0, 0, tag_constants);
  for (uint64_t& k : co.add_raw) k = rng() & 0xffffffffull;
  for (const unsigned w : {w1, w2})
    if (w != 0)
      for (unsigned j = 0; j < n_add_constants; ++j)
        co.add_code[w][j] = code(fr_t::from_u64(coeffs_t::add_value(co.add_raw[j], w)));
  for (unsigned j = 0; j < n_mul_constants; ++j) {
    do co.mul[j] = fr_t::random(rng);
    while (co.mul[j].is_zero());
    co.mul_code[j] = code(co.mul[j]);
  }
  co.dict = dict.take();
  return co;
}

// Rows, aux and nnz of a unit of this width (independent of the seed: the
// draws change which wires and coefficients, never how many).
unit_shape_t shape_of(unsigned width) {
  static const std::array<unit_shape_t, full_width + 1> shapes = [] {
    std::array<unit_shape_t, full_width + 1> s{};
    for (unsigned w = 1; w <= full_width; ++w) {
      const coeffs_t co = make_coeffs(0, w, 0);
      unit_ctx_t ctx;
      ctx.width = w;
      ctx.coeffs = &co;
      count_sink_t sink;
      sink.s.aux = unit_walker_t<count_sink_t>(ctx, sink).run();
      s[w] = sink.s;
    }
    return s;
  }();
  return shapes[width];
}

// ---- layout ----------------------------------------------------------------

struct plan_t {
  gen_layout_t layout;
  coeffs_t coeffs;
  unit_shape_t full, tail;
  uint64_t tail_first_aux = 0, pad_first_aux = 0;
  uint64_t pad_source_aux = 0;  // first aux wire of the unit the pads read
  unsigned pad_source_width = 0;
};

plan_t make_plan(const gen_params_t& params) {
  const unsigned k = params.log2_constraints;
  if (k < 10 || k > 27) throw std::runtime_error("gen: log2_constraints must be in [10, 27], got " + std::to_string(k));
  plan_t p;
  gen_layout_t& l = p.layout;
  p.full = shape_of(full_width);
  const uint64_t total = (uint64_t(1) << k) - 1;  // constraints + publics

  // Clamp: every public input is one pack of a full unit, and fewer publics
  // leave more rows (so more units); take the largest count that fits.
  uint64_t n_pub = std::min<uint64_t>(params.n_public, n_packs * (total / p.full.rows));
  while (n_pub > n_packs * ((total - n_pub) / p.full.rows)) --n_pub;
  l.log2_domain = k;
  l.n_public = uint32_t(n_pub);
  l.n_constraints = total - n_pub;
  l.n_full_units = l.n_constraints / p.full.rows;
  uint64_t rem = l.n_constraints - l.n_full_units * p.full.rows;
  for (unsigned w = full_width - 1; w >= 1; --w)
    if (shape_of(w).rows <= rem) {
      l.tail_width = w;
      p.tail = shape_of(w);
      break;
    }
  l.n_pad_rows = rem - p.tail.rows;

  const uint64_t first_aux = 1 + n_pub;
  p.tail_first_aux = first_aux + l.n_full_units * p.full.aux - n_pub;  // publics replace aux packs
  p.pad_first_aux = p.tail_first_aux + p.tail.aux;
  const uint64_t n_vars = p.pad_first_aux + l.n_pad_rows;
  if (n_vars > UINT32_MAX) throw std::runtime_error("gen: too many wires for 32-bit columns");
  l.n_vars = uint32_t(n_vars);
  if (l.tail_width) {
    p.pad_source_aux = p.tail_first_aux, p.pad_source_width = l.tail_width;
  } else {
    p.pad_source_aux = p.tail_first_aux - p.full.aux, p.pad_source_width = full_width;
  }
  p.coeffs = make_coeffs(params.seed, full_width, l.tail_width);
  // Pads are xors: nnz 1 / 1 / 3.
  l.nnz_a = l.n_full_units * p.full.nnz_a + p.tail.nnz_a + l.n_pad_rows;
  l.nnz_b = l.n_full_units * p.full.nnz_b + p.tail.nnz_b + l.n_pad_rows;
  l.nnz_c = l.n_full_units * p.full.nnz_c + p.tail.nnz_c + 3 * l.n_pad_rows;
  return p;
}

// Context of unit u (u == n_full_units is the tail).
unit_ctx_t unit_ctx(const plan_t& p, uint64_t seed, uint64_t u, uint64_t partition) {
  const gen_layout_t& l = p.layout;
  unit_ctx_t ctx;
  ctx.seed = seed;
  ctx.index = u;
  ctx.partition = partition;
  ctx.coeffs = &p.coeffs;
  if (u == l.n_full_units) {
    ctx.width = l.tail_width;
    ctx.first_aux = uint32_t(p.tail_first_aux);
    return ctx;
  }
  const uint64_t pubs_before = std::min<uint64_t>(l.n_public, u * n_packs);
  ctx.width = full_width;
  ctx.first_aux = uint32_t(1 + l.n_public + u * p.full.aux - pubs_before);
  ctx.first_public = uint32_t(1 + u * n_packs);
  ctx.n_public_here = unsigned(std::min<uint64_t>(n_packs, l.n_public - pubs_before));
  return ctx;
}

// v.resize(n) for the big arrays, with the pages first touched by all
// threads: resize alone zero-fills serially, and at 2^24 the page faults of
// that one thread were 60% of the generation time (1.4 s of 2.4 s on 16
// cores). The storage is reserved, zeroed bytewise in parallel (fr_t and
// the integers are implicit-lifetime types), then value-initialised by
// resize over already-mapped pages.
template <class T>
void resize_touched(std::vector<T>& v, size_t n, unsigned threads) {
  static_assert(std::is_trivially_copyable_v<T>);
  v.clear();
  v.reserve(n);
  auto* bytes = reinterpret_cast<unsigned char*>(v.data());
  parallel_for(
      n * sizeof(T), threads, [&](size_t begin, size_t end) { std::memset(bytes + begin, 0, end - begin); },
      size_t(1) << 22);
  v.resize(n);
}

uint64_t n_units(const gen_layout_t& l) { return l.n_full_units + (l.tail_width ? 1 : 0); }

// The wires pad row j reads: bit j of the source unit's first free word and
// a rotating bit of its second.
std::pair<uint32_t, uint32_t> pad_inputs(const plan_t& p, uint64_t j) {
  const unsigned w = p.pad_source_width;
  return {uint32_t(p.pad_source_aux + j % w), uint32_t(p.pad_source_aux + w + (5 * j + 1) % w)};
}

}  // namespace

gen_layout_t plan_layout(const gen_params_t& params) { return make_plan(params).layout; }

r1cs_t generate_circuit(const gen_params_t& params, unsigned threads) {
  const plan_t p = make_plan(params);
  const gen_layout_t& l = p.layout;
  r1cs_t cs;
  cs.n_vars = l.n_vars;
  cs.n_public = l.n_public;
  cs.n_constraints = uint32_t(l.n_constraints);
  auto shape = [&](sparse_matrix_t& m, uint64_t nnz) {
    m.n_rows = l.n_constraints;
    m.n_cols = l.n_vars;
    resize_touched(m.row_ptr, l.n_constraints + 1, threads);
    resize_touched(m.col, nnz, threads);
    resize_touched(m.code, nnz, threads);
    m.dict = p.coeffs.dict;  // every matrix shares the circuit's dictionary
  };
  shape(cs.a, l.nnz_a);
  shape(cs.b, l.nnz_b);
  shape(cs.c, l.nnz_c);

  parallel_for(
      n_units(l), threads,
      [&](size_t begin, size_t end) {
        for (uint64_t u = begin; u < end; ++u) {
          // Full units are identical in size, and the tail follows them.
          csr_sink_t sink{{&cs.a, u * p.full.rows, u * p.full.nnz_a},
                          {&cs.b, u * p.full.rows, u * p.full.nnz_b},
                          {&cs.c, u * p.full.rows, u * p.full.nnz_c}};
          const unit_ctx_t ctx = unit_ctx(p, params.seed, u, 0);
          unit_walker_t<csr_sink_t>(ctx, sink).run();
        }
      },
      16);

  // Pad rows: (2x)·y = x + y − c.
  const uint64_t first_row = l.n_constraints - l.n_pad_rows;
  csr_sink_t sink{{&cs.a, first_row, l.nnz_a - l.n_pad_rows},
                  {&cs.b, first_row, l.nnz_b - l.n_pad_rows},
                  {&cs.c, first_row, l.nnz_c - 3 * l.n_pad_rows}};
  const coeffs_t& co = p.coeffs;
  lc_t a, b, c;
  for (uint64_t j = 0; j < l.n_pad_rows; ++j) {
    const auto [x, y] = pad_inputs(p, j);
    a.clear(), b.clear(), c.clear();
    a.add(x, co.two());
    b.add(y, co.one());
    c.add(x, co.one());
    c.add(y, co.one());
    c.add(uint32_t(p.pad_first_aux + j), co.minus_one);
    sink.row(a, b, c);
  }
  return cs;
}

std::vector<fr_t> generate_witness(const gen_params_t& params, const r1cs_t& cs, uint64_t partition, unsigned threads) {
  const plan_t p = make_plan(params);
  const gen_layout_t& l = p.layout;
  if (cs.n_vars != l.n_vars || cs.n_public != l.n_public || cs.n_constraints != l.n_constraints)
    throw std::runtime_error(
        "gen: the circuit (" + std::to_string(cs.n_constraints) + " constraints, " + std::to_string(cs.n_vars) +
        " wires, " + std::to_string(cs.n_public) + " public) was not generated from these parameters (expected " +
        std::to_string(l.n_constraints) + ", " + std::to_string(l.n_vars) + ", " + std::to_string(l.n_public) + ")");
  std::vector<fr_t> w;
  resize_touched(w, l.n_vars, threads);
  w[0] = fr_t::one();
  parallel_for(
      n_units(l), threads,
      [&](size_t begin, size_t end) {
        for (uint64_t u = begin; u < end; ++u) {
          witness_sink_t sink{w.data()};
          const unit_ctx_t ctx = unit_ctx(p, params.seed, u, partition);
          unit_walker_t<witness_sink_t>(ctx, sink).run();
        }
      },
      16);
  for (uint64_t j = 0; j < l.n_pad_rows; ++j) {
    const auto [x, y] = pad_inputs(p, j);
    w[p.pad_first_aux + j] = w[x] == w[y] ? fr_t::zero() : fr_t::one();
  }
  return w;
}

}  // namespace starzk
