// Malformed inputs, each made in the test from a good fixture by byte
// surgery: every one must raise io_error whose message names the file and
// the problem, and none may crash or allocate by a lying count. Covers the
// container (truncation at many offsets, magic, version, missing, duplicate
// and lying sections, trailing bytes), the primes (bn128's), indices and
// values out of range, points off the curve, outside the subgroup, at
// infinity where not allowed, coordinates >= q, witness counts, and the
// JSON formats.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/proof_json.hpp"
#include "io/r1cs.hpp"
#include "io/vkey_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

using bytes_t = std::vector<uint8_t>;
using mutator_t = std::function<void(bytes_t&)>;

class malformed_test : public ::testing::Test {
 protected:
  // Writes a mutated copy of fixtures/multiplier/FILE as NAME.
  fs::path mutate(const std::string& file, const std::string& name, const mutator_t& fn) {
    bytes_t b = read_bytes(fixture("multiplier", file));
    fn(b);
    const fs::path p = tmp / name;
    write_bytes(p, b);
    return p;
  }
  scratch_t tmp;
};

// BLS12-381 r and bn128 r, little-endian bytes.
bytes_t prime_bytes(const std::array<uint64_t, 4>& l) {
  bytes_t b(32);
  for (size_t i = 0; i < 32; ++i) b[i] = uint8_t(l[i / 8] >> (8 * (i % 8)));
  return b;
}
const bytes_t bls_r = prime_bytes(fr_t::modulus);
// 21888242871839275222246405745257275088548364400416034343698204186575808495617
const bytes_t bn128_r =
    prime_bytes({0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull, 0x30644e72e131a029ull});

// A point of E(Fp) outside the order-r subgroup: the first x = 1, 2, ...
// with x^3 + 4 a square whose point fails the subgroup test.
g1_affine_t non_subgroup_g1() {
  for (uint64_t x = 1;; ++x) {
    g1_affine_t p{fp_t::from_u64(x), fp_t::zero()};
    if (!(p.x.sqr() * p.x + fp_t::from_u64(4)).sqrt(p.y)) continue;
    EXPECT_TRUE(p.is_on_curve());
    if (!p.is_in_subgroup()) return p;
  }
}

void put_g1(bytes_t& b, size_t at, const g1_affine_t& p) {
  p.x.to_mont_bytes_le(&b[at]);
  p.y.to_mont_bytes_le(&b[at + 48]);
}

// ---- container, all three formats ------------------------------------------

TEST_F(malformed_test, truncated_at_many_offsets) {
  for (const char* file : {"circuit.r1cs", "witness.wtns", "circuit.zkey"}) {
    const bytes_t good = read_bytes(fixture("multiplier", file));
    std::vector<size_t> cuts = {0, 1, 3, 4, 8, 11, 12, 13, 20, 23, 24, 40, 100};
    for (const auto& s : sections_of(good)) {
      for (size_t c : {s.header, s.header + 5, s.payload, s.payload + 1, s.payload + s.size - 1}) cuts.push_back(c);
    }
    for (size_t k = 1; k < 16; ++k) cuts.push_back(good.size() * k / 16);
    cuts.push_back(good.size() - 1);
    for (size_t cut : cuts) {
      if (cut >= good.size()) continue;
      const fs::path p = tmp / ("cut-" + std::to_string(cut) + "-" + file);
      write_bytes(p, bytes_t(good.begin(), good.begin() + cut));
      const std::string ext = fs::path(file).extension();
      auto read = [&] {
        if (ext == ".r1cs")
          read_r1cs(p);
        else if (ext == ".wtns")
          read_wtns(p);
        else
          read_zkey(p);
      };
      SCOPED_TRACE(std::string(file) + " cut at " + std::to_string(cut));
      expect_io_error(read, p, "");
    }
  }
}

TEST_F(malformed_test, wrong_magic_and_version) {
  auto p = mutate("circuit.r1cs", "magic.r1cs", [](bytes_t& b) { b[0] = 'z'; });
  expect_io_error([&] { read_r1cs(p); }, p, "wrong magic: expected 'r1cs', found 'z1cs'");
  p = mutate("circuit.zkey", "is-r1cs.zkey", [](bytes_t& b) { std::copy_n("r1cs", 4, b.begin()); });
  expect_io_error([&] { read_zkey(p); }, p, "wrong magic");
  p = mutate("circuit.r1cs", "version.r1cs", [](bytes_t& b) { put_u32(b, 4, 2); });
  expect_io_error([&] { read_r1cs(p); }, p, "unsupported version 2");
  p = mutate("witness.wtns", "version.wtns", [](bytes_t& b) { put_u32(b, 4, 3); });
  expect_io_error([&] { read_wtns(p); }, p, "unsupported version 3");
}

TEST_F(malformed_test, sections_missing_duplicated_trailing) {
  auto p = mutate("circuit.r1cs", "missing.r1cs", [](bytes_t& b) { put_u32(b, section_of(b, 2).header, 9); });
  expect_io_error([&] { read_r1cs(p); }, p, "section 2 (constraints) is missing");
  p = mutate("circuit.zkey", "missing.zkey", [](bytes_t& b) { put_u32(b, section_of(b, 9).header, 11); });
  expect_io_error([&] { read_zkey(p); }, p, "section 9 (H query) is missing");
  p = mutate("circuit.r1cs", "dup.r1cs", [](bytes_t& b) { put_u32(b, section_of(b, 3).header, 1); });
  expect_io_error([&] { read_r1cs(p); }, p, "appears more than once");
  p = mutate("circuit.r1cs", "trailing.r1cs", [](bytes_t& b) { b.push_back(0); });
  expect_io_error([&] { read_r1cs(p); }, p, "trailing bytes after the last section");
  p = mutate("circuit.r1cs", "custom.r1cs", [](bytes_t& b) { put_u32(b, section_of(b, 3).header, 4); });
  expect_io_error([&] { read_r1cs(p); }, p, "custom gates");
  p = mutate("circuit.zkey", "section-too-long.zkey",
             [](bytes_t& b) { put_u64(b, section_of(b, 10).header + 4, section_of(b, 10).size + 1); });
  expect_io_error([&] { read_zkey(p); }, p, "section 10 claims 637 bytes but only 636 remain");
  p = mutate("circuit.r1cs", "many-sections.r1cs", [](bytes_t& b) { put_u32(b, 8, 0xFFFFFFFF); });
  expect_io_error([&] { read_r1cs(p); }, p, "length lies");
}

// ---- .r1cs -------------------------------------------------------------------

TEST_F(malformed_test, r1cs_content) {
  // Header layout: u32 n8, r (32), nWires, nOutputs, nPubInputs, nPrvInputs, u64 nLabels, nConstraints.
  auto hdr = [](const bytes_t& b) { return section_of(b, 1).payload; };
  auto p = mutate("circuit.r1cs", "bn128.r1cs",
                  [&](bytes_t& b) { std::copy(bn128_r.begin(), bn128_r.end(), b.begin() + hdr(b) + 4); });
  expect_io_error([&] { read_r1cs(p); }, p, "wrong curve: prime is bn128's, expected bls12-381");
  p = mutate("circuit.r1cs", "other-prime.r1cs", [&](bytes_t& b) { b[hdr(b) + 4] ^= 2; });
  expect_io_error([&] { read_r1cs(p); }, p, "wrong curve");
  p = mutate("circuit.r1cs", "outputs.r1cs", [&](bytes_t& b) { put_u32(b, hdr(b) + 40, get_u32(b, hdr(b) + 36)); });
  expect_io_error([&] { read_r1cs(p); }, p, "counts inconsistent");
  p = mutate("circuit.r1cs", "more-constraints.r1cs",
             [&](bytes_t& b) { put_u32(b, hdr(b) + 60, get_u32(b, hdr(b) + 60) + 1); });
  expect_io_error([&] { read_r1cs(p); }, p, "section 2 (constraints): truncated");
  p = mutate("circuit.r1cs", "fewer-constraints.r1cs",
             [&](bytes_t& b) { put_u32(b, hdr(b) + 60, get_u32(b, hdr(b) + 60) - 1); });
  expect_io_error([&] { read_r1cs(p); }, p, "length lies");
  p = mutate("circuit.r1cs", "huge-constraints.r1cs", [&](bytes_t& b) { put_u32(b, hdr(b) + 60, 0xFFFFFFFF); });
  expect_io_error([&] { read_r1cs(p); }, p, "length lies: 4294967295 constraints");
  // Constraint 0: u32 nA, then (u32 wire, 32-byte coefficient)...
  p = mutate("circuit.r1cs", "wire.r1cs", [&](bytes_t& b) { put_u32(b, section_of(b, 2).payload + 4, 68); });
  expect_io_error([&] { read_r1cs(p); }, p, "constraint 0, A term 0: wire index 68 out of range (nWires = 68)");
  p = mutate("circuit.r1cs", "coef.r1cs",
             [&](bytes_t& b) { std::copy(bls_r.begin(), bls_r.end(), b.begin() + section_of(b, 2).payload + 8); });
  expect_io_error([&] { read_r1cs(p); }, p, "constraint 0, A term 0: coefficient is not below r");
  p = mutate("circuit.r1cs", "terms.r1cs", [&](bytes_t& b) { put_u32(b, section_of(b, 2).payload, 0x7FFFFFFF); });
  expect_io_error([&] { read_r1cs(p); }, p, "length lies");
  p = mutate("circuit.r1cs", "labels.r1cs", [&](bytes_t& b) { put_u32(b, hdr(b) + 36, 67); });
  expect_io_error([&] { read_r1cs(p); }, p, "");  // wire 67 is used: out of range
}

// ---- .wtns -------------------------------------------------------------------

TEST_F(malformed_test, wtns_content) {
  auto hdr = [](const bytes_t& b) { return section_of(b, 1).payload; };
  auto p = mutate("witness.wtns", "bn128.wtns",
                  [&](bytes_t& b) { std::copy(bn128_r.begin(), bn128_r.end(), b.begin() + hdr(b) + 4); });
  expect_io_error([&] { read_wtns(p); }, p, "bn128");
  p = mutate("witness.wtns", "count.wtns", [&](bytes_t& b) { put_u32(b, hdr(b) + 36, get_u32(b, hdr(b) + 36) + 1); });
  expect_io_error([&] { read_wtns(p); }, p, "section 2 (witness values): length lies: header says 69 values");
  p = mutate("witness.wtns", "value.wtns",
             [&](bytes_t& b) { std::copy(bls_r.begin(), bls_r.end(), b.begin() + section_of(b, 2).payload + 64); });
  expect_io_error([&] { read_wtns(p); }, p, "value 2 is not below r");
  p = mutate("witness.wtns", "one.wtns", [&](bytes_t& b) { b[section_of(b, 2).payload] = 2; });
  expect_io_error([&] { read_wtns(p); }, p, "value 0 (the constant wire) is not 1");
  const fs::path good = fixture("multiplier", "witness.wtns");
  expect_io_error([&] { read_wtns(good, 69); }, good,
                  "witness of wrong count: 68 values, the key's circuit has 69 wires");
  const fs::path none = tmp / "absent.wtns";
  expect_io_error([&] { read_wtns(none); }, none, "cannot open");
  // Into caller-owned memory: the same values, the same checks.
  std::vector<fr_t> into(68);
  read_wtns_into(good, into);
  EXPECT_EQ(into, read_wtns(good));
  std::vector<fr_t> short_buf(67);
  expect_io_error([&] { read_wtns_into(good, short_buf); }, good,
                  "witness of wrong count: 68 values, the key's circuit has 67 wires");
  expect_io_error([&] { read_wtns_into(p, into); }, p, "value 0 (the constant wire) is not 1");
}

// ---- .zkey -------------------------------------------------------------------

// Section 2 layout: u32 48, q (48), u32 32, r (32), nVars @88, nPublic @92,
// domainSize @96, alpha_1 @100, beta_1 @196, beta_2 @292, gamma_2 @484,
// delta_1 @676, delta_2 @772.
TEST_F(malformed_test, zkey_header) {
  auto hdr = [](const bytes_t& b) { return section_of(b, 2).payload; };
  auto p = mutate("circuit.zkey", "plonk.zkey", [&](bytes_t& b) { put_u32(b, section_of(b, 1).payload, 2); });
  expect_io_error([&] { read_zkey(p); }, p, "not a Groth16 key: protocol 2 (plonk)");
  p = mutate("circuit.zkey", "q.zkey", [&](bytes_t& b) { b[hdr(b) + 10] ^= 1; });
  expect_io_error([&] { read_zkey(p); }, p, "wrong curve: base field prime q");
  p = mutate("circuit.zkey", "bn128.zkey",
             [&](bytes_t& b) { std::copy(bn128_r.begin(), bn128_r.end(), b.begin() + hdr(b) + 56); });
  expect_io_error([&] { read_zkey(p); }, p, "wrong curve: prime is bn128's");
  p = mutate("circuit.zkey", "npublic.zkey", [&](bytes_t& b) { put_u32(b, hdr(b) + 92, 68); });
  expect_io_error([&] { read_zkey(p); }, p, "counts inconsistent");
  p = mutate("circuit.zkey", "domain.zkey", [&](bytes_t& b) { put_u32(b, hdr(b) + 96, 100); });
  expect_io_error([&] { read_zkey(p); }, p, "domainSize 100 is not a power of two");
  p = mutate("circuit.zkey", "alpha-inf.zkey", [&](bytes_t& b) { std::fill_n(b.begin() + hdr(b) + 100, 96, 0); });
  expect_io_error([&] { read_zkey(p); }, p, "alpha_1 is the point at infinity, not allowed here");
  p = mutate("circuit.zkey", "alpha-off.zkey", [&](bytes_t& b) { b[hdr(b) + 148] ^= 1; });
  expect_io_error([&] { read_zkey(p); }, p, "alpha_1 is not on the curve");
  p = mutate("circuit.zkey", "gamma-off.zkey", [&](bytes_t& b) { b[hdr(b) + 484 + 100] ^= 1; });
  expect_io_error([&] { read_zkey(p); }, p, "gamma_2 is not on the curve");
  p = mutate("circuit.zkey", "delta-sub.zkey", [&](bytes_t& b) { put_g1(b, hdr(b) + 676, non_subgroup_g1()); });
  expect_io_error([&] { read_zkey(p); }, p, "delta_1 is not in the prime-order subgroup");
}

TEST_F(malformed_test, zkey_coefficients) {
  // Section 4: u32 count, then 44-byte entries (matrix, row, wire, value).
  auto e0 = [](const bytes_t& b) { return section_of(b, 4).payload + 4; };
  auto p = mutate("circuit.zkey", "matrix.zkey", [&](bytes_t& b) { put_u32(b, e0(b), 2); });
  expect_io_error([&] { read_zkey(p); }, p, "coefficient 0: matrix id 2 is neither 0 (A) nor 1 (B)");
  p = mutate("circuit.zkey", "row.zkey", [&](bytes_t& b) { put_u32(b, e0(b) + 4, 128); });
  expect_io_error([&] { read_zkey(p); }, p, "coefficient 0: row 128 out of range (domainSize = 128)");
  p = mutate("circuit.zkey", "wire.zkey", [&](bytes_t& b) { put_u32(b, e0(b) + 8, 1000); });
  expect_io_error([&] { read_zkey(p); }, p, "coefficient 0: wire index 1000 out of range (nVars = 68)");
  p = mutate("circuit.zkey", "value.zkey",
             [&](bytes_t& b) { std::copy(bls_r.begin(), bls_r.end(), b.begin() + e0(b) + 12); });
  expect_io_error([&] { read_zkey(p); }, p, "coefficient 0: value is not below r");
  p = mutate("circuit.zkey", "count.zkey", [&](bytes_t& b) { put_u32(b, e0(b) - 4, get_u32(b, e0(b) - 4) + 1); });
  expect_io_error([&] { read_zkey(p); }, p, "section 4 (coefficients): length lies");
}

TEST_F(malformed_test, zkey_queries) {
  auto at = [](const bytes_t& b, uint32_t id, size_t i, size_t size) { return section_of(b, id).payload + i * size; };
  auto p = mutate("circuit.zkey", "a-sub.zkey", [&](bytes_t& b) { put_g1(b, at(b, 5, 3, 96), non_subgroup_g1()); });
  expect_io_error([&] { read_zkey(p); }, p, "section 5 (A query): point 3 is not in the prime-order subgroup");
  p = mutate("circuit.zkey", "b2-off.zkey", [&](bytes_t& b) { b[at(b, 7, 1, 192) + 150] ^= 4; });
  expect_io_error([&] { read_zkey(p); }, p, "section 7 (B2 query): point 1 is not on the curve");
  p = mutate("circuit.zkey", "h-inf.zkey", [&](bytes_t& b) { std::fill_n(b.begin() + at(b, 9, 5, 96), 96, 0); });
  expect_io_error([&] { read_zkey(p); }, p, "section 9 (H query): point 5 is the point at infinity");
  p = mutate("circuit.zkey", "ic-inf.zkey", [&](bytes_t& b) { std::fill_n(b.begin() + at(b, 3, 1, 96), 96, 0); });
  expect_io_error([&] { read_zkey(p); }, p, "section 3 (IC): point 1 is the point at infinity");
  p = mutate("circuit.zkey", "c-q.zkey", [&](bytes_t& b) { std::fill_n(b.begin() + at(b, 8, 0, 96), 48, 0xFF); });
  expect_io_error([&] { read_zkey(p); }, p, "section 8 (C query): point 0: a coordinate is not below q");
  // Infinity is legitimate in A (a wire absent from A): zero a point and read.
  p = mutate("circuit.zkey", "a-inf.zkey", [&](bytes_t& b) { std::fill_n(b.begin() + at(b, 5, 3, 96), 96, 0); });
  EXPECT_TRUE(read_zkey(p).a[3].is_infinity());
  // A caller that vouches for the file (zkey_read_options_t::vouched: its
  // digest is that of a validated key) gets the large queries without the
  // curve and infinity checks, asked once per query, from A on; the
  // coordinates are still checked below q.
  int asked = 0;
  zkey_read_options_t trusting;
  trusting.check = decode_check::on_curve;
  trusting.vouched = [&] { return ++asked > 0; };
  p = mutate("circuit.zkey", "b2-off-vouched.zkey", [&](bytes_t& b) { b[at(b, 7, 1, 192) + 150] ^= 4; });
  EXPECT_NO_THROW((void)read_zkey(p, trusting));
  EXPECT_EQ(asked, 5);
  p = mutate("circuit.zkey", "h-inf-vouched.zkey",
             [&](bytes_t& b) { std::fill_n(b.begin() + at(b, 9, 5, 96), 96, 0); });
  EXPECT_NO_THROW((void)read_zkey(p, trusting));
  p = mutate("circuit.zkey", "c-q-vouched.zkey",
             [&](bytes_t& b) { std::fill_n(b.begin() + at(b, 8, 0, 96), 48, 0xFF); });
  expect_io_error([&] { read_zkey(p, trusting); }, p, "section 8 (C query): point 0: a coordinate is not below q");
  // Not vouched: the same off-curve point is refused.
  zkey_read_options_t doubting;
  doubting.check = decode_check::on_curve;
  doubting.vouched = [] { return false; };
  p = mutate("circuit.zkey", "b2-off-doubted.zkey", [&](bytes_t& b) { b[at(b, 7, 1, 192) + 150] ^= 4; });
  expect_io_error([&] { read_zkey(p, doubting); }, p, "section 7 (B2 query): point 1 is not on the curve");
}

// vk_only (what verify --zkey and vk --zkey read): the verifying key of a
// key whose queries or coefficients are bad is the good key's, nothing past
// IC being read; a bad IC point and a section whose length lies are still
// refused.
TEST_F(malformed_test, zkey_verifying_key_alone) {
  auto at = [](const bytes_t& b, uint32_t id, size_t i, size_t size) { return section_of(b, id).payload + i * size; };
  const zkey_read_options_t vk_only = zkey_read_options_t::verifying_key_only();
  const proving_key_t good = read_zkey(fixture("multiplier", "circuit.zkey"));
  const auto same_vk = [&](const proving_key_t& k) {
    EXPECT_EQ(k.vk.alpha_g1, good.vk.alpha_g1);
    EXPECT_EQ(k.vk.beta_g2, good.vk.beta_g2);
    EXPECT_EQ(k.vk.gamma_g2, good.vk.gamma_g2);
    EXPECT_EQ(k.vk.delta_g2, good.vk.delta_g2);
    EXPECT_EQ(k.vk.ic, good.vk.ic);
    EXPECT_EQ(k.beta_g1, good.beta_g1);
    EXPECT_EQ(k.delta_g1, good.delta_g1);
    EXPECT_TRUE(k.h.empty() && k.a.empty() && k.b_g2.empty());
  };
  auto p = mutate("circuit.zkey", "vk-h-sub.zkey", [&](bytes_t& b) { put_g1(b, at(b, 9, 2, 96), non_subgroup_g1()); });
  expect_io_error([&] { read_zkey(p); }, p, "section 9 (H query): point 2 is not in the prime-order subgroup");
  same_vk(read_zkey(p, vk_only));
  p = mutate("circuit.zkey", "vk-c-q.zkey", [&](bytes_t& b) { std::fill_n(b.begin() + at(b, 8, 0, 96), 48, 0xFF); });
  same_vk(read_zkey(p, vk_only));
  p = mutate("circuit.zkey", "vk-coeff.zkey", [&](bytes_t& b) { put_u32(b, section_of(b, 4).payload + 4, 2); });
  same_vk(read_zkey(p, vk_only));
  p = mutate("circuit.zkey", "vk-ic-sub.zkey", [&](bytes_t& b) { put_g1(b, at(b, 3, 1, 96), non_subgroup_g1()); });
  expect_io_error([&] { read_zkey(p, vk_only); }, p, "section 3 (IC): point 1 is not in the prime-order subgroup");
  // domainSize (header payload @96) doubled: the H query's length lies.
  p = mutate("circuit.zkey", "vk-domain.zkey", [&](bytes_t& b) {
    const size_t d = section_of(b, 2).payload + 96;
    put_u32(b, d, 2 * get_u32(b, d));
  });
  expect_io_error([&] { read_zkey(p, vk_only); }, p, "section 9 (H query): length lies: domainSize = 256");
}

// ---- JSON --------------------------------------------------------------------

TEST_F(malformed_test, json_files) {
  using nlohmann::json;
  const json proof = json::parse(read_text(fixture("multiplier", "proof.json")));
  const json vk = json::parse(read_text(fixture("multiplier", "verification_key.json")));
  auto write = [&](const std::string& name, const json& j) {
    write_text(tmp / name, j.dump());
    return tmp / name;
  };
  json j = vk;
  j["curve"] = "bn128";
  auto p = write("vk-bn128.json", j);
  expect_io_error([&] { read_vkey_json(p); }, p, "curve: wrong curve: \"bn128\" is bn128, expected bls12-381");
  j = vk;
  j["nPublic"] = 5;
  p = write("vk-npublic.json", j);
  expect_io_error([&] { read_vkey_json(p); }, p, "nPublic: 5 does not match IC");
  j = vk;
  j["IC"][0][1] = "7";
  p = write("vk-ic.json", j);
  expect_io_error([&] { read_vkey_json(p); }, p, "IC[0]: point is not on the curve");
  j = proof;
  j.erase("pi_b");
  p = write("proof-nob.json", j);
  expect_io_error([&] { read_proof_json(p); }, p, "pi_b: field is missing");
  j = proof;
  const g1_affine_t bad = non_subgroup_g1();
  j["pi_a"] = json::array({bad.x.to_decimal(), bad.y.to_decimal(), "1"});
  p = write("proof-sub.json", j);
  expect_io_error([&] { read_proof_json(p); }, p, "pi_a: point is not in the prime-order subgroup");
  j = proof;
  j["pi_c"][2] = "2";
  p = write("proof-z.json", j);
  expect_io_error([&] { read_proof_json(p); }, p, "pi_c: z coordinate must be 1");
  j = proof;
  j["pi_a"] = json::array({"0", "1", "0"});
  p = write("proof-inf.json", j);
  expect_io_error([&] { read_proof_json(p); }, p, "pi_a: point at infinity is not allowed");
  j = proof;
  j["pi_b"][0][0] = "x12";
  p = write("proof-junk.json", j);
  expect_io_error([&] { read_proof_json(p); }, p, "pi_b[0][0]: 'x12' is not a decimal number below q");
  p = tmp / "syntax.json";
  write_text(p, "{\"pi_a\": [");
  expect_io_error([&] { read_proof_json(p); }, p, "not valid JSON");
  p = write("public-r.json",
            json::array({"52435875175126190479447740508185965837690552500527637822603658699938581184513"}));
  expect_io_error([&] { read_public_json(p); }, p,
                  "[0]: '52435875175126190479447740508185965837690552500527637822603658699938581184513' is not a "
                  "decimal number below r");
  p = write("public-obj.json", json::object());
  expect_io_error([&] { read_public_json(p); }, p, "expected an array");
}

}  // namespace
}  // namespace starzk::test
