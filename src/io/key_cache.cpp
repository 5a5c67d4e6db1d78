// The resident key cache: writer, zero-copy view, validation (key_cache.hpp).
#include "io/key_cache.hpp"

#include <cstring>
#include <limits>
#include <mutex>

#include "ec/subgroup.hpp"
#include "io/binfile.hpp"
#include "io/io_error.hpp"
#include "msm/batch_membership.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

constexpr char magic[] = "szkc";
constexpr uint64_t meta_size = 920;
enum section_id : size_t {
  s_ic,
  s_h,
  s_l,
  s_a,
  s_b_g1,
  s_b_g2,
  s_za_ptr,
  s_za_col,
  s_za_val,
  s_zb_ptr,
  s_zb_col,
  s_zb_val,
  n_sections
};

std::vector<std::string> section_names() {
  return {"ic",
          "h",
          "l",
          "a",
          "b_g1",
          "b_g2",
          "zkey_a row_ptr",
          "zkey_a col",
          "zkey_a val",
          "zkey_b row_ptr",
          "zkey_b col",
          "zkey_b val"};
}

// Raw in-memory bytes of a point (what the file stores).
template <class T>
void put_raw(uint8_t* out, const T& v) {
  std::memcpy(out, &v, sizeof(T));
}
template <class T>
T get_raw(const uint8_t* in) {
  T v;
  std::memcpy(&v, in, sizeof(T));
  return v;
}

// Every 48-byte coordinate of a point below p (Montgomery limbs canonical).
template <class P>
bool canonical(const affine_t<P>& p) {
  const uint8_t* b = reinterpret_cast<const uint8_t*>(&p);
  fp_t tmp;
  for (size_t k = 0; k < sizeof(p) / 48; ++k) {
    if (!fp_t::from_mont_bytes_le(b + 48 * k, tmp)) return false;
  }
  return true;
}

// "" when p is fine: canonical, on the curve, in the subgroup when `subgroup`,
// O only when allowed.
template <class P>
const char* point_problem(const affine_t<P>& p, bool infinity_ok, bool subgroup) {
  if (!canonical(p)) return "has a coordinate that is not below p (not a Montgomery-form value)";
  if (p.is_infinity()) return infinity_ok ? nullptr : "is the point at infinity, not allowed here";
  if (!p.is_on_curve()) return "is not on the curve";
  if (subgroup && !p.is_in_subgroup()) return "is not in the prime-order subgroup";
  return nullptr;
}

// Every point of a section: the cheap checks in one parallel pass, then
// (with `subgroup`) the subgroup checks on the points before the first
// failure of that pass (a large section tested whole first,
// msm/batch_membership.hpp); the lowest bad index is reported.
template <class P>
void check_points(const page_container_t& c, size_t id, std::span<const affine_t<P>> v, bool infinity_ok, bool subgroup,
                  unsigned threads) {
  std::mutex mu;
  uint64_t bad = v.size();
  const char* why = nullptr;
  parallel_for(
      v.size(), threads,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          if (const char* w = point_problem(v[i], infinity_ok, false)) {
            std::lock_guard<std::mutex> lock(mu);
            if (i < bad) bad = i, why = w;
            return;
          }
        }
      },
      4096);
  if (subgroup) {
    if (const auto b = first_outside_subgroup_batched(v.first(bad), threads)) {
      bad = *b;
      why = "is not in the prime-order subgroup";
    }
  }
  if (why) c.fail("section " + std::to_string(id) + " (" + c.name(id) + ") point " + std::to_string(bad) + " " + why);
}

// A few points spread over the section: cheap evidence that the bytes are
// points in our layout (a file of another format or endianness fails).
template <class P>
void sample_points(const page_container_t& c, size_t id, std::span<const affine_t<P>> v) {
  constexpr size_t samples = 8;
  for (size_t k = 0; k < samples && k < v.size(); ++k) {
    const size_t i = v.size() <= samples ? k : k * (v.size() - 1) / (samples - 1);
    if (const char* w = point_problem(v[i], true, false)) {
      c.fail("section " + std::to_string(id) + " (" + c.name(id) + ") point " + std::to_string(i) + " " + w +
             " (sampled check: the file is corrupt or not a key cache of this layout)");
    }
  }
}

void expect_count(const page_container_t& c, size_t id, uint64_t want) {
  if (c.section(id).count != want) {
    c.fail("section " + std::to_string(id) + " (" + c.name(id) + ") has " + std::to_string(c.section(id).count) +
           " elements, the header's shape needs " + std::to_string(want));
  }
}

sparse_matrix_view_t matrix_view(const page_container_t& c, size_t first, uint64_t rows, uint64_t cols) {
  return {rows, cols, c.span<uint64_t>(first), c.span<uint32_t>(first + 1), c.span<fr_t>(first + 2), {}, {}};
}

}  // namespace

key_cache_view_t::key_cache_view_t(const std::filesystem::path& file, cache_check_t check, unsigned threads)
    : c_(file, magic, key_cache_version, meta_size, section_names()) {
  const uint8_t* m = c_.meta().data();
  const uint32_t conv = load_u32_le(m);
  if (conv > 1) c_.fail("unknown H convention " + std::to_string(conv) + " (0 = bellman, 1 = snarkjs)");
  convention = conv == 0 ? root_convention_t::bellman : root_convention_t::snarkjs;
  n_vars = load_u32_le(m + 4);
  n_public = load_u32_le(m + 8);
  domain_size = load_u64_le(m + 16);
  if (uint64_t(n_public) + 1 > n_vars) c_.fail("n_public + 1 exceeds n_vars");
  if (domain_size == 0 || (domain_size & (domain_size - 1)) != 0) c_.fail("domain_size is not a power of two");
  if (domain_size < uint64_t(n_public) + 1) c_.fail("the domain cannot hold the input rows");
  alpha_g1 = get_raw<g1_affine_t>(m + 56);
  beta_g1 = get_raw<g1_affine_t>(m + 152);
  delta_g1 = get_raw<g1_affine_t>(m + 248);
  beta_g2 = get_raw<g2_affine_t>(m + 344);
  delta_g2 = get_raw<g2_affine_t>(m + 536);
  gamma_g2 = get_raw<g2_affine_t>(m + 728);
  {
    const char* names[] = {"alpha_g1", "beta_g1", "delta_g1"};
    const g1_affine_t* g1s[] = {&alpha_g1, &beta_g1, &delta_g1};
    for (int i = 0; i < 3; ++i) {
      if (const char* w = point_problem(*g1s[i], false, true))
        c_.fail(std::string("header point ") + names[i] + " " + w);
    }
    const char* names2[] = {"beta_g2", "delta_g2", "gamma_g2"};
    const g2_affine_t* g2s[] = {&beta_g2, &delta_g2, &gamma_g2};
    for (int i = 0; i < 3; ++i) {
      if (const char* w = point_problem(*g2s[i], false, true))
        c_.fail(std::string("header point ") + names2[i] + " " + w);
    }
  }

  const bool bellman = convention == root_convention_t::bellman;
  expect_count(c_, s_ic, uint64_t(n_public) + 1);
  expect_count(c_, s_h, bellman ? domain_size - 1 : domain_size);
  expect_count(c_, s_l, uint64_t(n_vars) - n_public - 1);
  expect_count(c_, s_a, n_vars);
  expect_count(c_, s_b_g1, n_vars);
  expect_count(c_, s_b_g2, n_vars);
  ic = c_.span<g1_affine_t>(s_ic);
  h = c_.span<g1_affine_t>(s_h);
  l = c_.span<g1_affine_t>(s_l);
  a = c_.span<g1_affine_t>(s_a);
  b_g1 = c_.span<g1_affine_t>(s_b_g1);
  b_g2 = c_.span<g2_affine_t>(s_b_g2);

  // The .zkey matrices: present (domain_size x n_vars) for snarkjs keys,
  // absent (no row_ptr at all) for bellman keys.
  zkey_a = matrix_view(c_, s_za_ptr, load_u64_le(m + 24), load_u64_le(m + 32));
  zkey_b = matrix_view(c_, s_zb_ptr, load_u64_le(m + 40), load_u64_le(m + 48));
  for (const auto* z : {&zkey_a, &zkey_b}) {
    const std::string name = z == &zkey_a ? "zkey_a" : "zkey_b";
    if (bellman) {
      if (z->n_rows || z->n_cols || !z->row_ptr.empty() || z->nnz() || !z->val.empty())
        c_.fail(name + " must be absent in a bellman-convention key");
      continue;
    }
    if (z->n_rows != domain_size || z->n_cols != n_vars) c_.fail(name + " must be a domain_size x n_vars matrix");
    if (std::string s = check_matrix_shape(*z, name); !s.empty()) c_.fail(s);
  }

  sample_points(c_, s_ic, ic);
  sample_points(c_, s_h, h);
  sample_points(c_, s_l, l);
  sample_points(c_, s_a, a);
  sample_points(c_, s_b_g1, b_g1);
  sample_points(c_, s_b_g2, b_g2);
  if (check != cache_check_t::header) c_.verify_checksums(threads);
  if (check == cache_check_t::on_curve || check == cache_check_t::full) validate(threads, check == cache_check_t::full);
}

void key_cache_view_t::validate(unsigned threads, bool subgroup) const {
  check_points(c_, s_ic, ic, false, subgroup, threads);
  check_points(c_, s_h, h, false, subgroup, threads);
  check_points(c_, s_l, l, true, subgroup, threads);
  check_points(c_, s_a, a, true, subgroup, threads);
  check_points(c_, s_b_g1, b_g1, true, subgroup, threads);
  check_points(c_, s_b_g2, b_g2, true, subgroup, threads);
  if (convention == root_convention_t::snarkjs) {
    for (const auto* z : {&zkey_a, &zkey_b}) {
      if (std::string s = check_matrix_indices(*z, z == &zkey_a ? "zkey_a" : "zkey_b", threads); !s.empty()) c_.fail(s);
    }
  }
}

verifying_key_t key_cache_view_t::vk() const {
  verifying_key_t v;
  v.alpha_g1 = alpha_g1;
  v.beta_g2 = beta_g2;
  v.gamma_g2 = gamma_g2;
  v.delta_g2 = delta_g2;
  v.ic.assign(ic.begin(), ic.end());
  return v;
}

proving_key_t key_cache_view_t::to_proving_key() const { return to_proving_key(nullptr); }

proving_key_t key_cache_view_t::to_proving_key(std::shared_ptr<const key_cache_view_t> keeper) const {
  // A query: borrowed from the mapping where a keeper holds it, else copied.
  const auto query = [&](auto view) {
    using T = typename decltype(view)::value_type;
    if (keeper) return mappable_vector_t<T>::borrow(view, keeper);
    return mappable_vector_t<T>(uninit_vector_t<T>(view.begin(), view.end()));
  };
  proving_key_t k;
  k.convention = convention;
  k.n_vars = n_vars;
  k.n_public = n_public;
  k.domain_size = domain_size;
  k.alpha_g1 = alpha_g1;
  k.beta_g1 = beta_g1;
  k.delta_g1 = delta_g1;
  k.beta_g2 = beta_g2;
  k.delta_g2 = delta_g2;
  k.a = query(a);
  k.b_g1 = query(b_g1);
  k.b_g2 = query(b_g2);
  k.l = query(l);
  k.h = query(h);
  k.vk = vk();
  if (convention == root_convention_t::snarkjs) {
    k.zkey_a = zkey_a.to_matrix();
    k.zkey_b = zkey_b.to_matrix();
  }
  return k;
}

void write_key_cache(const std::filesystem::path& file, const proving_key_t& k, unsigned threads) {
  auto fail = [&](const std::string& m) { throw io_error(file, "cannot write a key cache: " + m); };
  const bool bellman = k.convention == root_convention_t::bellman;
  // The shape the reader will insist on.
  if (uint64_t(k.n_public) + 1 > k.n_vars) fail("n_public + 1 exceeds n_vars");
  if (k.domain_size == 0 || (k.domain_size & (k.domain_size - 1)) != 0) fail("domain_size is not a power of two");
  if (k.vk.ic.size() != uint64_t(k.n_public) + 1 || k.h.size() != (bellman ? k.domain_size - 1 : k.domain_size) ||
      k.l.size() != uint64_t(k.n_vars) - k.n_public - 1 || k.a.size() != k.n_vars || k.b_g1.size() != k.n_vars ||
      k.b_g2.size() != k.n_vars) {
    fail("the query lengths do not match n_vars, n_public and domain_size");
  }
  if (k.vk.alpha_g1 != k.alpha_g1 || k.vk.beta_g2 != k.beta_g2 || k.vk.delta_g2 != k.delta_g2) {
    fail("vk.alpha_g1 / beta_g2 / delta_g2 differ from the proving key's");
  }
  for (const auto* z : {&k.zkey_a, &k.zkey_b}) {
    if (bellman && (!z->row_ptr.empty() || z->nnz() || z->n_rows || z->n_cols))
      fail("a bellman key with .zkey matrices");
    if (!bellman) {
      if (z->n_rows != k.domain_size || z->n_cols != k.n_vars) fail("zkey matrices must be domain_size x n_vars");
      if (std::string s = check_matrix_shape(sparse_matrix_view_t::of(*z), "zkey matrix"); !s.empty()) fail(s);
    }
  }

  std::vector<uint8_t> meta(meta_size, 0);
  uint8_t* m = meta.data();
  store_u32_le(m, bellman ? 0 : 1);
  store_u32_le(m + 4, k.n_vars);
  store_u32_le(m + 8, k.n_public);
  store_u64_le(m + 16, k.domain_size);
  store_u64_le(m + 24, k.zkey_a.n_rows);
  store_u64_le(m + 32, k.zkey_a.n_cols);
  store_u64_le(m + 40, k.zkey_b.n_rows);
  store_u64_le(m + 48, k.zkey_b.n_cols);
  put_raw(m + 56, k.alpha_g1);
  put_raw(m + 152, k.beta_g1);
  put_raw(m + 248, k.delta_g1);
  put_raw(m + 344, k.beta_g2);
  put_raw(m + 536, k.delta_g2);
  put_raw(m + 728, k.vk.gamma_g2);

  // The .zkey matrices are stored plain (key_cache.hpp): coded ones (setup
  // from a coded circuit) are expanded for the file.
  std::vector<fr_t> za_scratch, zb_scratch;
  const std::span<const fr_t> za_val = plain_values(k.zkey_a, za_scratch, threads);
  const std::span<const fr_t> zb_val = plain_values(k.zkey_b, zb_scratch, threads);
  const page_section_data_t sections[n_sections] = {
      section_of<g1_affine_t>(k.vk.ic),       section_of<g1_affine_t>(k.h),       section_of<g1_affine_t>(k.l),
      section_of<g1_affine_t>(k.a),           section_of<g1_affine_t>(k.b_g1),    section_of<g2_affine_t>(k.b_g2),
      section_of<uint64_t>(k.zkey_a.row_ptr), section_of<uint32_t>(k.zkey_a.col), section_of<fr_t>(za_val),
      section_of<uint64_t>(k.zkey_b.row_ptr), section_of<uint32_t>(k.zkey_b.col), section_of<fr_t>(zb_val)};
  write_page_container(file, "szkc", key_cache_version, meta, sections, threads);
}

proving_key_t read_key_cache(const std::filesystem::path& file, cache_check_t check, unsigned threads,
                             bool map_points) {
  if (!map_points) return key_cache_view_t(file, check, threads).to_proving_key();
  auto view = std::make_shared<const key_cache_view_t>(file, check, threads);
  return view->to_proving_key(view);
}

void check_key_cache(const std::filesystem::path& file, unsigned threads) {
  key_cache_view_t(file, cache_check_t::full, threads);
}

}  // namespace starzk
