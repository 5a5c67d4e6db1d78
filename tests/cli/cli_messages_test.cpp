// Every error about a bad input names its file (docs/usage.md: one line
// "starzk: FILE: problem" and the status of its kind; docs/reliability.md §8).
//   - naming.*: the one place that makes sure (cli/file_errors.hpp), on each
//     kind of exception a read or a proof can end in: the file put in front
//     once, the other inputs a message speaks of named after it, the exit
//     status kept by the exception's type;
//   - messages.*: the real binary on a representative bad input of each
//     reader and each command that combines inputs (a file that is no
//     regular file, a malformed manifest or trace, a witness that breaks
//     the circuit, a corrupt key, a circuit or witness that does not fit the
//     key, an invalid proof, a batch partition): the error line names the
//     file and the exit status is the documented one. scripts/probe-messages.py
//     runs thousands of such inputs; these are the ones it found unnamed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/file_errors.hpp"
#include "../test_support.hpp"
#include "cli_harness.hpp"
#include "groth16/prover.hpp"
#include "io/io_error.hpp"

namespace starzk::test {
namespace {

using cli::input_file_t;
using cli::naming;

// ---- the mechanism ---------------------------------------------------------

// What naming() rethrows when `thrown` escapes a step over `files`.
template <class E, class Thrown>
E caught(std::initializer_list<input_file_t> files, const Thrown& thrown) {
  try {
    naming(files, [&]() -> int { throw thrown; });
  } catch (const E& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong type, message: " << e.what();
  }
  throw std::logic_error("nothing thrown");
}

TEST(naming, an_error_that_names_no_file_gets_it_and_status_3) {
  const io_error e = caught<io_error>({{"t.json", "trace"}}, std::runtime_error("not valid JSON"));
  EXPECT_EQ(e.file(), "t.json");
  EXPECT_STREQ(e.what(), "t.json: not valid JSON");
}

TEST(naming, a_file_already_in_front_is_not_repeated) {
  EXPECT_STREQ(caught<io_error>({{"t.json", "trace"}}, std::runtime_error("t.json: trace: no events")).what(),
               "t.json: trace: no events");
  EXPECT_STREQ(caught<io_error>({{"m.toml", "manifest"}}, std::runtime_error("m.toml:3:1: bad key")).what(),
               "m.toml: 3:1: bad key");
  // An io_error about a file keeps its text when it speaks of no other input.
  EXPECT_STREQ(caught<io_error>({{"k.zkey", "key"}, {"c.r1cs", "circuit"}}, io_error("k.zkey", "truncated")).what(),
               "k.zkey: truncated");
}

TEST(naming, the_other_inputs_a_message_speaks_of_are_named) {
  const std::initializer_list<input_file_t> files = {{"w.wtns", "witness"}, {"k.zkey", "key"}, {"", "circuit"}};
  EXPECT_STREQ(caught<io_error>(files, io_error("w.wtns", "68 values, the key expects 69")).what(),
               "w.wtns: 68 values, the key expects 69 (key: k.zkey)");
  // By role as a whole word, outside the paths: "circuit.zkey" is no circuit.
  EXPECT_STREQ(
      caught<io_error>({{"circuit.zkey", "key"}, {"c.r1cs", "circuit"}}, io_error("circuit.zkey", "keys")).what(),
      "circuit.zkey: keys");
  EXPECT_EQ(cli::with_inputs("job 'j' partition 0 (w.wtns): the key is corrupt",
                             std::vector<input_file_t>{{"/d/k.zkey", "key"}, {"/d/c.r1cs", "circuit"}}),
            "job 'j' partition 0 (w.wtns): the key is corrupt (key: /d/k.zkey)");
  // A file named by its name alone counts as named.
  EXPECT_EQ(cli::with_inputs("key k.zkey: the circuit does not match", std::vector<input_file_t>{{"/d/k.zkey", "key"}}),
            "key k.zkey: the circuit does not match");
}

TEST(naming, a_refusal_names_the_input_it_is_about_and_keeps_status_1) {
  const std::initializer_list<input_file_t> files = {{"w.wtns", "witness"}, {"k.zkey", "key"}, {"c.r1cs", "circuit"}};
  EXPECT_STREQ(caught<prove_error>(files, unsatisfied_error(3)).what(),
               "w.wtns: witness does not satisfy constraint 3 of the circuit (circuit: c.r1cs)");
  const prove_error k = caught<prove_error>(files, prove_error(proof_fails_with_circuit, prove_input_t::key));
  EXPECT_EQ(std::string(k.what()),
            std::string("k.zkey: ") + proof_fails_with_circuit + " (witness: w.wtns; circuit: c.r1cs)");
  EXPECT_EQ(k.about, prove_input_t::key);
  // The input it is about not given (no circuit): the first one.
  EXPECT_EQ(std::string(caught<prove_error>({{"w.wtns", "witness"}, {"", "circuit"}},
                                            prove_error("circuit needs 8 rows", prove_input_t::circuit))
                            .what()),
            "w.wtns: circuit needs 8 rows");
}

TEST(naming, a_filesystem_error_gives_its_reason_after_the_file) {
  const auto fe = std::filesystem::filesystem_error("cannot get file size", std::filesystem::path("x.r1cs"),
                                                    std::make_error_code(std::errc::operation_not_supported));
  const io_error e = caught<io_error>({{"x.r1cs", ""}}, fe);
  EXPECT_EQ(e.file(), "x.r1cs");
  EXPECT_EQ(e.problem().find("filesystem error"), std::string::npos) << e.what();
  EXPECT_EQ(e.problem().find("[x.r1cs]"), std::string::npos) << e.what();
  EXPECT_NE(e.problem().find("cannot get file size"), std::string::npos) << e.what();
}

TEST(naming, usage_resources_and_exit_statuses_keep_their_kind) {
  EXPECT_STREQ(caught<std::invalid_argument>({{"k.zkey", "key"}}, std::invalid_argument("give --circuit")).what(),
               "give --circuit");
  EXPECT_STREQ(caught<cli::resource_error>({{"k.zkey", "key"}}, std::bad_alloc()).what(), "k.zkey: out of memory");
  EXPECT_EQ(caught<cli::exit_status>({{"k.zkey", "key"}}, cli::exit_status{1}).code, 1);
  // A step that only combines inputs names refusals alone.
  try {
    cli::naming_refusal({{"w.wtns", "witness"}}, []() -> int { throw std::runtime_error("StarPU did not start"); });
    FAIL();
  } catch (const io_error&) {
    FAIL() << "a failure that is not a refusal was blamed on a file";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "StarPU did not start");
  }
}

// ---- through the binary ---------------------------------------------------

const fs::path multiplier = fs::path(STARZK_TEST_DATA) / "fixtures" / "multiplier";

struct outcome {
  int status;
  std::string line;  // the last "starzk: " line of stderr
  std::string err;   // all of stderr
};

class messages : public binary_dir_test {
 protected:
  messages() : binary_dir_test(STARZK_BIN, "starzk-messages-") {}
  void SetUp() override {
    binary_dir_test::SetUp();
    if (IsSkipped()) return;
    for (const char* f :
         {"circuit.zkey", "circuit.r1cs", "witness.wtns", "verification_key.json", "proof.json", "public.json"})
      fs::copy_file(multiplier / f, dir_ / f);
  }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }

  outcome run(const std::string& args) const {
    const std::string e = at("stderr.txt");
    const run_result r = run_starzk(args + " 2>" + e + " >/dev/null; exit $? #");
    outcome o{r.status, "", read_text(e)};
    std::istringstream lines(o.err);
    for (std::string l; std::getline(lines, l);)
      if (l.rfind("starzk: ", 0) == 0) o.line = l;
    return o;
  }
  // The error line starts "starzk: <first>: ", names every one of `also`,
  // and the status is `status`.
  void expect_named(const std::string& args, int status, const std::string& first,
                    std::initializer_list<std::string> also = {}) const {
    const outcome o = run(args);
    EXPECT_EQ(o.status, status) << args << "\n" << o.err;
    EXPECT_EQ(o.line.rfind("starzk: " + first + ": ", 0), 0u)
        << args << ": the error does not start with " << first << ":\n"
        << o.err;
    for (const std::string& f : also) EXPECT_NE(o.line.find(f), std::string::npos) << "no " << f << " in: " << o.line;
  }
  // The multiplier witness with value `index` changed (still below r).
  std::string witness_with_value_changed(size_t index) const {
    std::vector<uint8_t> b = read_all(dir_ / "witness.wtns");
    b[find_section(b, 2).offset + 32 * index] ^= 0x01;
    write_all(dir_ / "bad.wtns", b);
    return at("bad.wtns");
  }
  std::string prove(const std::string& key, const std::string& wtns) const {
    return "prove --gpu off --zkey " + key + " --wtns " + wtns + " --proof " + at("p.json");
  }
};

TEST_F(messages, a_file_that_is_no_regular_file_is_named_with_status_3) {
  fs::create_symlink("/dev/null", dir_ / "null.zkey");
  expect_named("info " + at("null.zkey"), 3, at("null.zkey"));  // was "filesystem error: ..." and status 1
  expect_named(prove(at("null.zkey"), at("witness.wtns")), 3, at("null.zkey"));
  expect_named(prove(at("circuit.zkey"), at("missing.wtns")), 3, at("missing.wtns"), {"does not exist (--wtns)"});
  fs::create_directory(dir_ / "folder.zkey");
  expect_named(prove(at("folder.zkey"), at("witness.wtns")), 3, at("folder.zkey"), {"a folder"});
}

TEST_F(messages, a_malformed_manifest_is_bad_input) {
  write("m.toml", "[[job]\nkey = 'circuit.zkey'\n");
  write("m.json", "{\"jobs\": 3}");
  for (const char* m : {"m.toml", "m.json"}) {
    expect_named("info " + at(m), 3, at(m));  // status 1 before
    expect_named("prove --gpus 0 --manifest " + at(m), 3, at(m));
  }
}

TEST_F(messages, a_malformed_trace_is_bad_input) {
  write("t.json", "{\"traceEvents\": 5}");
  expect_named("trace summary " + at("t.json"), 3, at("t.json"));  // status 1 before
  expect_named("trace check " + at("t.json"), 3, at("t.json"));
}

TEST_F(messages, a_witness_that_breaks_the_circuit_is_named_with_the_circuit) {
  const std::string w = witness_with_value_changed(2);
  expect_named(prove(at("circuit.zkey"), w) + " --circuit " + at("circuit.r1cs"), 1, w,
               {"does not satisfy constraint", at("circuit.r1cs")});
  expect_named(prove(at("circuit.zkey"), w), 1, w, {"does not verify", at("circuit.zkey")});
  EXPECT_FALSE(fs::exists(dir_ / "p.json"));
}

TEST_F(messages, a_corrupt_key_is_named_first) {
  // A coefficient of the .zkey's matrices (section 4: u32 count, then 44-byte
  // entries u32 matrix, u32 row, u32 wire, 32-byte value) on wire 0 changed.
  std::vector<uint8_t> b = read_all(dir_ / "circuit.zkey");
  const section_span s = find_section(b, 4);
  size_t e = s.offset + 4;
  while (b[e + 8] | b[e + 9] | b[e + 10] | b[e + 11]) e += 44;
  b[e + 12] ^= 0x01;
  write_all(dir_ / "bad.zkey", b);
  expect_named(prove(at("bad.zkey"), at("witness.wtns")) + " --circuit " + at("circuit.r1cs"), 1, at("bad.zkey"),
               {"key is corrupt", at("witness.wtns")});
}

TEST_F(messages, inputs_that_do_not_fit_the_key_are_named_with_it) {
  // A witness of another circuit: its count against the key's.
  fs::copy_file(fs::path(STARZK_TEST_DATA) / "fixtures" / "bits" / "witness.wtns", dir_ / "other.wtns");
  expect_named(prove(at("circuit.zkey"), at("other.wtns")), 3, at("other.wtns"), {at("circuit.zkey")});
  // A .params key read with another circuit.
  ASSERT_EQ(run("setup --gpu off --r1cs " + at("circuit.r1cs") + " --params " + at("k.params")).status, 0);
  fs::copy_file(fs::path(STARZK_TEST_DATA) / "fixtures" / "bits" / "circuit.r1cs", dir_ / "other.r1cs");
  expect_named("prove --gpu off --params " + at("k.params") + " --circuit " + at("other.r1cs") + " --wtns " +
                   at("witness.wtns") + " --out " + at("p.bin"),
               3, at("k.params"), {at("other.r1cs")});
  // Public inputs against a verifying key that expects more of them.
  auto vk = nlohmann::json::parse(std::ifstream(dir_ / "verification_key.json"));
  vk["IC"].push_back(vk["IC"][0]);
  vk["nPublic"] = 2;
  write("vk2.json", vk.dump());
  expect_named("verify --vkey " + at("vk2.json") + " --proof " + at("proof.json") + " --public " + at("public.json"), 3,
               at("public.json"), {at("vk2.json")});
}

TEST_F(messages, an_invalid_proof_is_named_with_its_key) {
  write("other.json", "[\"5\"]");
  expect_named(
      "verify --vkey " + at("verification_key.json") + " --proof " + at("proof.json") + " --public " + at("other.json"),
      1, at("proof.json"), {"INVALID", at("verification_key.json"), at("other.json")});
}

TEST_F(messages, a_batch_partition_names_the_key_it_speaks_of) {
  witness_with_value_changed(2);
  write("jobs.toml", "[[job]]\nname = 'j'\nkey = 'circuit.zkey'\nwitnesses = ['bad.wtns']\nout_dir = 'out'\n");
  const outcome o = run("prove --gpus 0 --cpus 1 --manifest " + at("jobs.toml"));
  EXPECT_EQ(o.status, 1) << o.err;
  const size_t p = o.err.find("partition 0 (bad.wtns)");
  ASSERT_NE(p, std::string::npos) << o.err;
  const std::string line = o.err.substr(p, o.err.find('\n', p) - p);
  EXPECT_NE(line.find("(key: " + at("circuit.zkey") + ")"), std::string::npos) << line;
}

}  // namespace
}  // namespace starzk::test
