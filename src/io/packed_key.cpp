// The packed key: writer in place, validating view, unpacking through a
// point decoder (packed_key.hpp).
#include "io/packed_key.hpp"

#include <bit>
#include <cstring>
#include <limits>
#include <mutex>

#include "io/binfile.hpp"
#include "io/io_error.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

constexpr char magic[] = "szpk";
constexpr uint64_t meta_size = 456;
constexpr size_t n_sections = 8;
constexpr uint64_t g1_bytes = g1_compressed_size;  // 48
constexpr uint64_t g2_bytes = g2_compressed_size;  // 96

std::vector<std::string> section_names() { return {"ic", "h", "l", "a", "b_g1", "b_g2", "a_density", "b_density"}; }

size_t idx(packed_section_t s) { return static_cast<size_t>(s); }

uint64_t elem_size(packed_section_t s) {
  switch (s) {
    case packed_section_t::b_g2:
      return g2_bytes;
    case packed_section_t::a_density:
    case packed_section_t::b_density:
      return 8;
    default:
      return g1_bytes;
  }
}

std::vector<page_section_t> layout(const packed_key_shape_t& sh) {
  std::vector<page_section_t> t(n_sections);
  for (size_t i = 0; i < n_sections; ++i) {
    const auto s = static_cast<packed_section_t>(i);
    t[i] = {0, sh.count(s), elem_size(s), 0};
  }
  return t;
}

uint64_t popcount(std::span<const uint64_t> words, unsigned threads) {
  std::mutex mu;
  uint64_t total = 0;
  parallel_for(
      words.size(), threads,
      [&](size_t b, size_t e) {
        uint64_t c = 0;
        for (size_t i = b; i < e; ++i) c += uint64_t(std::popcount(words[i]));
        std::lock_guard<std::mutex> lock(mu);
        total += c;
      },
      size_t(1) << 16);
  return total;
}

decode_status decode_full(const uint8_t* in, g1_affine_t& p) { return decode_g1_compressed(in, p); }
decode_status decode_full(const uint8_t* in, g2_affine_t& p) { return decode_g2_compressed(in, p); }

}  // namespace

const char* packed_section_name(packed_section_t s) {
  static const char* names[] = {"ic", "h", "l", "a", "b_g1", "b_g2", "a_density", "b_density"};
  return names[idx(s)];
}

uint64_t packed_key_shape_t::count(packed_section_t s) const {
  switch (s) {
    case packed_section_t::ic:
      return uint64_t(n_public) + 1;
    case packed_section_t::h:
      return h_count();
    case packed_section_t::l:
      return n_aux();
    case packed_section_t::a:
      return n_a;
    case packed_section_t::b_g1:
    case packed_section_t::b_g2:
      return n_b;
    case packed_section_t::a_density:
    case packed_section_t::b_density:
      return density_words();
  }
  return 0;
}

uint64_t packed_key_shape_t::file_bytes() const {
  uint64_t end = 40 + meta_size + 32 * n_sections + 8;
  for (size_t i = 0; i < n_sections; ++i) {
    const auto s = static_cast<packed_section_t>(i);
    const uint64_t off = align_up(end, page_container_alignment);
    if (count(s)) end = off + count(s) * elem_size(s);
  }
  return end;
}

// ---- writer ---------------------------------------------------------------------

packed_key_writer_t::packed_key_writer_t(const std::filesystem::path& file, const packed_key_shape_t& shape)
    : shape_(shape), w_(file, magic, packed_key_version, meta_size, layout(shape)) {
  if (shape.n_vars < uint64_t(shape.n_public) + 1) throw io_error(file, "internal: fewer wires than public inputs");
  if (shape.n_a > shape.n_vars || shape.n_b > shape.n_vars)
    throw io_error(file, "internal: more dense points than wires");
  uint8_t* m = w_.meta().data();
  store_u32_le(m, shape.convention == root_convention_t::bellman ? 0 : 1);
  store_u32_le(m + 4, shape.n_vars);
  store_u32_le(m + 8, shape.n_public);
  store_u64_le(m + 16, shape.domain_size);
}

void packed_key_writer_t::put(packed_section_t s, uint64_t first, std::span<const g1_affine_t> pts) {
  const std::span<uint8_t> dst = w_.bytes(idx(s));
  if (elem_size(s) != g1_bytes || first > shape_.count(s) || pts.size() > shape_.count(s) - first)
    throw io_error(w_.path(), std::string("internal: G1 points outside section ") + packed_section_name(s));
  for (size_t i = 0; i < pts.size(); ++i) encode_g1_compressed(pts[i], dst.data() + (first + i) * g1_bytes);
}

void packed_key_writer_t::put(packed_section_t s, uint64_t first, std::span<const g2_affine_t> pts) {
  const std::span<uint8_t> dst = w_.bytes(idx(s));
  if (elem_size(s) != g2_bytes || first > shape_.count(s) || pts.size() > shape_.count(s) - first)
    throw io_error(w_.path(), std::string("internal: G2 points outside section ") + packed_section_name(s));
  for (size_t i = 0; i < pts.size(); ++i) encode_g2_compressed(pts[i], dst.data() + (first + i) * g2_bytes);
}

std::span<uint64_t> packed_key_writer_t::density(packed_section_t s) {
  if (s != packed_section_t::a_density && s != packed_section_t::b_density)
    throw io_error(w_.path(), "internal: not a density section");
  return w_.section<uint64_t>(idx(s));
}

void packed_key_writer_t::set_head(const key_head_t& h) {
  uint8_t* m = w_.meta().data();
  encode_g1_compressed(h.alpha_g1, m + 24);
  encode_g1_compressed(h.beta_g1, m + 72);
  encode_g1_compressed(h.delta_g1, m + 120);
  encode_g2_compressed(h.beta_g2, m + 168);
  encode_g2_compressed(h.delta_g2, m + 264);
  encode_g2_compressed(h.gamma_g2, m + 360);
}

void packed_key_writer_t::commit(unsigned threads) {
  if (popcount(density(packed_section_t::a_density), threads) != shape_.n_a ||
      popcount(density(packed_section_t::b_density), threads) != shape_.n_b)
    throw io_error(w_.path(), "internal: the density bitmaps do not match the point counts");
  w_.commit(threads);
}

void write_packed_key(const std::filesystem::path& file, const proving_key_t& k, unsigned threads) {
  packed_key_shape_t sh{k.convention, k.n_vars, k.n_public, k.domain_size, 0, 0};
  const uint64_t words = sh.density_words();
  std::vector<uint64_t> da(words, 0), db(words, 0);
  for (uint64_t j = 0; j < k.n_vars; ++j) {
    const bool in_a = !k.a[j].is_infinity(), in_b = !k.b_g1[j].is_infinity();
    if (in_b == k.b_g2[j].is_infinity())
      throw io_error(file, "wire " + std::to_string(j) + " has a B_g1 point but no B_g2 point, or the reverse");
    if (in_a) da[j / 64] |= uint64_t(1) << (j % 64), ++sh.n_a;
    if (in_b) db[j / 64] |= uint64_t(1) << (j % 64), ++sh.n_b;
  }
  packed_key_writer_t w(file, sh);
  std::copy(da.begin(), da.end(), w.density(packed_section_t::a_density).begin());
  std::copy(db.begin(), db.end(), w.density(packed_section_t::b_density).begin());
  w.set_head(key_head_t::of(k));
  auto dense = [&](packed_section_t s, auto& query, const std::vector<uint64_t>& d) {
    using T = typename std::decay_t<decltype(query)>::value_type;
    std::vector<T> pts;
    for (uint64_t j = 0; j < k.n_vars; ++j)
      if (d[j / 64] >> (j % 64) & 1) pts.push_back(query[j]);
    w.put(s, 0, std::span<const T>(pts));
  };
  parallel_tasks(6, threads, [&](size_t t) {
    switch (t) {
      case 0:
        w.put(packed_section_t::ic, 0, std::span<const g1_affine_t>(k.vk.ic));
        break;
      case 1:
        w.put(packed_section_t::h, 0, std::span<const g1_affine_t>(k.h));
        break;
      case 2:
        w.put(packed_section_t::l, 0, std::span<const g1_affine_t>(k.l));
        break;
      case 3:
        dense(packed_section_t::a, k.a, da);
        break;
      case 4:
        dense(packed_section_t::b_g1, k.b_g1, db);
        break;
      default:
        dense(packed_section_t::b_g2, k.b_g2, db);
        break;
    }
  });
  w.commit(threads);
}

// ---- view -----------------------------------------------------------------------

packed_key_view_t::packed_key_view_t(const std::filesystem::path& file)
    : c_(file, magic, packed_key_version, meta_size, section_names()) {
  const uint8_t* m = c_.meta().data();
  const uint32_t conv = load_u32_le(m);
  if (conv > 1) c_.fail("unknown H convention " + std::to_string(conv) + " (0 = bellman, 1 = snarkjs)");
  shape_.convention = conv == 0 ? root_convention_t::bellman : root_convention_t::snarkjs;
  shape_.n_vars = load_u32_le(m + 4);
  shape_.n_public = load_u32_le(m + 8);
  shape_.domain_size = load_u64_le(m + 16);
  if (uint64_t(shape_.n_public) + 1 > shape_.n_vars) c_.fail("n_public + 1 exceeds n_vars");
  if (shape_.domain_size < 2 || (shape_.domain_size & (shape_.domain_size - 1)) != 0)
    c_.fail("domain_size " + std::to_string(shape_.domain_size) + " is not a power of two of at least 2");
  if (shape_.domain_size > (uint64_t(1) << 31)) c_.fail("domain_size is above 2^31");
  shape_.n_a = c_.section(idx(packed_section_t::a)).count;
  shape_.n_b = c_.section(idx(packed_section_t::b_g1)).count;
  for (size_t i = 0; i < n_sections; ++i) {
    const auto s = static_cast<packed_section_t>(i);
    const page_section_t& t = c_.section(i);
    if (t.elem_size != elem_size(s))
      c_.fail(std::string("section ") + packed_section_name(s) + " has elements of " + std::to_string(t.elem_size) +
              " bytes, expected " + std::to_string(elem_size(s)));
    if (t.count != shape_.count(s))
      c_.fail(std::string("section ") + packed_section_name(s) + " has " + std::to_string(t.count) +
              " elements, the header's shape needs " + std::to_string(shape_.count(s)));
  }
  if (popcount(density(packed_section_t::a_density), 0) != shape_.n_a)
    c_.fail("the A density bitmap does not count the A points");
  if (popcount(density(packed_section_t::b_density), 0) != shape_.n_b)
    c_.fail("the B density bitmap does not count the B points");
  // Bits past n_vars would name wires that do not exist.
  const uint64_t tail = shape_.n_vars % 64;
  for (packed_section_t s : {packed_section_t::a_density, packed_section_t::b_density})
    if (tail && (density(s).back() >> tail) != 0)
      c_.fail(std::string(packed_section_name(s)) + " marks wires past n_vars");
  auto one = [&](const char* what, const uint8_t* in, auto& out) {
    const decode_status st = decode_full(in, out);
    if (st != decode_status::ok) c_.fail(std::string(what) + " " + describe(st));
    if (out.is_infinity()) c_.fail(std::string(what) + " is the point at infinity");
  };
  one("alpha_g1", m + 24, head_.alpha_g1);
  one("beta_g1", m + 72, head_.beta_g1);
  one("delta_g1", m + 120, head_.delta_g1);
  one("beta_g2", m + 168, head_.beta_g2);
  one("delta_g2", m + 264, head_.delta_g2);
  one("gamma_g2", m + 360, head_.gamma_g2);
}

std::span<const uint8_t> packed_key_view_t::points(packed_section_t s) const {
  if (s == packed_section_t::a_density || s == packed_section_t::b_density) c_.fail("internal: not a point section");
  return c_.bytes(idx(s));
}

std::span<const uint64_t> packed_key_view_t::density(packed_section_t s) const {
  if (s != packed_section_t::a_density && s != packed_section_t::b_density) c_.fail("internal: not a density section");
  return c_.span<uint64_t>(idx(s));
}

}  // namespace starzk
