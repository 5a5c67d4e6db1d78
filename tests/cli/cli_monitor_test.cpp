// What a monitor or a batch system sees of the starzk binary (docs/usage.md,
// "Exit status", "Output for monitors", "Options win over the environment"):
// the exit status of each kind of failure, every error on one "starzk: "
// line, --json outcomes of verify, info and prove, `info` on every format
// starzk reads or writes, Filecoin .vk files (exported at PoRep size, 2,116
// bytes, then verified against; a corrupt one refused), --policy winning
// and --cpus over STARPU_NCPU, progress lines off a terminal, --log-format
// json (every line of stdout and stderr one JSON object with t, event,
// message), --quiet, --verbose and --log-format on every command, and
// manifests taking every key form. Each
// case fails if the behaviour regresses: exact statuses and JSON fields are
// compared.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

namespace starzk::test {
namespace {

const fs::path mul = fs::path(STARZK_TEST_DATA) / "fixtures" / "multiplier";

// stdout alone (the JSON a monitor parses), and the exit status.
struct out_t {
  int status;
  std::string out;
};
out_t stdout_of(const std::string& args, const std::string& env = "") {
  const std::string cmd =
      "STARPU_SILENT=1 STARZK_VALIDATED_KEYS=off " + env + " " STARZK_BIN " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}
nlohmann::json json_of(const out_t& r) {
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not one JSON object: " << r.out;
  return j;
}

class CliMonitor : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("starzk-monitor-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string p(const char* f) const { return (dir_ / f).string(); }
  std::string verify_args(const std::string& proof) const {
    return "verify --vkey " + (mul / "verification_key.json").string() + " --proof " + proof + " --public " +
           (mul / "public.json").string();
  }
  fs::path dir_;
};

TEST_F(CliMonitor, ExitStatusOfEachKind) {
  run_result r = run_starzk(verify_args((mul / "proof.json").string()));
  EXPECT_EQ(r.status, 0) << r.output;
  // Usage: unknown command or option, a missing required option.
  for (const char* args : {"no-such-command", "verify --no-such-option", "verify"}) {
    r = run_starzk(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.output;
    EXPECT_EQ(r.output.rfind("starzk: ", 0), 0u) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
  // Bad input: a file that does not exist, a malformed proof.
  r = run_starzk(verify_args(p("missing.json")));
  EXPECT_EQ(r.status, 3) << r.output;
  std::ofstream(p("cut.json")) << "{\"pi_a\": [\"1\", ";
  r = run_starzk(verify_args(p("cut.json")));
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("cut.json"), std::string::npos) << r.output;
  // The answer is no: a well-formed proof that does not verify.
  auto j = nlohmann::json::parse(std::ifstream(mul / "proof.json"));
  std::swap(j["pi_a"], j["pi_c"]);
  std::ofstream(p("swapped.json")) << j.dump();
  r = run_starzk(verify_args(p("swapped.json")));
  EXPECT_EQ(r.status, 1) << r.output;
}

TEST_F(CliMonitor, VerifyJson) {
  out_t r = stdout_of(verify_args((mul / "proof.json").string()) + " --json");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(
      json_of(r),
      (nlohmann::json{{"command", "verify"}, {"valid", true}, {"proofs", 1}, {"invalid", nlohmann::json::array()}}));
  auto j = nlohmann::json::parse(std::ifstream(mul / "proof.json"));
  std::swap(j["pi_a"], j["pi_c"]);
  std::ofstream(p("swapped.json")) << j.dump();
  r = stdout_of(verify_args(p("swapped.json")) + " --json");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(json_of(r)["valid"], false);
  EXPECT_EQ(json_of(r)["invalid"], nlohmann::json::array({0}));
  std::ofstream(p("cut.json")) << "{";
  r = stdout_of(verify_args(p("cut.json")) + " --json");
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(json_of(r)["exit"], 3);
  EXPECT_NE(json_of(r)["error"].get<std::string>().find("cut.json"), std::string::npos);
}

// Every format through `info --json`, made here by `gen -k 12`: a .params
// with 12 public inputs (Filecoin PoRep's count, so its .vk is 2,116 bytes),
// its key cache and CSR circuit, a proof file, the .vk and a manifest.
TEST_F(CliMonitor, InfoEveryFormatAndFilecoinVk) {
  // Keys validated once (records in the test's folder): each load after the first is fast.
  const auto run_starzk = [&](const std::string& args) {
    return run_binary(STARZK_BIN, args, "STARZK_VALIDATED_KEYS=" + p("records"));
  };
  run_result r =
      run_starzk("gen -k 12 -n 1 --public 12 --convention bellman --format iden3 --threads 2 --out " + p("g"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string params = p("g/key.params"), circuit = p("g/circuit.r1cs");
  r = run_starzk("prove --gpu off --params " + params + " --circuit " + circuit + " --wtns " + p("g/witness-0.wtns") +
                 " --out " + p("proof.bin") + " --public " + p("public.json") + " --threads 2");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_starzk("cache --params " + params + " --circuit " + circuit + " --out " + p("k.szkc") + " --csr-out " +
                 p("c.szcs") + " --threads 2");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_starzk("vk export --params " + params + " --vk " + p("porep.vk") + " --json " + p("vk.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(fs::file_size(p("porep.vk")), 2116u);
  // The .vk, the exported JSON and the .params verify the proof alike.
  for (const std::string& key :
       {"--vkey " + p("porep.vk"), "--params " + p("porep.vk"), "--vkey " + p("vk.json"), "--params " + params}) {
    r = run_starzk("verify " + key + " --proof " + p("proof.bin") + " --public " + p("public.json"));
    EXPECT_EQ(r.status, 0) << key << ": " << r.output;
  }
  // A .vk from the key cache is the same bytes.
  r = run_starzk("vk export --params " + p("k.szkc") + " --vk " + p("cache.vk"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_all(p("cache.vk")), read_all(p("porep.vk")));
  std::ofstream(p("jobs.toml")) << "[[job]]\nname = 'j'\nkey = '" << params << "'\ncircuit = '" << circuit
                                << "'\nwitnesses = ['" << p("g/witness-0.wtns") << "']\nout_dir = 'o'\n";

  const std::pair<std::string, const char*> files[] = {{params, "params"},
                                                       {circuit, "r1cs"},
                                                       {p("c.szcs"), "szcs"},
                                                       {p("k.szkc"), "szkc"},
                                                       {p("proof.bin"), "proofs_bin"},
                                                       {p("porep.vk"), "vk"},
                                                       {p("jobs.toml"), "manifest"},
                                                       {p("vk.json"), "vkey_json"},
                                                       {p("g/witness-0.wtns"), "wtns"},
                                                       {(mul / "circuit.zkey").string(), "zkey"}};
  for (const auto& [file, format] : files) {
    const out_t o = stdout_of("info --json " + file);
    EXPECT_EQ(o.status, 0) << file;
    EXPECT_EQ(json_of(o)["format"], format) << file << ": " << o.out;
    if (std::string(format) == "szkc") continue;  // checked in full: once is enough
    r = run_starzk("info " + file);
    EXPECT_EQ(r.status, 0) << r.output;
    if (std::string(format) != "params") {
      EXPECT_EQ(r.output.find("(.params)"), std::string::npos)
          << "a " << format << " described as a .params: " << r.output;
    }
  }
  EXPECT_EQ(json_of(stdout_of("info --json " + p("porep.vk")))["public_inputs"], 12);
  EXPECT_EQ(json_of(stdout_of("info --json " + p("proof.bin")))["proofs"], 1);

  // A corrupt .vk (a point off its curve) and an unknown file: exit 3, named.
  auto vk = read_all(p("porep.vk"));
  vk[200] ^= 0x01;
  write_all(p("bad.vk"), vk);
  r = run_starzk("verify --vkey " + p("bad.vk") + " --proof " + p("proof.bin") + " --public " + p("public.json"));
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("bad.vk: beta_g2"), std::string::npos) << r.output;
  vk.resize(2000);  // cut inside the ic points
  write_all(p("cut.vk"), vk);
  r = run_starzk("verify --vkey " + p("cut.vk") + " --proof " + p("proof.bin") + " --public " + p("public.json"));
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("cut.vk: is 2000 bytes, but its ic count 13 needs exactly 2116"), std::string::npos)
      << r.output;
  write_all(p("junk.bin"), std::vector<uint8_t>(1000, 7));
  r = run_starzk("info " + p("junk.bin"));
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("not a format starzk knows"), std::string::npos) << r.output;
}

// --policy wins over STARPU_SCHED (an unknown name there would fail the
// run); without --policy, STARPU_SCHED decides. Progress lines off a
// terminal, and the --json summary alone on stdout.
TEST_F(CliMonitor, PolicyFlagWinsAndProgressOffTerminal) {
  std::ofstream(p("jobs.toml")) << "[[job]]\nname = 'm'\nkey = '" << (mul / "circuit.zkey").string()
                                << "'\nwitnesses = ['" << (mul / "witness.wtns").string() << "']\nout_dir = 'o'\n";
  const std::string batch = "prove --manifest " + p("jobs.toml") + " --cpus 1";
  run_result r = run_binary(STARZK_BIN, batch + " --policy lws --fresh", "STARPU_SCHED=no-such-policy");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("policy lws"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("starzk: progress: partitions 1/1"), std::string::npos) << r.output;
  r = run_binary(STARZK_BIN, batch + " --fresh", "STARPU_SCHED=no-such-policy");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("no-such-policy"), std::string::npos) << r.output;
  const out_t o = stdout_of(batch + " --fresh --json");
  EXPECT_EQ(o.status, 0);
  const auto j = json_of(o);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["partitions"], 1);
  EXPECT_EQ(j["proved"], 1);
  // --cpus 1 wins over STARPU_NCPU=2.
  r = run_binary(STARZK_BIN, batch + " --fresh", "STARPU_NCPU=2");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(", 1 CPU workers,"), std::string::npos) << r.output;
}

// A manifest takes every key form `prove` takes: .zkey, .params, a .szkc of
// either convention and a packed .szpk (with a compact .szwt witness). A .szkc made from a .params without
// the job's circuit is refused before any proving (exit 3, the field named),
// not found missing at the first partition.
TEST_F(CliMonitor, ManifestTakesEveryKeyForm) {
  run_result r = run_starzk("gen -k 10 -n 1 --out " + p("b") + " --format iden3 --convention bellman --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  // key.szpk, circuit.szcs, witness-0.szwt
  r = run_starzk("gen -k 10 -n 1 --out " + p("c") + " --format compact --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  const out_t w = stdout_of("info --json " + p("c/witness-0.szwt"));
  EXPECT_EQ(w.status, 0) << w.out;
  EXPECT_EQ(json_of(w)["format"], "szwt") << w.out;
  EXPECT_GT(json_of(w)["values"].get<uint64_t>(), json_of(w)["other_values"].get<uint64_t>() * 20) << w.out;
  r = run_starzk("cache --zkey " + (mul / "circuit.zkey").string() + " --out " + p("s.szkc") + " --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_starzk("cache --params " + p("b/key.params") + " --circuit " + p("b/circuit.r1cs") + " --out " + p("b.szkc") +
                 " --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string mw = (mul / "witness.wtns").string(), bw = p("b/witness-0.wtns");
  struct form_t {
    const char* name;
    std::string key, circuit, witness;
  };
  const std::vector<form_t> forms = {{"zkey", (mul / "circuit.zkey").string(), "", mw},
                                     {"params", p("b/key.params"), p("b/circuit.r1cs"), bw},
                                     {"szkc-snarkjs", p("s.szkc"), "", mw},
                                     {"szkc-bellman", p("b.szkc"), p("b/circuit.r1cs"), bw},
                                     {"szpk", p("c/key.szpk"), p("c/circuit.szcs"), p("c/witness-0.szwt")}};
  for (const form_t& f : forms) {
    SCOPED_TRACE(f.name);
    std::ofstream(p("m.toml")) << "[[job]]\nkey = '" << f.key << "'\n"
                               << (f.circuit.empty() ? "" : "circuit = '" + f.circuit + "'\n") << "witnesses = ['"
                               << f.witness << "']\nproofs_bin = '" << p(f.name) << ".bin'\n";
    r = run_starzk("prove --manifest " + p("m.toml") + " --gpus 0 --quiet");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(fs::exists(p(f.name) + std::string(".bin"))) << r.output;
  }
  std::ofstream(p("m.toml")) << "[[job]]\nkey = '" << p("b.szkc") << "'\nwitnesses = ['" << bw
                             << "']\nproofs_bin = 'x.bin'\n";
  r = run_starzk("prove --manifest " + p("m.toml") + " --gpus 0");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("field 'circuit' is required with 'b.szkc'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("progress"), std::string::npos) << r.output;  // nothing was proved
}

// --quiet, --verbose and --log-format on every command; --quiet keeps only
// warnings, errors and the result, --verbose adds the settings in force.
TEST_F(CliMonitor, QuietAndVerboseOnEveryCommand) {
  for (const char* c : {"prove", "verify", "setup", "info", "cache", "trace summary", "trace plot", "trace check",
                        "trace replay", "gen", "bench", "vk export"}) {
    const run_result h = run_starzk(std::string(c) + " --help");
    EXPECT_EQ(h.status, 0) << c;
    for (const char* opt : {"--quiet", "--verbose", "--log-format"})
      EXPECT_NE(h.output.find(opt), std::string::npos) << c << " has no " << opt;
  }
  const std::string setup = "setup --r1cs " + (mul / "circuit.r1cs").string() + " --zkey " + p("k.zkey") + " --gpu off";
  run_result r = run_starzk(setup);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("fixed-base products on"), std::string::npos) << r.output;
  r = run_starzk(setup + " --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("fixed-base products on"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("DEVELOPMENT KEY"), std::string::npos) << r.output;  // a warning stays
  EXPECT_NE(r.output.find("written"), std::string::npos) << r.output;          // and the result
  const std::string prove = "prove --gpu off --zkey " + p("k.zkey") + " --wtns " + (mul / "witness.wtns").string() +
                            " --proof " + p("pr.json");
  r = run_starzk(prove);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("k.zkey: "), std::string::npos) << r.output;  // the key line
  r = run_starzk(prove + " --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("k.zkey: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("proof verified against"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("steps (ms)"), std::string::npos) << r.output;
  // --verbose on the CPU prover: where the proof's time went, step by step
  // (as text, and as one object of seconds under --log-format json).
  r = run_starzk(prove + " --verbose");
  ASSERT_EQ(r.status, 0) << r.output;
  const size_t steps = r.output.find("starzk prove: steps (ms): key ");
  ASSERT_NE(steps, std::string::npos) << r.output;
  const std::string line = r.output.substr(steps, r.output.find('\n', steps) - steps);
  for (const char* step : {"witness ", "check ", "witness map ", "h ", "msm h ", "prep_msm ", "msm l ", "msm a ",
                           "msm b_g1 ", "msm b_g2 ", "assemble ", "verify "})
    EXPECT_NE(line.find(std::string(", ") + step), std::string::npos) << step << " in " << line;
  r = run_starzk(prove + " --verbose --log-format json");
  ASSERT_EQ(r.status, 0) << r.output;
  int seen = 0;
  std::istringstream json_lines(r.output);
  for (std::string l; std::getline(json_lines, l);) {
    const auto j = nlohmann::json::parse(l, nullptr, false);
    if (!j.is_object() || j.value("event", "") != "steps") continue;
    ++seen;
    EXPECT_TRUE(j["steps_s"].is_object() && j["steps_s"].size() == 13 && j["steps_s"]["msm h"] > 0.0) << l;
  }
  EXPECT_EQ(seen, 1) << r.output;
  r = run_binary(STARZK_BIN, verify_args((mul / "proof.json").string()) + " --verbose", "STARZK_WATCH_S=30");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("starzk verify: settings: STARZK_WATCH_S=30"), std::string::npos) << r.output;
  r = run_binary(STARZK_BIN, verify_args((mul / "proof.json").string()) + " --verbose --log-format json",
                 "STARZK_WATCH_S=30");
  const auto first = nlohmann::json::parse(r.output.substr(0, r.output.find('\n')), nullptr, false);
  ASSERT_TRUE(first.is_object()) << r.output;
  EXPECT_EQ(first["event"], "settings");
  EXPECT_EQ(first["environment"]["STARZK_WATCH_S"], "30");
  r = run_starzk(verify_args((mul / "proof.json").string()) + " --quiet --verbose");
  EXPECT_EQ(r.status, 2) << r.output;
}

// --log-format json: every line a JSON object (t, event, message), the
// start, key, progress, job and summary events with their fields, the
// "resumed" count of the partitions found done before the run; an unknown
// form is a usage error.
TEST_F(CliMonitor, LogFormatJsonMakesEveryLineAnObject) {
  std::ofstream(p("jobs.toml")) << "[[job]]\nname = 'm'\nkey = '" << (mul / "circuit.zkey").string()
                                << "'\nwitnesses = ['" << (mul / "witness.wtns").string() << "', '"
                                << (mul / "witness.wtns").string() << "']\nout_dir = 'o'\n";
  const std::string batch = "prove --manifest " + p("jobs.toml") + " --cpus 1 --log-format json";
  for (const bool again : {false, true}) {
    SCOPED_TRACE(again ? "a rerun: every partition found done" : "a first run");
    const run_result r = run_starzk(batch);
    ASSERT_EQ(r.status, 0) << r.output;
    std::map<std::string, nlohmann::json> last;  // event -> its last line
    std::istringstream lines(r.output);
    std::string line;
    double t = -1;
    while (std::getline(lines, line)) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      ASSERT_TRUE(j.is_object()) << "not a JSON object: " << line;
      ASSERT_TRUE(j.contains("t") && j.contains("event") && j["message"].is_string()) << line;
      EXPECT_GE(j["t"].get<double>(), 0.0) << line;
      t = j["t"].get<double>();
      last[j["event"].get<std::string>()] = j;
    }
    EXPECT_GE(t, 0.0);
    ASSERT_TRUE(last.count("summary")) << r.output;
    const nlohmann::json& sum = last["summary"];
    EXPECT_EQ(sum["ok"], true);
    EXPECT_EQ(sum["partitions"], 2);
    EXPECT_EQ(sum["resumed"], again ? 2 : 0);
    ASSERT_TRUE(last.count("start")) << r.output;
    EXPECT_EQ(last["start"]["cpu_workers"], 1);
    if (!again) {
      ASSERT_TRUE(last.count("key") && last.count("progress") && last.count("job")) << r.output;
      EXPECT_EQ(last["key"]["key"], (mul / "circuit.zkey").string());
      EXPECT_EQ(last["progress"]["partitions_done"], 2);
      EXPECT_EQ(last["job"]["ok"], true);
    } else {
      EXPECT_TRUE(last.count("resume")) << r.output;
    }
  }
  const run_result bad = run_starzk("prove --manifest " + p("jobs.toml") + " --log-format xml");
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_NE(bad.output.find("--log-format 'xml': expected text or json"), std::string::npos) << bad.output;
}

// The environment table: a bad value of any STARZK_* variable stops every
// command before it works (exit 2, the variable named); `info --config`
// lists every variable with its value and source, and names one that is
// set but read by nothing.
TEST_F(CliMonitor, EnvironmentCheckedAtStartAndListed) {
  run_result r = run_binary(STARZK_BIN, verify_args((mul / "proof.json").string()), "STARZK_LOADERS=many");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("starzk: STARZK_LOADERS='many': expected a whole number in 0..64"), std::string::npos)
      << r.output;
  r = run_binary(STARZK_BIN, "prove --help", "STARZK_LOADERS=many");  // help is still given
  EXPECT_EQ(r.status, 0) << r.output;
  const out_t o = stdout_of("info --config --json", "STARZK_PIN_KEY=all STARZK_LAODERS=4");
  EXPECT_EQ(o.status, 0);
  const auto j = json_of(o);
  ASSERT_TRUE(j["config"].is_array()) << o.out;
  bool pin_key = false, watch = false;
  for (const auto& row : j["config"]) {
    if (row["name"] == "STARZK_PIN_KEY") pin_key = row["value"] == "all" && row["source"] == "environment";
    if (row["name"] == "STARZK_WATCH_S") watch = row["value"] == "60" && row["source"] == "default";
  }
  EXPECT_TRUE(pin_key && watch) << o.out;
  EXPECT_NE(j["unknown"].dump().find("STARZK_LAODERS"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace starzk::test
