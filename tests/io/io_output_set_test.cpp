// Output sets, leftovers and the batch journal: a set of files appears
// together or not at all (the old set survives a failed write; a set cut
// off before its mark is removed by clean_output_set; two writers of one
// set leave a consistent pair); only dead processes' temporaries of our own
// targets are removed; outputs that are an input or each other (same path,
// symlink, hard link, "..") are refused; a journal survives torn and
// corrupt lines and refuses a file of the wrong kind or size; a FIFO (as
// /dev/null, a file that is not a regular one) named as outputs is written
// in place, never renamed over nor removed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "io/batch_journal.hpp"
#include "io/output_set.hpp"
#include "io/proof_files.hpp"
#include "io/proof_json.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename());
  std::sort(v.begin(), v.end());
  return v;
}

void commit_pair(const fs::path& a, const fs::path& b, const std::string& text) {
  output_set_t set({a, b});
  set.write(0, std::string_view(text));
  set.write(1, std::string_view(text));
  set.commit();
}

TEST(output_set, appears_together_and_replaces_the_old_set) {
  scratch_t tmp;
  const fs::path pub = tmp / "public.json", proof = tmp / "proof.json";
  commit_pair(pub, proof, "one");
  commit_pair(pub, proof, "two");
  EXPECT_EQ(read_text(pub), "two");
  EXPECT_EQ(read_text(proof), "two");
  EXPECT_EQ(files_in(tmp.dir()), (std::vector<fs::path>{"proof.json", "public.json"}));
  // A set abandoned before commit leaves the old set and no temporary.
  {
    output_set_t set({pub, proof});
    set.write(0, std::string_view("three"));
  }
  EXPECT_EQ(read_text(pub), "two");
  EXPECT_EQ(files_in(tmp.dir()), (std::vector<fs::path>{"proof.json", "public.json"}));
  // A member that cannot be created (no such folder): nothing changes.
  EXPECT_THROW(output_set_t({pub, tmp / "absent" / "proof.json"}), io_error);
  EXPECT_EQ(files_in(tmp.dir()), (std::vector<fs::path>{"proof.json", "public.json"}));
}

TEST(output_set, proof_outputs_in_order) {
  scratch_t tmp;
  const proof_t proof = read_proof_json(fixture("multiplier", "proof.json"));
  const proof_outputs_t o{.public_json = tmp / "p.json", .proof_bin = tmp / "p.bin", .proof_json = tmp / "proof.json"};
  EXPECT_EQ(o.members().back(), tmp / "proof.json");  // the mark
  const std::vector<fr_t> publics = {fr_t::from_u64(33)};
  write_proof_outputs(o, proof, publics);
  EXPECT_EQ(read_proof_json(o.proof_json), proof);
  EXPECT_EQ(read_public_json(o.public_json), publics);
  EXPECT_EQ(read_proofs_bin(o.proof_bin, 1).at(0), proof);
}

TEST(output_set, clean_removes_a_set_without_its_mark) {
  scratch_t tmp;
  const std::vector<fs::path> set = {tmp / "public-0.json", tmp / "proof-0.json"};
  write_text(set[0], "orphan");  // a kill between the two renames
  EXPECT_EQ(clean_output_set(set), 1u);
  EXPECT_FALSE(fs::exists(set[0]));
  write_text(set[0], "x");
  write_text(set[1], "x");
  EXPECT_EQ(clean_output_set(set), 0u);  // complete: kept
  EXPECT_TRUE(fs::exists(set[0]));
  EXPECT_EQ(remove_output_set(set), 2u);
  EXPECT_TRUE(files_in(tmp.dir()).empty());
}

pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

TEST(output_set, stale_temporaries_of_dead_processes_only) {
  scratch_t tmp;
  const fs::path target = tmp / "proof-0.json";
  const std::string dead = std::to_string(dead_pid()), alive = std::to_string(::getppid()) + ".3";
  for (const std::string& name : {"proof-0.json.tmp." + dead, "proof-0.json.tmp." + alive,
                                  std::string("proof-0.json.tmp.x1"), "proof-1.json.tmp." + dead})
    write_text(tmp / name, "partial");
  EXPECT_EQ(remove_stale_temporaries(target), 1u);
  EXPECT_EQ(files_in(tmp.dir()), (std::vector<fs::path>{"proof-0.json.tmp." + alive, std::string("proof-0.json.tmp.x1"),
                                                        "proof-1.json.tmp." + dead}));
  // clean_output_set removes them too.
  write_text(tmp / ("proof-0.json.tmp." + dead), "partial");
  EXPECT_EQ(clean_output_set(std::vector<fs::path>{target}), 1u);
}

TEST(output_set, concurrent_writers_leave_a_matching_pair) {
  scratch_t tmp;
  const fs::path pub = tmp / "public.json", proof = tmp / "proof.json";
  for (int round = 0; round < 40; ++round) {
    std::thread a([&] { commit_pair(pub, proof, "a" + std::to_string(round)); });
    std::thread b([&] { commit_pair(pub, proof, "b" + std::to_string(round)); });
    a.join();
    b.join();
    ASSERT_EQ(read_text(pub), read_text(proof)) << "round " << round;
  }
  EXPECT_EQ(files_in(tmp.dir()).size(), 2u);
}

TEST(output_set, outputs_may_not_alias_inputs) {
  scratch_t tmp;
  fs::create_directories(tmp / "sub");
  write_text(tmp / "key.zkey", "key");
  fs::create_symlink(tmp / "key.zkey", tmp / "link.zkey");
  fs::create_hard_link(tmp / "key.zkey", tmp / "hard.zkey");
  const std::vector<named_path_t> in = {{tmp / "key.zkey", "the key"}, {tmp / "key.zkey", "the key again"}};
  for (const fs::path& out :
       {tmp / "key.zkey", tmp / "link.zkey", tmp / "hard.zkey", tmp / "sub" / ".." / "key.zkey"}) {
    const std::vector<named_path_t> outs = {{tmp / "fine.json", "--public"}, {out, "--proof"}};
    expect_io_error([&] { check_outputs_apart(in, outs); }, out,
                    "--proof is the same file as the key '" + (tmp / "key.zkey").string() +
                        "': an output may not overwrite an input");
  }
  const std::vector<named_path_t> twice = {{tmp / "p.json", "--proof"}, {tmp / "sub/../p.json", "--public"}};
  expect_io_error([&] { check_outputs_apart(in, twice); }, tmp / "sub/../p.json", "two outputs may not share a file");
  check_outputs_apart(in, std::vector<named_path_t>{{tmp / "p.json", "--proof"}, {tmp / "q.json", "--public"}});
}

// Outputs that are not regular files (a device, a FIFO) are written in
// place: renaming a temporary over /dev/null as root replaces the device
// with a file. A FIFO stands in for the device here.
TEST(output_set, a_fifo_output_is_written_in_place_and_kept) {
  scratch_t tmp;
  const fs::path fifo = tmp / "sink";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // so that writers do not block
  ASSERT_GE(reader, 0);
  check_outputs_apart({}, std::vector<named_path_t>{{fifo, "--proof"}, {fifo, "--public"}});
  commit_pair(fifo, tmp / "mark.json", "abc");
  commit_pair(fifo, tmp / "mark.json", "def");  // the old set is retired: the FIFO must stay
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  char got[16] = {};
  EXPECT_EQ(::read(reader, got, sizeof got), 6);
  EXPECT_EQ(std::string(got, 6), "abcdef");
  {
    atomic_file_t f(fifo);  // opens while the reader is there (a FIFO without one blocks)
    expect_io_error([&] { f.map_writable(8); }, fifo, "is not a regular file");
  }
  ::close(reader);
  EXPECT_EQ(files_in(tmp.dir()), (std::vector<fs::path>{"mark.json", "sink"}));
}

// ---- the batch journal --------------------------------------------------------

TEST(batch_journal, round_trip_torn_and_corrupt_lines) {
  scratch_t tmp;
  const fs::path j = tmp / "journal";
  EXPECT_TRUE(read_journal(j, 4).entries.empty());  // none yet
  const proof_t proof = read_proof_json(fixture("multiplier", "proof.json"));
  write_journal(j, {{0, 7, proof}});
  {
    journal_appender_t app(j);
    app.append({2, 9, proof});
    app.append({0, 8, proof});  // a later line for partition 0 wins
  }
  journal_read_t r = read_journal(j, 4);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].inputs, 8u);
  EXPECT_EQ(r.entries[1].partition, 2u);
  EXPECT_EQ(r.entries[1].proof, proof);
  EXPECT_EQ(r.skipped, 0u);
  // A torn last line (a kill inside the append) and a flipped digit.
  std::string text = read_text(j);
  text += journal_line({3, 1, proof}).substr(0, 100);
  write_text(j, text);
  EXPECT_EQ(read_journal(j, 4).skipped, 1u);
  const size_t at = text.find('\n') + 30;  // inside the first entry's proof
  text[at] = text[at] == '0' ? '1' : '0';
  write_text(j, text);
  r = read_journal(j, 4);
  EXPECT_EQ(r.skipped, 2u);
  EXPECT_EQ(r.entries.size(), 2u);  // partition 0's later line and 2 remain
  // A partition beyond the job is not an entry.
  EXPECT_EQ(read_journal(j, 2).entries.size(), 1u);
}

TEST(batch_journal, refuses_other_files_and_sizes) {
  scratch_t tmp;
  const fs::path j = tmp / "journal";
  write_text(j, "{\"jobs\": []}\n");
  expect_io_error([&] { read_journal(j, 4); }, j, "not a starzk batch journal");
  write_text(j, "starzk-journal 1\n" + std::string(1 << 20, 'x'));
  expect_io_error([&] { read_journal(j, 4); }, j, "more than");
}

}  // namespace
}  // namespace starzk::test
