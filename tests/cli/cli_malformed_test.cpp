// Malformed inputs through the real starzk binary. Each case copies the
// multiplier fixture (snarkjs key, circuit, witness, proof) into a fresh
// folder, breaks one file in one way, runs `starzk prove` or `starzk verify`,
// and checks: a non-zero exit, a short message that names the broken file
// (or the problem), and for prove that nothing was written (no output, no
// temporary). The good inputs are run first, so the harness itself is
// proven able to pass.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <random>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"
#include "ec/encoding.hpp"
#include "ec/subgroup.hpp"

namespace starzk::test {
namespace {

const fs::path fixture = fs::path(STARZK_TEST_DATA) / "fixtures" / "multiplier";
const char* const inputs[] = {"circuit.zkey",          "circuit.r1cs", "witness.wtns",
                              "verification_key.json", "proof.json",   "public.json"};

enum class command { prove, verify };

struct bad_case {
  const char* name;
  command cmd;
  const char* broken;  // the file the message must name ("" = any message)
  std::function<void(const fs::path& dir)> corrupt;
  const char* expect = "";  // a phrase the message must contain
};

std::vector<uint8_t> bn_prime_le(const char* hex_be, size_t n) {
  std::vector<uint8_t> out(n, 0);
  std::string h(hex_be);
  for (size_t i = 0; i < h.size() / 2 && i < n; ++i)
    out[i] = uint8_t(std::stoi(h.substr(h.size() - 2 * (i + 1), 2), nullptr, 16));
  return out;
}
const char* bn128_q = "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47";
const char* bn128_r = "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001";

// Apply f to the bytes of one file.
void edit(const fs::path& p, const std::function<void(std::vector<uint8_t>&)>& f) {
  auto b = read_all(p);
  f(b);
  write_all(p, b);
}
void truncate_to(const fs::path& p, size_t n) {
  edit(p, [n](auto& b) { b.resize(std::min(b.size(), n)); });
}
void overwrite(std::vector<uint8_t>& b, size_t at, const std::vector<uint8_t>& v) {
  std::copy(v.begin(), v.end(), b.begin() + long(at));
}
void write_text(const fs::path& p, const std::string& s) { write_all(p, std::vector<uint8_t>(s.begin(), s.end())); }

// A G1 point on the curve but outside the prime-order subgroup, in the
// snarkjs binary form.
std::vector<uint8_t> g1_outside_subgroup() {
  for (uint64_t x = 1;; ++x) {
    g1_affine_t p{fp_t::from_u64(x), fp_t::zero()};
    if (!(p.x * p.x * p.x + fp_t::from_u64(4)).sqrt(p.y)) continue;
    if (p.is_in_subgroup()) continue;
    std::vector<uint8_t> out(96);
    encode_g1_snarkjs(p, out.data());
    return out;
  }
}

std::vector<bad_case> cases() {
  std::vector<bad_case> c;
  auto zk = [](const fs::path& d) { return d / "circuit.zkey"; };
  auto wt = [](const fs::path& d) { return d / "witness.wtns"; };
  auto rc = [](const fs::path& d) { return d / "circuit.r1cs"; };
  auto set_u32 = [](std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
  };
  // --- the key ---
  c.push_back({"zkey_empty", command::prove, "circuit.zkey", [=](auto d) { truncate_to(zk(d), 0); }});
  c.push_back({"zkey_truncated_header", command::prove, "circuit.zkey", [=](auto d) { truncate_to(zk(d), 10); }});
  c.push_back({"zkey_truncated_half", command::prove, "circuit.zkey",
               [=](auto d) { truncate_to(zk(d), read_all(zk(d)).size() / 2); }});
  c.push_back({"zkey_truncated_last_byte", command::prove, "circuit.zkey",
               [=](auto d) { truncate_to(zk(d), read_all(zk(d)).size() - 1); }});
  c.push_back(
      {"zkey_wrong_magic", command::prove, "circuit.zkey", [=](auto d) { edit(zk(d), [](auto& b) { b[0] = 'x'; }); }});
  c.push_back({"zkey_is_a_witness", command::prove, "circuit.zkey",
               [=](auto d) { fs::copy_file(wt(d), zk(d), fs::copy_options::overwrite_existing); }});
  c.push_back({"zkey_wrong_version", command::prove, "circuit.zkey",
               [=](auto d) { edit(zk(d), [&](auto& b) { set_u32(b, 4, 7); }); }});
  c.push_back({"zkey_not_groth16", command::prove, "circuit.zkey",
               [=](auto d) { edit(zk(d), [&](auto& b) { set_u32(b, find_section(b, 1).offset, 2); }); }});
  c.push_back({"zkey_bn128_base_field", command::prove, "circuit.zkey", [=](auto d) {
                 edit(zk(d), [&](auto& b) { overwrite(b, find_section(b, 2).offset + 4, bn_prime_le(bn128_q, 48)); });
               }});
  c.push_back({"zkey_bn128_scalar_field", command::prove, "circuit.zkey", [=](auto d) {
                 edit(zk(d), [&](auto& b) { overwrite(b, find_section(b, 2).offset + 56, bn_prime_le(bn128_r, 32)); });
               }});
  c.push_back({"zkey_section_missing", command::prove, "circuit.zkey",
               [=](auto d) { edit(zk(d), [&](auto& b) { set_u32(b, find_section(b, 9).offset - 12, 99); }); }});
  c.push_back({"zkey_section_length_lies", command::prove, "circuit.zkey",
               [=](auto d) { edit(zk(d), [&](auto& b) { set_u32(b, find_section(b, 5).offset - 8, 0x7fffffff); }); }});
  c.push_back({"zkey_point_off_curve", command::prove, "circuit.zkey", [=](auto d) {
                 edit(zk(d), [&](auto& b) { b[find_section(b, 2).offset + 4 + 48 + 4 + 32 + 12 + 48] ^= 1; });
               }});
  c.push_back({"zkey_point_outside_subgroup", command::prove, "circuit.zkey", [=](auto d) {
                 edit(zk(d), [&](auto& b) {
                   overwrite(b, find_section(b, 2).offset + 4 + 48 + 4 + 32 + 12, g1_outside_subgroup());
                 });
               }});
  c.push_back({"zkey_coordinate_not_canonical", command::prove, "circuit.zkey", [=](auto d) {
                 edit(zk(d), [&](auto& b) {
                   const size_t at = find_section(b, 3).offset;  // IC[0].x
                   std::fill(b.begin() + long(at), b.begin() + long(at) + 48, uint8_t(0xff));
                 });
               }});
  // --- the witness ---
  c.push_back({"wtns_empty", command::prove, "witness.wtns", [=](auto d) { truncate_to(wt(d), 0); }});
  c.push_back({"wtns_truncated", command::prove, "witness.wtns",
               [=](auto d) { truncate_to(wt(d), read_all(wt(d)).size() - 7); }});
  c.push_back(
      {"wtns_wrong_magic", command::prove, "witness.wtns", [=](auto d) { edit(wt(d), [](auto& b) { b[1] = 'X'; }); }});
  c.push_back({"wtns_bn128_prime", command::prove, "witness.wtns", [=](auto d) {
                 edit(wt(d), [&](auto& b) { overwrite(b, find_section(b, 1).offset + 4, bn_prime_le(bn128_r, 32)); });
               }});
  c.push_back({"wtns_of_another_circuit", command::prove, "witness.wtns", [=](auto d) {
                 fs::copy_file(fs::path(STARZK_TEST_DATA) / "fixtures" / "bits" / "witness.wtns", wt(d),
                               fs::copy_options::overwrite_existing);
               }});
  c.push_back({"wtns_value_not_below_r", command::prove, "witness.wtns", [=](auto d) {
                 edit(wt(d), [&](auto& b) {
                   const size_t at = find_section(b, 2).offset + 32;  // w[1]
                   std::fill(b.begin() + long(at), b.begin() + long(at) + 32, uint8_t(0xff));
                 });
               }});
  c.push_back({"wtns_unsatisfied_with_circuit", command::prove, "",
               [=](auto d) { edit(wt(d), [&](auto& b) { b[find_section(b, 2).offset + 32 * 3] ^= 1; }); },
               "does not satisfy constraint"});
  c.push_back({"wtns_first_value_not_one", command::prove, "witness.wtns",
               [=](auto d) { edit(wt(d), [&](auto& b) { b[find_section(b, 2).offset] = 2; }); }, "constant wire"});
  // --- the circuit ---
  c.push_back({"r1cs_truncated", command::prove, "circuit.r1cs", [=](auto d) { truncate_to(rc(d), 40); }});
  c.push_back(
      {"r1cs_wrong_magic", command::prove, "circuit.r1cs", [=](auto d) { edit(rc(d), [](auto& b) { b[0] = 'R'; }); }});
  c.push_back({"r1cs_bn128_prime", command::prove, "circuit.r1cs", [=](auto d) {
                 edit(rc(d), [&](auto& b) { overwrite(b, find_section(b, 1).offset + 4, bn_prime_le(bn128_r, 32)); });
               }});
  c.push_back({"r1cs_wire_out_of_range", command::prove, "circuit.r1cs",
               [=](auto d) { edit(rc(d), [&](auto& b) { set_u32(b, find_section(b, 2).offset + 4, 0x00ffffff); }); }});
  c.push_back({"r1cs_of_another_circuit", command::prove, "",
               [=](auto d) {
                 fs::copy_file(fs::path(STARZK_TEST_DATA) / "fixtures" / "bits" / "circuit.r1cs", rc(d),
                               fs::copy_options::overwrite_existing);
               },
               "does not match the key"});
  c.push_back({"input_missing", command::prove, "", [=](auto d) { fs::remove(wt(d)); }, "witness.wtns"});
  // --- verification inputs ---
  c.push_back(
      {"proof_not_json", command::verify, "proof.json", [](auto d) { write_text(d / "proof.json", "{ nope"); }});
  c.push_back({"proof_missing_pi_b", command::verify, "proof.json", [](auto d) {
                 write_text(d / "proof.json", "{\"pi_a\": [\"1\", \"2\", \"1\"], \"pi_c\": [\"1\", \"2\", \"1\"]}");
               }});
  c.push_back({"proof_point_off_curve", command::verify, "proof.json", [](auto d) {
                 write_text(d / "proof.json",
                            "{\"pi_a\": [\"1\", \"2\", \"1\"], \"pi_b\": [[\"1\",\"0\"],[\"2\",\"0\"],[\"1\",\"0\"]], "
                            "\"pi_c\": [\"1\", \"2\", \"1\"], \"protocol\": \"groth16\", \"curve\": \"bls12381\"}");
               }});
  c.push_back(
      {"public_wrong_count", command::verify, "public.json", [](auto d) { write_text(d / "public.json", "[]"); }});
  c.push_back({"public_not_below_r", command::verify, "public.json", [](auto d) {
                 write_text(d / "public.json",
                            "[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]");
               }});
  c.push_back({"public_not_a_number", command::verify, "public.json",
               [](auto d) { write_text(d / "public.json", "[\"12a\"]"); }});
  c.push_back({"vkey_ic_off_curve", command::verify, "verification_key.json", [](auto d) {
                 edit(d / "verification_key.json", [](auto& b) {
                   std::string s(b.begin(), b.end());
                   const size_t at = s.find("\"IC\"");
                   const size_t q = s.find('"', s.find('[', at) + 1);  // first digit string
                   s[q + 1] = s[q + 1] == '1' ? '2' : '1';
                   b.assign(s.begin(), s.end());
                 });
               }});
  return c;
}

class CliMalformed : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("starzk-cli-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    for (const char* f : inputs) fs::copy_file(fixture / f, dir_ / f);
  }
  void TearDown() override { fs::remove_all(dir_); }

  run_result run(command cmd) const {
    const fs::path& d = dir_;
    if (cmd == command::prove)
      return run_starzk("prove --zkey " + (d / "circuit.zkey").string() + " --wtns " + (d / "witness.wtns").string() +
                        " --r1cs " + (d / "circuit.r1cs").string() + " --proof " + (d / "out_proof.json").string() +
                        " --public " + (d / "out_public.json").string());
    return run_starzk("verify --vkey " + (d / "verification_key.json").string() + " --proof " +
                      (d / "proof.json").string() + " --public " + (d / "public.json").string());
  }
  fs::path dir_;
};

TEST_F(CliMalformed, GoodInputsPass) {
  const auto before = list_dir(dir_);
  run_result p = run(command::prove);
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_TRUE(fs::exists(dir_ / "out_proof.json"));
  EXPECT_EQ(list_dir(dir_).size(), before.size() + 2);
  run_result v = run(command::verify);
  EXPECT_EQ(v.status, 0) << v.output;
}

TEST_F(CliMalformed, EveryBadInputFailsCleanly) {
  const auto all = cases();
  ASSERT_GE(all.size(), 30u);
  for (const bad_case& bc : all) {
    SCOPED_TRACE(bc.name);
    fs::remove_all(dir_);
    SetUp();
    bc.corrupt(dir_);
    const auto before = list_dir(dir_);
    const run_result r = run(bc.cmd);
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_EQ(r.output.find("Segmentation"), std::string::npos) << r.output;
    EXPECT_LE(std::count(r.output.begin(), r.output.end(), '\n'), 2) << r.output;
    if (*bc.broken) {
      EXPECT_NE(r.output.find(bc.broken), std::string::npos) << r.output;
    }
    if (*bc.expect) {
      EXPECT_NE(r.output.find(bc.expect), std::string::npos) << r.output;
    }
    EXPECT_EQ(list_dir(dir_), before) << "outputs or temporaries were left behind";
  }
}

TEST_F(CliMalformed, VerifyRejectsATamperedProofWithExitOne) {
  // A well-formed proof whose A and C are exchanged: every point is valid,
  // the pairing equation is not.
  auto j = nlohmann::json::parse(std::ifstream(dir_ / "proof.json"));
  std::swap(j["pi_a"], j["pi_c"]);
  write_text(dir_ / "proof.json", j.dump());
  const run_result r = run(command::verify);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("INVALID"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace starzk::test

namespace starzk::test {
namespace {

// The fast-load path end to end: a key validated once into a cache and the
// circuit converted to the CSR file give the same verifying proofs; a
// corrupted cache is refused by its checksums.
TEST_F(CliMalformed, KeyCacheAndCsrCircuitProve) {
  const fs::path d = dir_;
  auto path = [&](const char* f) { return (d / f).string(); };
  run_result r = run_starzk("setup --r1cs " + path("circuit.r1cs") + " --params " + path("p.params") + " --vkey " +
                            path("vk.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_starzk("cache --params " + path("p.params") + " --circuit " + path("circuit.r1cs") + " --out " +
                 path("p.szkc") + " --csr-out " + path("c.szcs"));
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_starzk("prove --params " + path("p.szkc") + " --circuit " + path("c.szcs") + " --wtns " +
                 path("witness.wtns") + " --out " + path("proof.bin") + " --public " + path("pub.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_starzk("verify --params " + path("p.params") + " --proof " + path("proof.bin") + " --public " +
                 path("pub.json"));
  EXPECT_EQ(r.status, 0) << r.output;
  // Flip one byte in the last page of the cache (point data): the checksum catches it.
  edit(d / "p.szkc", [](auto& b) { b[b.size() - 100] ^= 0x40; });
  r = run_starzk("prove --params " + path("p.szkc") + " --circuit " + path("c.szcs") + " --wtns " +
                 path("witness.wtns") + " --out " + path("proof2.bin"));
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("p.szkc"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(d / "proof2.bin"));
}

}  // namespace
}  // namespace starzk::test
