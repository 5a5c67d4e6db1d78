// bellman / Filecoin .params: round trips of development keys (fixture
// circuits and a hand-made circuit whose A and B queries contain points at
// infinity), the byte layout, densities, proofs made with a key read back,
// and malformed files (truncation at many offsets, lying counts, bad flags,
// points off the curve or outside the subgroup, infinity where bellman never
// writes it, mismatched circuits). Keys are made once per circuit and shared.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "ec/encoding.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "io/params.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

// A tiny circuit with O in its queries. Wires: 0 = 1, 1 public, 2 and 3
// aux, 4 aux and used nowhere.
//   row 0: w2 · w3 = w1      row 1: w3 · w0 = w3
// A uses 2, 3 (+ the inputs 0, 1); B uses 3 and 0; so b[1], b[2], b[4] and
// a[4] are O, and l[4 − 2] = O.
r1cs_t holey_circuit() {
  r1cs_t cs;
  cs.n_vars = 5;
  cs.n_public = 1;
  cs.n_constraints = 2;
  auto matrix = [](std::vector<std::vector<uint32_t>> rows) {
    sparse_matrix_t m = sparse_matrix_t::empty(rows.size(), 5);
    for (size_t i = 0; i < rows.size(); ++i) {
      for (uint32_t c : rows[i]) {
        m.col.push_back(c);
        m.val.push_back(fr_t::one());
      }
      m.row_ptr[i + 1] = m.col.size();
    }
    return m;
  };
  cs.a = matrix({{2}, {3}});
  cs.b = matrix({{3}, {0}});
  cs.c = matrix({{1}, {3}});
  return cs;
}
std::vector<fr_t> holey_witness() {
  return {fr_t::one(), fr_t::from_u64(6), fr_t::from_u64(2), fr_t::from_u64(3), fr_t::zero()};
}

struct bundle_t {
  r1cs_t cs;
  proving_key_t pk;
};

const bundle_t& bundle(const std::string& name) {
  static std::map<std::string, std::unique_ptr<bundle_t>> cache;
  auto& slot = cache[name];
  if (!slot) {
    slot = std::make_unique<bundle_t>();
    slot->cs = name == "holey" ? holey_circuit() : read_r1cs(fixture(name, "circuit.r1cs"));
    slot->pk = setup(slot->cs, root_convention_t::bellman);
  }
  return *slot;
}

bool has_infinity(const proving_key_t& k) {
  auto any = [](const auto& v) {
    for (const auto& p : v) {
      if (p.is_infinity()) return true;
    }
    return false;
  };
  return any(k.a) || any(k.b_g1) || any(k.b_g2);
}

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b[at]) << 24 | uint32_t(b[at + 1]) << 16 | uint32_t(b[at + 2]) << 8 | uint32_t(b[at + 3]);
}
void put_be32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (24 - 8 * i));
}

size_t count_of(const std::vector<uint8_t>& d) { return size_t(std::count(d.begin(), d.end(), uint8_t(1))); }

class params_roundtrip : public ::testing::TestWithParam<std::string> {
 protected:
  scratch_t tmp;
};

TEST_P(params_roundtrip, write_read_equal) {
  const bundle_t& b = bundle(GetParam());
  const fs::path file = tmp / "key.params";
  write_params(file, b.pk);
  EXPECT_EQ(read_params(file, b.cs), b.pk);
  EXPECT_EQ(read_params(file, b.cs, {.check = decode_check::on_curve, .threads = 1}), b.pk);
  if (has_infinity(b.pk)) {
    expect_io_error([&] { read_params(file); }, file, "read the key together with its circuit");
  } else {
    EXPECT_EQ(read_params(file), b.pk);
  }

  // Byte layout: vk at fixed offsets, big-endian counts, a/b without O.
  const auto bytes = read_bytes(file);
  uint8_t alpha[96];
  encode_g1_uncompressed(b.pk.alpha_g1, alpha);
  EXPECT_TRUE(std::equal(alpha, alpha + 96, bytes.begin()));
  uint8_t delta2[192];
  encode_g2_uncompressed(b.pk.delta_g2, delta2);
  EXPECT_TRUE(std::equal(delta2, delta2 + 192, bytes.begin() + 672));
  EXPECT_EQ(be32(bytes, 864), b.pk.n_public + 1);
  const size_t na = count_of(params_density_a(b.cs)), nb = count_of(params_density_b(b.cs));
  const size_t expected = 864 + 6 * 4 + 96 * (b.pk.vk.ic.size() + b.pk.h.size() + b.pk.l.size() + na + nb) + 192 * nb;
  EXPECT_EQ(bytes.size(), expected);
  const params_layout_t lay = scan_params(file);
  EXPECT_EQ(lay.a.count, na);
  EXPECT_EQ(lay.b_g2.count, nb);
  EXPECT_EQ(lay.h.count, b.pk.domain_size - 1);
  EXPECT_EQ(lay.b_g2.offset + 192 * uint64_t(nb), bytes.size());
}

class params_prove : public params_roundtrip {};

TEST_P(params_prove, proof_from_read_back_key_verifies) {
  const std::string name = GetParam();
  const bundle_t& b = bundle(name);
  const fs::path file = tmp / "key.params";
  write_params(file, b.pk);
  const proving_key_t pk = read_params(file, b.cs);
  const std::vector<fr_t> w = name == "holey" ? holey_witness() : read_wtns(fixture(name, "witness.wtns"), b.cs.n_vars);
  const proof_t proof = prove(pk, &b.cs, w);
  const std::vector<fr_t> x = public_inputs(pk, w);
  EXPECT_TRUE(verify(pk.vk, x, proof));
  // Must-fail: another statement.
  std::vector<fr_t> x2 = x;
  if (x2.empty())
    x2.push_back(fr_t::one());
  else
    x2[0] += fr_t::one();
  EXPECT_FALSE(verify(pk.vk, x2, proof));
}

INSTANTIATE_TEST_SUITE_P(circuits, params_roundtrip, ::testing::Values("multiplier", "bits", "mimc", "holey"));
// mimc has no witness.wtns fixture.
INSTANTIATE_TEST_SUITE_P(circuits, params_prove, ::testing::Values("multiplier", "bits", "holey"));

TEST(params_density, holey_circuit) {
  const r1cs_t cs = holey_circuit();
  EXPECT_EQ(params_density_a(cs), (std::vector<uint8_t>{1, 1, 1, 1, 0}));
  EXPECT_EQ(params_density_b(cs), (std::vector<uint8_t>{1, 0, 0, 1, 0}));
  const proving_key_t& pk = bundle("holey").pk;
  EXPECT_TRUE(pk.a[4].is_infinity());
  EXPECT_TRUE(pk.b_g1[2].is_infinity());
  EXPECT_FALSE(pk.b_g2[3].is_infinity());
}

// ---- malformed files ------------------------------------------------------------

class params_malformed : public ::testing::Test {
 protected:
  void SetUp() override {
    good = tmp / "good.params";
    write_params(good, bundle("multiplier").pk);
    bytes = read_bytes(good);
    lay = scan_params(good);
  }
  // Writes `b` as bad.params and expects the reader to refuse it with
  // `problem`. The multiplier key has O in its A and B queries, so the
  // one-argument reader refuses it too (for the missing circuit, unless the
  // layout is broken first): it must still name the file.
  void expect_bad(const std::vector<uint8_t>& b, const std::string& problem) {
    const fs::path bad = tmp / "bad.params";
    write_bytes(bad, b);
    expect_io_error([&] { read_params(bad); }, bad, "");
    expect_io_error([&] { read_params(bad, bundle("multiplier").cs); }, bad, problem);
  }
  // The wire of the k-th point of the file's A (or B) query.
  static uint32_t wire_of(const std::vector<uint8_t>& density, size_t k) {
    for (uint32_t j = 0; j < density.size(); ++j) {
      if (density[j] && k-- == 0) return j;
    }
    return ~0u;
  }
  scratch_t tmp;
  fs::path good;
  std::vector<uint8_t> bytes;
  params_layout_t lay;
};

TEST_F(params_malformed, truncated_at_many_offsets) {
  std::vector<size_t> cuts = {0, 1, 95, 96, 500, 863, 864, 866, 867, 868, 900};
  for (const auto* q : {&lay.ic, &lay.h, &lay.l, &lay.a, &lay.b_g1, &lay.b_g2}) {
    cuts.push_back(q->offset - 4);   // just before the count
    cuts.push_back(q->offset - 1);   // inside the count
    cuts.push_back(q->offset + 50);  // inside the first point
  }
  cuts.push_back(bytes.size() - 1);
  for (size_t cut : cuts) {
    SCOPED_TRACE(cut);
    ASSERT_LT(cut, bytes.size());
    expect_bad(std::vector<uint8_t>(bytes.begin(), bytes.begin() + std::ptrdiff_t(cut)), "truncated");
  }
}

TEST_F(params_malformed, counts) {
  auto b = bytes;
  put_be32(b, lay.h.offset - 4, 0xffffffffu);
  expect_bad(b, "lying count: the h query claims 4294967295 points");
  b = bytes;
  put_be32(b, 864, 0);  // no ic: the rest then reads as a lying h count or trailing bytes
  expect_bad(b, "");
  b = bytes;
  b.push_back(0);
  expect_bad(b, "1 trailing bytes after the b_g2 query");
  // h with one point fewer: domain 127 is not a power of two.
  b = bytes;
  put_be32(b, lay.h.offset - 4, lay.h.count - 1);
  b.erase(b.begin() + std::ptrdiff_t(lay.h.offset), b.begin() + std::ptrdiff_t(lay.h.offset + 96));
  expect_bad(b, "must be a power of two");
  // An empty ic query (a consistent file otherwise).
  b = bytes;
  put_be32(b, 864, 0);
  b.erase(b.begin() + 868, b.begin() + std::ptrdiff_t(868 + 96 * lay.ic.count));
  expect_bad(b, "no ic points");
}

TEST_F(params_malformed, flags_and_points) {
  auto b = bytes;
  b[0] |= 0x80;  // compression flag on an uncompressed vk.alpha_g1
  expect_bad(b, std::string("vk.alpha_g1: ") + describe(decode_status::wrong_compression_flag));
  b = bytes;
  b[lay.l.offset] |= 0x40;  // infinity flag with coordinates
  expect_bad(b, std::string("l point 0 at offset ") + std::to_string(lay.l.offset) + ": " +
                    describe(decode_status::bad_infinity_encoding));
  b = bytes;
  b[lay.h.offset + 96 * 3 + 95] ^= 1;  // y changed: off the curve
  expect_bad(b, std::string("h point 3") + " at offset " + std::to_string(lay.h.offset + 96 * 3) + ": " +
                    describe(decode_status::not_on_curve));
  b = bytes;
  b[lay.b_g2.offset + 192 + 1] = 0xff;  // x.c1 >= p
  b[lay.b_g2.offset + 192] |= 0x1f;
  const uint32_t w1 = wire_of(params_density_b(bundle("multiplier").cs), 1);
  expect_bad(b, "b_g2 point 1 (wire " + std::to_string(w1) + ") at offset " + std::to_string(lay.b_g2.offset + 192) +
                    ": " + describe(decode_status::non_canonical_coordinate));
}

TEST_F(params_malformed, infinity_where_bellman_never_writes_it) {
  uint8_t inf[96];
  encode_g1_uncompressed(g1_affine_t::infinity(), inf);
  EXPECT_EQ(inf[0], 0x40);
  const r1cs_t& cs = bundle("multiplier").cs;
  const std::string wa = " (wire " + std::to_string(wire_of(params_density_a(cs), 0)) + ")";
  const std::string wb = " (wire " + std::to_string(wire_of(params_density_b(cs), 0)) + ")";
  const std::pair<const params_query_t*, std::string> cases[] = {
      {&lay.ic, "ic point 0"}, {&lay.h, "h point 0"}, {&lay.a, "a point 0" + wa}, {&lay.b_g1, "b_g1 point 0" + wb}};
  for (const auto& [q, name] : cases) {
    auto b = bytes;
    std::copy(inf, inf + 96, b.begin() + std::ptrdiff_t(q->offset));
    expect_bad(b, name + " at offset " + std::to_string(q->offset) + ": is the point at infinity");
  }
  auto b = bytes;
  std::copy(inf, inf + 96, b.begin() + 96);
  expect_bad(b, "vk.beta_g1 is the point at infinity");
}

TEST_F(params_malformed, point_outside_the_subgroup) {
  // An x on the curve: try small x until x^3 + 4 is a square. Such a point
  // is almost surely not of order r (the cofactor is ~2^126).
  g1_affine_t p;
  for (uint8_t x = 1;; ++x) {
    uint8_t c[48] = {};
    c[0] = 0x80;
    c[47] = x;
    if (decode_g1_compressed(c, p, decode_check::on_curve) == decode_status::ok) break;
    ASSERT_LT(x, 200);
  }
  ASSERT_TRUE(p.is_on_curve());
  ASSERT_FALSE(p.is_in_subgroup());
  auto b = bytes;
  encode_g1_uncompressed(p, b.data() + lay.h.offset + 96);
  expect_bad(
      b, "h point 1 at offset " + std::to_string(lay.h.offset + 96) + ": " + describe(decode_status::not_in_subgroup));
  // decode_check::on_curve skips the subgroup test (for keys checked before).
  const fs::path bad = tmp / "bad.params";
  const proving_key_t k = read_params(bad, bundle("multiplier").cs, {.check = decode_check::on_curve});
  EXPECT_EQ(k.h[1], p);
}

TEST(params_circuit, mismatched_circuit) {
  scratch_t tmp;
  const fs::path file = tmp / "holey.params";
  write_params(file, bundle("holey").pk);
  // Another shape.
  expect_io_error([&] { read_params(file, bundle("multiplier").cs); }, file, "the key is for 5 wires");
  // Same shape, other densities: w4 now appears in A.
  r1cs_t cs = holey_circuit();
  cs.a.col.push_back(4);
  cs.a.val.push_back(fr_t::one());
  cs.a.row_ptr[2] = 3;
  expect_io_error([&] { read_params(file, cs); }, file, "has 4 A points but the circuit uses 5 wires in A");
  cs = holey_circuit();
  cs.b.col[0] = 2;  // B uses 2 and 0 instead of 3 and 0: counts match, so it reads (wrong wires, but
                    // nothing in the file can tell); B using three wires cannot.
  cs.b.col.push_back(4);
  cs.b.val.push_back(fr_t::one());
  cs.b.row_ptr[2] = 3;
  expect_io_error([&] { read_params(file, cs); }, file, "has 2 B_g1 points but the circuit uses 3 wires in B");
  // More constraints than the key's domain holds.
  cs = holey_circuit();
  cs.n_constraints = 3;  // 3 + 1 + 1 rows > 4
  expect_io_error([&] { read_params(file, cs); }, file, "cannot hold the circuit's 5");
}

TEST(params_write, refuses_bad_keys) {
  scratch_t tmp;
  const fs::path file = tmp / "k.params";
  proving_key_t k = bundle("multiplier").pk;
  k.convention = root_convention_t::snarkjs;
  expect_io_error([&] { write_params(file, k); }, file, "snarkjs H convention");
  k = bundle("multiplier").pk;
  k.l.pop_back();
  expect_io_error([&] { write_params(file, k); }, file, "l has");
  k = bundle("multiplier").pk;
  k.h[5] = g1_affine_t::infinity();
  expect_io_error([&] { write_params(file, k); }, file, "the h query contains the point at infinity");
  EXPECT_FALSE(fs::exists(file));  // nothing left behind
}

TEST(params_read, missing_file) {
  const fs::path file = "/nonexistent/dir/x.params";
  expect_io_error([&] { read_params(file); }, file, "cannot open");
}

}  // namespace
}  // namespace starzk::test
