// Round trips through our writers: read a fixture, write it, read it back
// and compare structures; for .zkey also compare bytes with the snarkjs
// original (sections 1-9 always, the whole file when the transcript is
// carried over). JSON writers are checked the same way, plus the [x, y]
// point form and random witnesses (seeded).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <random>

#include "io/mapped_file.hpp"
#include "io/proof_json.hpp"
#include "io/r1cs.hpp"
#include "io/vkey_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

class roundtrip_test : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path path(const std::string& f) const { return fixture(GetParam(), f); }
  scratch_t tmp;
};

TEST_P(roundtrip_test, r1cs) {
  const r1cs_t r = read_r1cs(path("circuit.r1cs"));
  write_r1cs(tmp / "out.r1cs", r);
  EXPECT_EQ(read_r1cs(tmp / "out.r1cs"), r);
  // The constraints section is the same bytes as circom's.
  const auto a = read_bytes(path("circuit.r1cs")), b = read_bytes(tmp / "out.r1cs");
  const auto sa = section_of(a, 2), sb = section_of(b, 2);
  ASSERT_EQ(sa.size, sb.size);
  EXPECT_TRUE(std::equal(a.begin() + sa.payload, a.begin() + sa.payload + sa.size, b.begin() + sb.payload));
}

TEST_P(roundtrip_test, wtns_is_byte_identical) {
  const auto w = read_wtns(path("witness.wtns"));
  write_wtns(tmp / "out.wtns", w);
  EXPECT_EQ(read_bytes(tmp / "out.wtns"), read_bytes(path("witness.wtns")));
  // Read ahead (a page-cache hint) changes nothing a read then sees; a file
  // that is not there gives no hint.
  EXPECT_TRUE(read_ahead_file(tmp / "out.wtns"));
  EXPECT_EQ(read_wtns(tmp / "out.wtns"), w);
  EXPECT_FALSE(read_ahead_file(tmp / "missing.wtns"));
}

TEST_P(roundtrip_test, zkey_sections_1_to_9_byte_identical) {
  const proving_key_t k = read_zkey(path("circuit.zkey"));
  write_zkey(tmp / "plain.zkey", k);
  const auto orig = read_bytes(path("circuit.zkey"));
  const auto ours = read_bytes(tmp / "plain.zkey");
  for (uint32_t id = 1; id <= 9; ++id) {
    const auto so = section_of(orig, id), sw = section_of(ours, id);
    ASSERT_EQ(so.size, sw.size) << "section " << id;
    EXPECT_TRUE(std::equal(orig.begin() + so.payload, orig.begin() + so.payload + so.size, ours.begin() + sw.payload))
        << "section " << id;
  }
  EXPECT_EQ(read_zkey(tmp / "plain.zkey"), k);
  EXPECT_EQ(read_zkey_transcript(tmp / "plain.zkey").size(), 68u);  // empty transcript

  // With the transcript carried over, the whole file is identical.
  write_zkey(tmp / "full.zkey", k, read_zkey_transcript(path("circuit.zkey")));
  EXPECT_EQ(read_bytes(tmp / "full.zkey"), orig);
}

TEST_P(roundtrip_test, vkey_json) {
  const verifying_key_t vk = read_vkey_json(path("verification_key.json"));
  write_vkey_json(tmp / "vk.json", vk);
  EXPECT_EQ(read_vkey_json(tmp / "vk.json"), vk);
  const auto j = nlohmann::json::parse(read_text(tmp / "vk.json"));
  const auto orig = nlohmann::json::parse(read_text(path("verification_key.json")));
  for (const char* key :
       {"protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC"}) {
    EXPECT_EQ(j[key], orig[key]) << key;
  }
  EXPECT_FALSE(j.contains("vk_alphabeta_12"));
  alphabeta_12_t ab;
  for (int i = 0; i < 12; ++i) ab[i] = std::to_string(i);
  write_vkey_json(tmp / "vk2.json", vk, ab);
  const auto j2 = nlohmann::json::parse(read_text(tmp / "vk2.json"));
  EXPECT_EQ(j2["vk_alphabeta_12"][1][2][1], "11");
  EXPECT_EQ(j2["vk_alphabeta_12"][0][1][0], "2");
}

TEST_P(roundtrip_test, proof_and_public_json) {
  const proof_t p = read_proof_json(path("proof.json"));
  write_proof_json(tmp / "proof.json", p);
  EXPECT_EQ(read_proof_json(tmp / "proof.json"), p);
  EXPECT_EQ(nlohmann::json::parse(read_text(tmp / "proof.json")), nlohmann::json::parse(read_text(path("proof.json"))));
  const auto pub = read_public_json(path("public.json"));
  write_public_json(tmp / "public.json", pub);
  EXPECT_EQ(read_public_json(tmp / "public.json"), pub);

  // snarkjs also accepts [x, y] points without z.
  auto j = nlohmann::json::parse(read_text(path("proof.json")));
  j["pi_a"].erase(2);
  j["pi_b"].erase(2);
  j.erase("curve");
  write_text(tmp / "short.json", j.dump());
  EXPECT_EQ(read_proof_json(tmp / "short.json"), p);
}

// map_points with a caller that vouches for the file: each point section
// aligned for its limbs is borrowed from the mapping, the others decoded,
// and the key is the one the decoder makes, also once the file is gone
// (the mapping lives with the key). Not vouched, or not asked: decoded.
TEST_P(roundtrip_test, zkey_points_borrowed_where_aligned) {
  const fs::path file = tmp / "k.zkey";
  fs::copy_file(path("circuit.zkey"), file);
  const std::vector<uint8_t> b = read_bytes(file);
  const auto borrowed = [](const proving_key_t& k) {
    return std::map<uint32_t, bool>{
        {5, k.a.borrowed()}, {6, k.b_g1.borrowed()}, {7, k.b_g2.borrowed()}, {8, k.l.borrowed()}, {9, k.h.borrowed()}};
  };
  zkey_read_options_t o;
  o.check = decode_check::on_curve;
  o.vouched = [] { return true; };
  o.map_points = true;
  const proving_key_t m = read_zkey(file, o);
  fs::remove(file);
  EXPECT_EQ(m, read_zkey(path("circuit.zkey")));
  for (const auto& [id, lent] : borrowed(m)) EXPECT_EQ(lent, section_of(b, id).payload % 8 == 0) << "section " << id;
  o.vouched = [] { return false; };
  for (const auto& [id, lent] : borrowed(read_zkey(path("circuit.zkey"), o))) EXPECT_FALSE(lent) << id;
  o.vouched = [] { return true; };
  o.map_points = false;
  for (const auto& [id, lent] : borrowed(read_zkey(path("circuit.zkey"), o))) EXPECT_FALSE(lent) << id;
}

INSTANTIATE_TEST_SUITE_P(fixtures, roundtrip_test, ::testing::ValuesIn(circuits()));

TEST(roundtrip, random_witness_and_edge_values) {
  scratch_t tmp;
  std::mt19937_64 rng(20240611);
  std::vector<fr_t> w = {fr_t::one(), fr_t::zero(), -fr_t::one(), fr_t::from_u64(2)};
  for (int i = 0; i < 100; ++i) w.push_back(fr_t::random(rng));
  write_wtns(tmp / "w.wtns", w);
  EXPECT_EQ(read_wtns(tmp / "w.wtns"), w);
  EXPECT_EQ(read_bytes(tmp / "w.wtns").size(), 12 + 12 + 40 + 12 + 32 * w.size());
}

// read_zkey's on_query: each query once, in the file's order, with its
// final contents and its final storage (a validator reads it during the
// rest of the read); an exception from the callback ends the read.
TEST(roundtrip, zkey_queries_are_handed_over_final) {
  const fs::path file = fixture("multiplier", "circuit.zkey");
  std::vector<key_query_t> order;
  std::vector<const void*> storage;
  std::vector<size_t> sizes;
  auto query_of = [](key_query_t q, const proving_key_t& k) -> std::pair<const void*, size_t> {
    switch (q) {
      case key_query_t::ic:
        return {k.vk.ic.data(), k.vk.ic.size()};
      case key_query_t::h:
        return {k.h.data(), k.h.size()};
      case key_query_t::l:
        return {k.l.data(), k.l.size()};
      case key_query_t::a:
        return {k.a.data(), k.a.size()};
      case key_query_t::b_g1:
        return {k.b_g1.data(), k.b_g1.size()};
      case key_query_t::b_g2:
        return {k.b_g2.data(), k.b_g2.size()};
    }
    return {nullptr, 0};
  };
  std::vector<g1_affine_t> h_seen;  // a copy of h as the callback saw it
  zkey_read_options_t o;
  o.on_query = [&](key_query_t q, const proving_key_t& k) {
    order.push_back(q);
    const auto [p, n] = query_of(q, k);
    storage.push_back(p);
    sizes.push_back(n);
    if (q == key_query_t::h) h_seen.assign(k.h.begin(), k.h.end());
  };
  const proving_key_t k = read_zkey(file, o);
  using Q = key_query_t;
  EXPECT_EQ(order, (std::vector<Q>{Q::ic, Q::a, Q::b_g1, Q::b_g2, Q::l, Q::h}));
  for (size_t i = 0; i < order.size(); ++i) {
    const auto [p, n] = query_of(order[i], k);
    EXPECT_EQ(storage[i], p) << i;
    EXPECT_EQ(sizes[i], n) << i;
    EXPECT_GT(n, 0u) << i;
  }
  EXPECT_TRUE(std::equal(h_seen.begin(), h_seen.end(), k.h.begin(), k.h.end()));
  EXPECT_EQ(k, read_zkey(file));

  o.on_query = [](key_query_t q, const proving_key_t&) {
    if (q == key_query_t::b_g1) throw std::runtime_error("stop here");
  };
  proving_key_t into;
  EXPECT_THROW(read_zkey(file, o, into), std::runtime_error);
  EXPECT_EQ(into.a, k.a);  // read before the callback stopped it
}

TEST(roundtrip, empty_r1cs) {
  scratch_t tmp;
  r1cs_t r;
  r.n_vars = 1;
  r.a = r.b = r.c = sparse_matrix_t::empty(0, 1);
  write_r1cs(tmp / "e.r1cs", r);
  EXPECT_EQ(read_r1cs(tmp / "e.r1cs"), r);
}

}  // namespace
}  // namespace starzk::test
