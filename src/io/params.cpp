// bellman / Filecoin .params: layout scan, parallel decoding with density
// restoration (format in params.hpp; the writer is params_write.cpp).
#include "io/params.hpp"

#include <algorithm>
#include <limits>
#include <mutex>
#include <string>

#include "io/bellman_vk.hpp"
#include "io/io_error.hpp"
#include "io/mapped_file.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

constexpr uint64_t g1_size = g1_uncompressed_size;  // 96
constexpr uint64_t g2_size = g2_uncompressed_size;  // 192
// The verifying key's fixed points, as the .vk file has them.
constexpr uint64_t vk_fixed_size = bellman_vk_points_bytes;
static_assert(vk_fixed_size == 3 * g1_size + 3 * g2_size);
// The queries below size their byte strides with sizeof(affine_t<P>).
static_assert(sizeof(g1_affine_t) == g1_size && sizeof(g2_affine_t) == g2_size);

uint32_t load_u32_be(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// ---- layout -------------------------------------------------------------------

params_layout_t scan(const mapped_file_t& f) {
  const uint64_t size = f.size();
  if (size < vk_fixed_size + 4) {
    throw io_error(f.path(), "truncated: " + std::to_string(size) +
                                 " bytes is too short for a .params verifying key (at least " +
                                 std::to_string(vk_fixed_size + 4) + ")");
  }
  params_layout_t l;
  l.file_size = size;
  uint64_t pos = vk_fixed_size;
  auto query = [&](const char* name, uint64_t elem) {
    if (size - pos < 4) {
      throw io_error(f.path(), std::string("truncated: the ") + name + " count at offset " + std::to_string(pos) +
                                   " is cut off (file has " + std::to_string(size) + " bytes)");
    }
    params_query_t q;
    q.count = load_u32_be(f.data() + pos);
    pos += 4;
    if (q.count > (size - pos) / elem) {
      throw io_error(f.path(), std::string("truncated or lying count: the ") + name + " query claims " +
                                   std::to_string(q.count) + " points (" + std::to_string(q.count * elem) +
                                   " bytes) at offset " + std::to_string(pos) + " but only " +
                                   std::to_string(size - pos) + " bytes remain");
    }
    q.offset = pos;
    pos += q.count * elem;
    return q;
  };
  l.ic = query("ic", g1_size);
  l.h = query("h", g1_size);
  l.l = query("l", g1_size);
  l.a = query("a", g1_size);
  l.b_g1 = query("b_g1", g1_size);
  l.b_g2 = query("b_g2", g2_size);
  if (pos != size) {
    throw io_error(f.path(), std::to_string(size - pos) + " trailing bytes after the b_g2 query (it ends at offset " +
                                 std::to_string(pos) + ")");
  }
  return l;
}

// ---- decoding -------------------------------------------------------------------

decode_status decode_point(const uint8_t* in, g1_affine_t& p, decode_check c) {
  return decode_g1_uncompressed(in, p, c);
}
decode_status decode_point(const uint8_t* in, g2_affine_t& p, decode_check c) {
  return decode_g2_uncompressed(in, p, c);
}

enum class infinity_rule { forbidden, allowed };

// Decodes `q` into out[wire_of[k]] (or out[k] without a map), in parallel.
// Reports the lowest-numbered bad point: every chunk stops at its first bad
// point, and the chunks cover increasing index ranges.
template <class V>
void decode_query(const mapped_file_t& f, const char* name, const params_query_t& q, V& out,
                  const std::vector<uint32_t>* wire_of, infinity_rule inf, const params_read_options_t& opt) {
  using P = typename V::value_type::params_t;
  constexpr uint64_t size = sizeof(affine_t<P>);  // 96 / 192: the uncompressed sizes too
  const uint8_t* src = f.data() + q.offset;
  std::mutex m;
  uint64_t bad = std::numeric_limits<uint64_t>::max();
  std::string problem;
  parallel_for(
      q.count, opt.threads,
      [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k) {
          affine_t<P> p;
          const decode_status s = decode_point(src + k * size, p, opt.check);
          const char* why = s != decode_status::ok ? describe(s) : nullptr;
          if (!why && inf == infinity_rule::forbidden && p.is_infinity()) {
            why = "is the point at infinity, which bellman never stores in this query";
          }
          if (why) {
            std::lock_guard<std::mutex> lock(m);
            if (k < bad) {
              bad = k;
              problem = why;
            }
            return;
          }
          out[wire_of ? (*wire_of)[k] : k] = p;
        }
      },
      64);
  if (bad != std::numeric_limits<uint64_t>::max()) {
    std::string where = std::string(name) + " point " + std::to_string(bad);
    if (wire_of) where += " (wire " + std::to_string((*wire_of)[bad]) + ")";
    throw io_error(f.path(), where + " at offset " + std::to_string(q.offset + bad * size) + ": " + problem);
  }
}

template <class P>
affine_t<P> decode_vk_point(const mapped_file_t& f, const char* name, uint64_t offset, decode_check check) {
  affine_t<P> p;
  const decode_status s = decode_point(f.data() + offset, p, check);
  if (s != decode_status::ok) throw io_error(f.path(), std::string(name) + ": " + describe(s));
  if (p.is_infinity()) throw io_error(f.path(), std::string(name) + " is the point at infinity");
  return p;
}

// The wires that own the points of a dense query, in order.
std::vector<uint32_t> dense_wires(const std::vector<uint8_t>& dense) {
  std::vector<uint32_t> w;
  for (size_t j = 0; j < dense.size(); ++j) {
    if (dense[j]) w.push_back(uint32_t(j));
  }
  return w;
}

void mark_columns(const mapped_file_t* f, const sparse_matrix_t& m, uint32_t n_vars, const char* name,
                  std::vector<uint8_t>& dense) {
  for (uint32_t c : m.col) {
    if (c >= n_vars) {
      const std::string msg = std::string("circuit matrix ") + name + " names wire " + std::to_string(c) +
                              " but the circuit has " + std::to_string(n_vars) + " wires";
      if (f) throw io_error(f->path(), msg);
      throw std::invalid_argument(msg);
    }
    dense[c] = 1;
  }
}

proving_key_t read(const std::filesystem::path& file, const r1cs_t* cs, const params_read_options_t& opt) {
  const mapped_file_t f(file);
  f.advise_sequential();
  const params_layout_t lay = scan(f);

  // Shape: everything follows from the counts.
  if (lay.ic.count == 0) throw io_error(file, "the verifying key has no ic points (it needs n_public + 1)");
  const uint64_t n_public = uint64_t(lay.ic.count) - 1;
  const uint64_t n_vars = n_public + 1 + lay.l.count;
  const uint64_t domain = uint64_t(lay.h.count) + 1;
  if (n_vars > std::numeric_limits<uint32_t>::max()) {
    throw io_error(file, "ic and l describe " + std::to_string(n_vars) + " wires, more than 2^32 - 1");
  }
  if ((domain & (domain - 1)) != 0) {
    throw io_error(file, "the h query has " + std::to_string(lay.h.count) +
                             " points: the domain size (h + 1) must be a power of two");
  }
  if (domain < n_public + 1) {
    throw io_error(file, "the domain of " + std::to_string(domain) + " rows cannot hold the " +
                             std::to_string(n_public + 1) + " input rows");
  }

  std::vector<uint32_t> a_wires, b_wires;
  const bool full = lay.a.count == n_vars && lay.b_g1.count == n_vars && lay.b_g2.count == n_vars;
  if (cs) {
    if (cs->n_public != n_public || cs->n_vars != n_vars) {
      throw io_error(file, "the key is for " + std::to_string(n_vars) + " wires with " + std::to_string(n_public) +
                               " public inputs, the circuit has " + std::to_string(cs->n_vars) + " wires with " +
                               std::to_string(cs->n_public));
    }
    const uint64_t rows = uint64_t(cs->n_constraints) + n_public + 1;
    if (rows > domain) {
      throw io_error(file, "the key's domain of " + std::to_string(domain) + " rows cannot hold the circuit's " +
                               std::to_string(rows) + " (constraints + public inputs + 1)");
    }
    std::vector<uint8_t> da(n_vars, 0), db(n_vars, 0);
    std::fill(da.begin(), da.begin() + std::ptrdiff_t(n_public + 1), uint8_t(1));
    mark_columns(&f, cs->a, uint32_t(n_vars), "A", da);
    mark_columns(&f, cs->b, uint32_t(n_vars), "B", db);
    a_wires = dense_wires(da);
    b_wires = dense_wires(db);
    auto check = [&](const char* q, uint32_t have, size_t want, const char* m) {
      if (have != want) {
        throw io_error(file, std::string("has ") + std::to_string(have) + " " + q + " points but the circuit uses " +
                                 std::to_string(want) + " wires in " + m);
      }
    };
    check("A", lay.a.count, a_wires.size(), "A");
    check("B_g1", lay.b_g1.count, b_wires.size(), "B");
    check("B_g2", lay.b_g2.count, b_wires.size(), "B");
  } else if (!full) {
    throw io_error(file, "the A and B queries omit their points at infinity (bellman drops them): " +
                             std::to_string(lay.a.count) + " A, " + std::to_string(lay.b_g1.count) + " B_g1 and " +
                             std::to_string(lay.b_g2.count) + " B_g2 points for " + std::to_string(n_vars) +
                             " wires; which wire each belongs to depends on the circuit: read the key together "
                             "with its circuit (read_params(file, r1cs); CLI: --circuit)");
  }

  proving_key_t pk;
  pk.convention = root_convention_t::bellman;
  pk.n_vars = uint32_t(n_vars);
  pk.n_public = uint32_t(n_public);
  pk.domain_size = domain;

  // Verifying key.
  const decode_check c = opt.check;
  pk.alpha_g1 = decode_vk_point<g1_params>(f, "vk.alpha_g1", 0, c);
  pk.beta_g1 = decode_vk_point<g1_params>(f, "vk.beta_g1", 96, c);
  pk.beta_g2 = decode_vk_point<g2_params>(f, "vk.beta_g2", 192, c);
  pk.vk.gamma_g2 = decode_vk_point<g2_params>(f, "vk.gamma_g2", 384, c);
  pk.delta_g1 = decode_vk_point<g1_params>(f, "vk.delta_g1", 576, c);
  pk.delta_g2 = decode_vk_point<g2_params>(f, "vk.delta_g2", 672, c);
  pk.vk.alpha_g1 = pk.alpha_g1;
  pk.vk.beta_g2 = pk.beta_g2;
  pk.vk.delta_g2 = pk.delta_g2;

  // Queries: allocated at full length (value-initialised: all O), then the
  // file's points are decoded in place, on their wires.
  pk.vk.ic.resize(lay.ic.count);
  pk.h.resize(lay.h.count);
  pk.l.resize(lay.l.count);
  pk.a.resize(n_vars);
  pk.b_g1.resize(n_vars);
  pk.b_g2.resize(n_vars);
  const auto* am = cs ? &a_wires : nullptr;
  const auto* bm = cs ? &b_wires : nullptr;
  if (cs) {  // points only on the wires the maps name: O everywhere else
    parallel_fill(std::span<g1_affine_t>(pk.a), g1_affine_t::infinity(), opt.threads);
    parallel_fill(std::span<g1_affine_t>(pk.b_g1), g1_affine_t::infinity(), opt.threads);
    parallel_fill(std::span<g2_affine_t>(pk.b_g2), g2_affine_t::infinity(), opt.threads);
  }
  decode_query(f, "ic", lay.ic, pk.vk.ic, nullptr, infinity_rule::forbidden, opt);
  decode_query(f, "h", lay.h, pk.h, nullptr, infinity_rule::forbidden, opt);
  decode_query(f, "l", lay.l, pk.l, nullptr, infinity_rule::allowed, opt);
  decode_query(f, "a", lay.a, pk.a, am, infinity_rule::forbidden, opt);
  decode_query(f, "b_g1", lay.b_g1, pk.b_g1, bm, infinity_rule::forbidden, opt);
  decode_query(f, "b_g2", lay.b_g2, pk.b_g2, bm, infinity_rule::forbidden, opt);
  return pk;
}

}  // namespace

// ---- public API -------------------------------------------------------------------

params_layout_t scan_params(const std::filesystem::path& file) { return scan(mapped_file_t(file)); }

std::vector<uint8_t> params_density_a(const r1cs_t& cs) {
  std::vector<uint8_t> d(cs.n_vars, 0);
  std::fill(d.begin(), d.begin() + std::min<std::ptrdiff_t>(cs.n_vars, std::ptrdiff_t(cs.n_public) + 1), uint8_t(1));
  mark_columns(nullptr, cs.a, cs.n_vars, "A", d);
  return d;
}

std::vector<uint8_t> params_density_b(const r1cs_t& cs) {
  std::vector<uint8_t> d(cs.n_vars, 0);
  mark_columns(nullptr, cs.b, cs.n_vars, "B", d);
  return d;
}

proving_key_t read_params(const std::filesystem::path& file) { return read(file, nullptr, {}); }
proving_key_t read_params(const std::filesystem::path& file, const params_read_options_t& options) {
  return read(file, nullptr, options);
}
proving_key_t read_params(const std::filesystem::path& file, const r1cs_t& circuit) { return read(file, &circuit, {}); }
proving_key_t read_params(const std::filesystem::path& file, const r1cs_t& circuit,
                          const params_read_options_t& options) {
  return read(file, &circuit, options);
}

// The verifying key alone: the first 864 bytes and ic, nothing else decoded
// (a verifier should not read a 47 GiB proving key).
verifying_key_t read_params_vk(const std::filesystem::path& file) {
  const mapped_file_t f(file);
  const params_layout_t lay = scan(f);
  if (lay.ic.count == 0) throw io_error(file, "the verifying key has no ic points (it needs n_public + 1)");
  const decode_check c = decode_check::full;
  verifying_key_t vk;
  vk.alpha_g1 = decode_vk_point<g1_params>(f, "vk.alpha_g1", 0, c);
  vk.beta_g2 = decode_vk_point<g2_params>(f, "vk.beta_g2", 192, c);
  vk.gamma_g2 = decode_vk_point<g2_params>(f, "vk.gamma_g2", 384, c);
  vk.delta_g2 = decode_vk_point<g2_params>(f, "vk.delta_g2", 672, c);
  vk.ic.resize(lay.ic.count);
  decode_query(f, "ic", lay.ic, vk.ic, nullptr, infinity_rule::forbidden, params_read_options_t{});
  return vk;
}

}  // namespace starzk
