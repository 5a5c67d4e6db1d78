// The starzk binary end to end: `starzk gen` writes a Filecoin-shaped job
// (circuit, witnesses, development key, manifest) in both conventions;
// `starzk prove --manifest` proves a three-job manifest (a snarkjs fixture
// with JSON and binary outputs, the generated job with its .zkey and with
// its bellman .params, binary outputs) under the starzk
// policy with a memory budget and a trace; every output exists, verifies,
// and no temporary file is left. A job with an unsatisfied witness fails
// with its partition named, writes no binary, and does not stop the other
// job. `starzk trace summary` parses; `starzk trace plot` makes a PNG
// (skipped without gnuplot).
#include <gtest/gtest.h>

#include "../run_binary.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "cli/manifest.hpp"
#include "groth16/proof_bytes.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"
#include "io/params.hpp"
#include "io/proof_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"

namespace starzk {
namespace {

namespace fs = std::filesystem;
const fs::path starzk_bin = fs::path(STARZK_BINARY_DIR) / "bin" / "starzk";
const fs::path fixtures = fs::path(STARZK_TEST_DATA) / "fixtures";

struct run_t {
  int rc;
  std::string out;
};

run_t run(const std::string& args) {
  const test::run_result r = test::run_binary(starzk_bin.string(), args);
  return {r.status, r.output};
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void expect_no_temporaries(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

class cli_manifest : public test::binary_dir_test {
 protected:
  cli_manifest() : binary_dir_test(starzk_bin, "starzk-cli-dag-") {}
};

TEST_F(cli_manifest, gen_prove_verify_trace) {
  // 1. gen: a k = 10 job with 3 partitions.
  const fs::path gen = dir_ / "gen";
  run_t g = run("gen -k 10 -n 3 --public 8 --seed 7 --threads 2 --out " + gen.string());
  ASSERT_EQ(g.rc, 0) << g.out;
  const cli::manifest_t gm = cli::read_manifest(gen / "jobs.toml");
  ASSERT_EQ(gm.jobs.size(), 1u);
  ASSERT_EQ(gm.jobs[0].witnesses.size(), 3u);
  cli::check_manifest_inputs(gm);
  const fs::path genb = dir_ / "genb";  // the same circuit, a bellman (.params) key
  g = run("gen -k 10 -n 2 --public 8 --seed 7 --threads 2 --convention bellman --out " + genb.string());
  ASSERT_EQ(g.rc, 0) << g.out;
  ASSERT_TRUE(fs::exists(genb / "key.params")) << g.out;

  // 2. A three-job manifest: the multiplier fixture (two partitions), the
  // generated job with its .zkey, the generated job with its .params.
  const fs::path mul = fixtures / "multiplier";
  std::ofstream(dir_ / "jobs.toml")
      << "[[job]]\nname = 'mul'\nkey = '" << (mul / "circuit.zkey").string() << "'\nwitnesses = ['"
      << (mul / "witness.wtns").string() << "', '" << (mul / "witness.wtns").string()
      << "']\nout_dir = 'out/mul'\nproofs_bin = 'out/mul.bin'\n\n"
      << "[[job]]\nname = 'gen'\nkey = 'gen/key.zkey'\ncircuit = 'gen/circuit.r1cs'\n"
      << "witnesses = ['gen/witness-0.wtns', 'gen/witness-1.wtns', 'gen/witness-2.wtns']\n"
      << "proofs_bin = 'out/gen.bin'\n\n"
      << "[[job]]\nname = 'genb'\nkey = 'genb/key.params'\ncircuit = 'genb/circuit.r1cs'\n"
      << "witnesses = ['genb/witness-0.wtns', 'genb/witness-1.wtns']\n"
      << "proofs_bin = 'out/genb.bin'\n";
  const fs::path trace = dir_ / "run.json";
  run_t p = run("prove --manifest " + (dir_ / "jobs.toml").string() +
                " --policy starzk --cpus 2 --mem-budget 64M --trace " + trace.string());
  ASSERT_EQ(p.rc, 0) << p.out;
  EXPECT_NE(p.out.find("7 of 7 proofs verified and written"), std::string::npos) << p.out;

  const proving_key_t mk = read_zkey(mul / "circuit.zkey");
  const std::vector<fr_t> mw = read_wtns(mul / "witness.wtns", mk.n_vars);
  for (int i = 0; i < 2; ++i) {
    const proof_t pr = read_proof_json(dir_ / "out/mul" / ("proof-" + std::to_string(i) + ".json"));
    const std::vector<fr_t> pub = read_public_json(dir_ / "out/mul" / ("public-" + std::to_string(i) + ".json"));
    EXPECT_EQ(pub, public_inputs(mk, mw));
    EXPECT_TRUE(verify(mk.vk, pub, pr));
  }
  const std::vector<proof_t> mb = decode_proofs(read_bytes(dir_ / "out/mul.bin"));
  ASSERT_EQ(mb.size(), 2u);
  for (const proof_t& pr : mb) EXPECT_TRUE(verify(mk.vk, public_inputs(mk, mw), pr));
  const proving_key_t gk = read_zkey(gen / "key.zkey");
  const std::vector<proof_t> gb = decode_proofs(read_bytes(dir_ / "out/gen.bin"));
  ASSERT_EQ(gb.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const std::vector<fr_t> w = read_wtns(gen / ("witness-" + std::to_string(i) + ".wtns"), gk.n_vars);
    EXPECT_TRUE(verify(gk.vk, public_inputs(gk, w), gb[i])) << "partition " << i;
  }
  const verifying_key_t bvk = read_params_vk(genb / "key.params");
  const std::vector<proof_t> bb = decode_proofs(read_bytes(dir_ / "out/genb.bin"));
  ASSERT_EQ(bb.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const std::vector<fr_t> w = read_wtns(genb / ("witness-" + std::to_string(i) + ".wtns"), gk.n_vars);
    EXPECT_TRUE(verify(bvk, public_inputs(gk, w), bb[i])) << "bellman partition " << i;
  }
  expect_no_temporaries(dir_);

  // 3. gen's own manifest runs as written (relative paths, JSON + binary outputs).
  run_t own = run("prove --manifest " + (gen / "jobs.toml").string() + " --policy eager --cpus 2 --quiet");
  ASSERT_EQ(own.rc, 0) << own.out;
  EXPECT_EQ(read_bytes(gen / "proofs.bin").size(), 3 * proof_bytes_size);
  EXPECT_TRUE(fs::exists(gen / "proofs" / "proof-2.json"));

  // 4. Trace tools.
  run_t sj = run("trace summary --json " + trace.string());
  ASSERT_EQ(sj.rc, 0) << sj.out;
  const nlohmann::json s = nlohmann::json::parse(sj.out);
  EXPECT_EQ(s["proofs"], 7);
  EXPECT_EQ(s["partitions"], 7);
  EXPECT_EQ(s["jobs"], 3);
  EXPECT_EQ(s["policy"], "starzk");
  EXPECT_EQ(s["phases"].size(), 11u);  // ten phases and free_rows (rows in host memory)
  run_t st = run("trace summary " + trace.string());
  ASSERT_EQ(st.rc, 0) << st.out;
  EXPECT_NE(st.out.find("phase    spmv"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("worker   "), std::string::npos) << st.out;
  if (std::system("gnuplot --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot missing: plot not checked";
  const fs::path png = dir_ / "run.png";
  run_t pl = run("trace plot " + trace.string() + " -o " + png.string() + " --script " + (dir_ / "run.gp").string());
  ASSERT_EQ(pl.rc, 0) << pl.out;
  const std::vector<uint8_t> head = read_bytes(png);
  ASSERT_GE(head.size(), 8u);
  EXPECT_EQ(std::string(head.begin() + 1, head.begin() + 4), "PNG");
}

TEST_F(cli_manifest, a_bad_partition_fails_its_job_only) {
  const fs::path mul = fixtures / "multiplier";
  const proving_key_t mk = read_zkey(mul / "circuit.zkey");
  std::vector<fr_t> w = read_wtns(mul / "witness.wtns", mk.n_vars);
  w.back() += fr_t::one();
  write_wtns(dir_ / "bad.wtns", w);
  std::ofstream(dir_ / "jobs.json") << R"({"jobs": [
    {"name": "bad", "key": ")" << (mul / "circuit.zkey").string()
                                    << R"(",
     "witnesses": [")" << (mul / "witness.wtns").string()
                                    << R"(", "bad.wtns"], "proofs_bin": "bad.bin"},
    {"name": "good", "key": ")" << (mul / "circuit.zkey").string()
                                    << R"(",
     "witnesses": [")" << (mul / "witness.wtns").string()
                                    << R"("], "out_dir": "good"}]})";
  run_t r = run("prove --manifest " + (dir_ / "jobs.json").string() + " --policy lws --cpus 2");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("job 'bad' partition 1 (bad.wtns)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("does not verify"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "bad.bin"));
  EXPECT_TRUE(fs::exists(dir_ / "good" / "proof-0.json"));
  expect_no_temporaries(dir_);
  // A manifest naming a missing file fails before StarPU starts.
  std::ofstream(dir_ / "missing.toml") << "[[job]]\nkey = 'nope.zkey'\nwitnesses = ['w.wtns']\nout_dir = 'o'\n";
  run_t m = run("prove --manifest " + (dir_ / "missing.toml").string());
  EXPECT_EQ(m.rc, 3);  // a bad input file
  EXPECT_NE(m.out.find("key: no file"), std::string::npos) << m.out;
}

// A policy plug-in end to end: prove under the example plug-in's engine
// policy, `trace check` finds the invariants its rules promise held, and
// fails (exit 1) on the same trace with two memory-heavy tasks moved to
// overlap. A file that is not a plug-in is refused, named. --policy-plugin
// wins over STARZK_POLICY_PLUGIN.
TEST_F(cli_manifest, plugin_policy_and_trace_check) {
  const fs::path gen = dir_ / "gen";
  run_t g = run("gen -k 10 -n 2 --public 4 --seed 9 --threads 2 --out " + gen.string());
  ASSERT_EQ(g.rc, 0) << g.out;
  const fs::path trace = dir_ / "plugin.json";
  const std::string plugin = STARZK_EXAMPLE_PLUGIN;
  run_t p = run("prove --manifest " + (gen / "jobs.toml").string() + " --policy-plugin " + plugin +
                " --policy example-one-heavy --cpus 2 --quiet --trace " + trace.string());
  ASSERT_EQ(p.rc, 0) << p.out;
  // --policy-plugin wins over STARZK_POLICY_PLUGIN (a path there that does
  // not exist would fail the run); without the option the variable applies.
  const std::string env = "STARZK_POLICY_PLUGIN=" + (dir_ / "no-such-plugin.so").string();
  const std::string again = "prove --manifest " + (gen / "jobs.toml").string() + " --fresh --cpus 2 --quiet";
  test::run_result e = test::run_binary(starzk_bin.string(), again + " --policy-plugin " + plugin, env);
  EXPECT_EQ(e.status, 0) << e.output;
  e = test::run_binary(starzk_bin.string(), again, env);
  EXPECT_NE(e.status, 0) << e.output;
  EXPECT_NE(e.output.find("no-such-plugin.so"), std::string::npos) << e.output;
  run_t c = run("trace check " + trace.string());
  ASSERT_EQ(c.rc, 0) << c.out;
  EXPECT_NE(c.out.find("policy example-one-heavy; checked: completeness, memory-heavy cap 1"), std::string::npos)
      << c.out;
  EXPECT_NE(c.out.find("every invariant held"), std::string::npos) << c.out;

  nlohmann::json j = nlohmann::json::parse(std::ifstream(trace));
  int moved = 0;
  for (auto& e : j["traceEvents"])
    if (e.value("ph", "") == "X" && e["args"].value("class", "") == "memory_heavy" &&
        e["args"].value("worker_kind", "") == "cpu") {
      e["args"]["start_us"] = 1.0;  // the exact times the checks read
      e["args"]["end_us"] = 101.0;
      ++moved;
    }
  ASSERT_GE(moved, 2) << "the run had fewer than two memory-heavy tasks on the CPUs";
  const fs::path broken = dir_ / "broken.json";
  std::ofstream(broken) << j.dump();
  c = run("trace check " + broken.string());
  EXPECT_EQ(c.rc, 1) << c.out;
  EXPECT_NE(c.out.find("memory-heavy"), std::string::npos) << c.out;
  c = run("trace check " + broken.string() + " --skip cap");
  EXPECT_EQ(c.rc, 0) << c.out;

  p = run("prove --manifest " + (gen / "jobs.toml").string() + " --policy-plugin " + (gen / "jobs.toml").string() +
          " --policy example-one-heavy --cpus 2 --quiet");
  EXPECT_NE(p.rc, 0);
  EXPECT_NE(p.out.find((gen / "jobs.toml").string() + ": cannot load policy plug-in"), std::string::npos) << p.out;
}

}  // namespace
}  // namespace starzk
