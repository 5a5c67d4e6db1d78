// Keys validated once per content (cli/inputs.hpp load_key, with
// io/validation_record.hpp and groth16/key_validation.hpp). What is observed
// is load_key's report (validated now or vouched for by a record, record
// written or not), never timing: a valid key is remembered and its second
// load does not validate; a changed key is validated again; a corrupt record
// is ignored and rewritten; remembering off validates every time and writes
// nothing; --revalidate validates anyway; a key with a point outside the
// subgroup is refused naming the query and index, and no record is written.
// The same for .params, .szpk and .szkc keys, including a .szkc whose
// checksums were recomputed over an out-of-range matrix index; the CPU
// prover's loads read in place. Then through the binary: the stderr line,
// --revalidate, a cache. Every test points the records at its own
// temporary folder (never $HOME).
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <random>

#include "cli/inputs.hpp"
#include "cli_harness.hpp"
#include "key_test_util.hpp"
#include "ec/encoding.hpp"
#include "ec/subgroup.hpp"
#include "groth16/setup.hpp"
#include "io/binfile.hpp"
#include "io/checksum.hpp"
#include "io/digest_memo.hpp"
#include "io/io_error.hpp"
#include "io/key_cache.hpp"
#include "io/packed_key.hpp"
#include "io/params.hpp"
#include "io/r1cs.hpp"

namespace starzk::test {
namespace {

const fs::path fixture = fs::path(STARZK_TEST_DATA) / "fixtures" / "multiplier";

class KeyRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("starzk-keyrec-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    fs::copy_file(fixture / "circuit.zkey", zkey());
    store_ = record_store_t(dir_ / "records");
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path zkey() const { return dir_ / "circuit.zkey"; }
  cli::loaded_key_t load(const fs::path& key, bool revalidate = false, const r1cs_t* cs = nullptr,
                         const record_store_t* store = nullptr) const {
    const cli::key_load_options_t o{.revalidate = revalidate,
                                    .device = setup_device_t::cpu,
                                    .threads = 2,
                                    .records = store ? store : &store_,
                                    .quiet = true};
    return key.extension() == ".params" ? cli::load_key("", key.string(), cs, o)
                                        : cli::load_key(key.string(), "", cs, o);
  }
  size_t records() const { return validation_records(dir_ / "records"); }

  fs::path dir_;
  record_store_t store_;
};

TEST_F(KeyRecord, ValidKeyIsRememberedAndNotValidatedAgain) {
  const cli::loaded_key_t first = load(zkey());
  EXPECT_TRUE(first.check.validated);
  EXPECT_TRUE(first.check.remembered) << first.check.note;
  EXPECT_EQ(first.check.info.points, key_point_count(first.pk));
  EXPECT_EQ(records(), 1u);
  EXPECT_TRUE(fs::exists(store_.path_of(first.check.digest)));
  EXPECT_NE(first.check.line("k.zkey").find("points validated on the CPU (2 threads)"), std::string::npos);

  const cli::loaded_key_t second = load(zkey());
  EXPECT_FALSE(second.check.validated);
  EXPECT_EQ(second.check.digest, first.check.digest);
  EXPECT_EQ(second.pk, first.pk);
  EXPECT_NE(second.check.line("k.zkey").find("validated before (digest " + to_hex(first.check.digest).substr(0, 8)),
            std::string::npos);
}

// The repository's fixture has been quiet far longer than the racy window
// (io/digest_memo.hpp): its digest is remembered after the first load and
// recalled, not hashed, by the next; --revalidate hashes it again.
TEST_F(KeyRecord, AQuietKeysDigestIsRecalled) {
  const cli::loaded_key_t first = load(fixture / "circuit.zkey");
  EXPECT_TRUE(first.check.validated);
  EXPECT_FALSE(first.check.digest_recalled);
  const auto stamp = file_stamp(fixture / "circuit.zkey");
  ASSERT_TRUE(stamp);
  EXPECT_TRUE(fs::exists(memo_path(store_, *stamp)));
  const cli::loaded_key_t second = load(fixture / "circuit.zkey");
  EXPECT_FALSE(second.check.validated);
  EXPECT_TRUE(second.check.digest_recalled);
  EXPECT_EQ(second.check.digest, first.check.digest);
  EXPECT_EQ(second.pk, first.pk);
  EXPECT_NE(second.check.line("k.zkey").find("digest remembered"), std::string::npos) << second.check.line("k.zkey");
  const cli::loaded_key_t again = load(fixture / "circuit.zkey", true);
  EXPECT_TRUE(again.check.validated);
  EXPECT_FALSE(again.check.digest_recalled);
  EXPECT_EQ(again.check.digest, first.check.digest);
}

TEST_F(KeyRecord, ChangedKeyIsValidatedAgain) {
  const cli::loaded_key_t first = load(zkey());
  // Another valid key: one byte of the MPC transcript (section 10, never
  // read by the prover) changed.
  auto b = read_all(zkey());
  b[find_section(b, 10).offset + 40] ^= 1;
  write_all(zkey(), b);
  const cli::loaded_key_t second = load(zkey());
  EXPECT_NE(second.check.digest, first.check.digest);
  EXPECT_TRUE(second.check.validated);
  EXPECT_EQ(second.pk, first.pk);
  EXPECT_EQ(records(), 2u);
}

TEST_F(KeyRecord, CorruptRecordIsIgnoredAndRewritten) {
  const cli::loaded_key_t first = load(zkey());
  const fs::path rec = store_.path_of(first.check.digest);
  auto b = read_all(rec);
  b[52] ^= checked_subgroup;  // "subgroup not checked", checksum not updated
  write_all(rec, b);
  const cli::loaded_key_t second = load(zkey());
  EXPECT_TRUE(second.check.validated);
  EXPECT_NE(second.check.note.find("corrupt record"), std::string::npos) << second.check.note;
  EXPECT_TRUE(second.check.remembered);
  EXPECT_FALSE(load(zkey()).check.validated);  // rewritten
  write_all(rec, {'n', 'o', 'p', 'e'});
  EXPECT_TRUE(load(zkey()).check.validated);
}

TEST_F(KeyRecord, RememberingOffValidatesEveryTimeAndWritesNothing) {
  const record_store_t off;
  for (int i = 0; i < 2; ++i) {
    const cli::loaded_key_t k = load(zkey(), false, nullptr, &off);
    EXPECT_TRUE(k.check.validated);
    EXPECT_FALSE(k.check.remembered);
  }
  // The same through the environment.
  const char* old = std::getenv("STARZK_VALIDATED_KEYS");
  const std::string saved = old ? old : "";
  ::setenv("STARZK_VALIDATED_KEYS", "off", 1);
  const cli::loaded_key_t k =
      cli::load_key(zkey().string(), "", nullptr, {.device = setup_device_t::cpu, .quiet = true});
  EXPECT_TRUE(k.check.validated);
  EXPECT_NE(k.check.line("k.zkey").find("not remembered (STARZK_VALIDATED_KEYS=off)"), std::string::npos)
      << k.check.line("k.zkey");
  if (old)
    ::setenv("STARZK_VALIDATED_KEYS", saved.c_str(), 1);
  else
    ::unsetenv("STARZK_VALIDATED_KEYS");
  EXPECT_EQ(records(), 0u);
}

TEST_F(KeyRecord, RevalidateValidatesAnyway) {
  load(zkey());
  const cli::loaded_key_t k = load(zkey(), true);
  EXPECT_TRUE(k.check.validated);
  EXPECT_TRUE(k.check.remembered);
  EXPECT_FALSE(load(zkey()).check.validated);
}

TEST_F(KeyRecord, KeyOutsideTheSubgroupIsRefusedAndNotRemembered) {
  // A point of the A query (section 5), index 2, on the curve but outside G1.
  auto b = read_all(zkey());
  encode_g1_snarkjs(g1_outside_subgroup(), b.data() + find_section(b, 5).offset + 2 * 96);
  write_all(zkey(), b);
  try {
    load(zkey());
    ADD_FAILURE() << "the key was accepted";
  } catch (const io_error& e) {
    EXPECT_EQ(std::string(e.what()), zkey().string() + ": a point 2: not in the prime-order subgroup");
  }
  EXPECT_EQ(records(), 0u);
  // A record of the bad key's digest would not make it pass either: the
  // record is only written after a validation succeeds, so none exists.
  EXPECT_THROW(load(zkey()), io_error);
}

TEST_F(KeyRecord, ParamsKeys) {
  const r1cs_t cs = read_r1cs(fixture / "circuit.r1cs");
  const fs::path p = dir_ / "k.params";
  write_params(p, setup(cs, root_convention_t::bellman));
  const cli::loaded_key_t first = load(p, false, &cs);
  EXPECT_TRUE(first.check.validated);
  EXPECT_TRUE(first.check.remembered);
  const cli::loaded_key_t second = load(p, false, &cs);
  EXPECT_FALSE(second.check.validated);
  EXPECT_EQ(second.pk, first.pk);
}

TEST_F(KeyRecord, PackedKeysAreCheckedWhileDecompressed) {
  const r1cs_t cs = read_r1cs(fixture / "circuit.r1cs");
  const proving_key_t pk = setup(cs, root_convention_t::bellman);
  const fs::path p = dir_ / "k.szpk";
  write_packed_key(p, pk, 1);
  const cli::loaded_key_t first = load(p, false, &cs);
  EXPECT_TRUE(first.check.validated);
  EXPECT_TRUE(first.check.read_is_validation);
  EXPECT_TRUE(first.check.remembered) << first.check.note;
  EXPECT_EQ(first.pk, pk);
  EXPECT_NE(first.check.line("k.szpk").find("decompressed as checked"), std::string::npos)
      << first.check.line("k.szpk");
  const cli::loaded_key_t second = load(p, false, &cs);
  EXPECT_FALSE(second.check.validated);
  EXPECT_EQ(second.pk, pk);
  EXPECT_TRUE(load(p, true, &cs).check.validated);
}

// The read of a packed key starts before its digest is known: with no
// record of a key of its size, format and sample it decompresses with the
// subgroup checks (above), also when another key of the same size was
// validated before; with one, without them, and a key that then has no
// record of its own (a sample that collides: forged here by rewriting the
// record's sample) is validated in full after the read: remembered when
// good, refused naming its query when a point lies outside the subgroup.
TEST_F(KeyRecord, PackedKeyOfAKnownSizeButUnknownDigestIsValidatedAfterTheRead) {
  const r1cs_t cs = read_r1cs(fixture / "circuit.r1cs");
  const fs::path p1 = dir_ / "k1.szpk", p2 = dir_ / "k2.szpk", p3 = dir_ / "k3.szpk", p4 = dir_ / "k4.szpk";
  write_packed_key(p1, setup(cs, root_convention_t::bellman), 1);
  const proving_key_t pk2 = setup(cs, root_convention_t::bellman);  // fresh toxic waste: other points
  write_packed_key(p2, pk2, 1);
  write_packed_key(p4, setup(cs, root_convention_t::bellman), 1);
  proving_key_t bad = pk2;
  size_t i = 0;
  while (bad.a[i].is_infinity()) ++i;
  bad.a[i] = g1_outside_subgroup();
  write_packed_key(p3, bad, 1);
  const uint64_t size = fs::file_size(p1);
  for (const fs::path& p : {p2, p3, p4}) ASSERT_EQ(fs::file_size(p), size);
  const uint64_t s1 = file_sample(p1), s2 = file_sample(p2), s3 = file_sample(p3);
  EXPECT_NE(s1, s2);
  EXPECT_NE(s2, s3);

  EXPECT_FALSE(store_.may_hold(size, key_format_t::packed, s1));
  const cli::loaded_key_t first = load(p1, false, &cs);
  ASSERT_TRUE(first.check.remembered);
  EXPECT_TRUE(store_.may_hold(size, key_format_t::packed, s1));
  EXPECT_FALSE(store_.may_hold(size, key_format_t::packed, s2));  // same size, another key
  EXPECT_FALSE(store_.may_hold(size + 1, key_format_t::packed, s1));
  EXPECT_FALSE(store_.may_hold(size, key_format_t::key_cache, s1));

  // Another key of the same size is a first load: checked as decompressed.
  const cli::loaded_key_t fourth = load(p4, false, &cs);
  EXPECT_TRUE(fourth.check.validated);
  EXPECT_TRUE(fourth.check.read_is_validation);

  // p1's record made to carry another key's sample: the guess is wrong.
  auto collide_with = [&](uint64_t sample) {
    const fs::path rec = store_.path_of(first.check.digest);
    std::ifstream in(rec, std::ios::binary);
    std::vector<uint8_t> b(validation_record_size);
    ASSERT_TRUE(in.read(reinterpret_cast<char*>(b.data()), std::streamsize(b.size())));
    std::optional<validation_record_t> r = decode_record(b);
    ASSERT_TRUE(r);
    r->sample = sample;
    const std::vector<uint8_t> out = encode_record(*r);
    std::ofstream(rec, std::ios::binary).write(reinterpret_cast<const char*>(out.data()), std::streamsize(out.size()));
    ASSERT_TRUE(store_.may_hold(size, key_format_t::packed, sample));
  };
  collide_with(s2);
  const cli::loaded_key_t second = load(p2, false, &cs);
  EXPECT_TRUE(second.check.validated);
  EXPECT_FALSE(second.check.read_is_validation);  // read first, validated after
  EXPECT_EQ(second.check.info.points, key_point_count(pk2));
  EXPECT_TRUE(second.check.remembered);
  EXPECT_EQ(second.pk, pk2);
  EXPECT_FALSE(load(p2, false, &cs).check.validated);

  collide_with(s3);
  const size_t before = records();
  try {
    load(p3, false, &cs);
    ADD_FAILURE() << "a point outside the subgroup was accepted";
  } catch (const io_error& e) {
    EXPECT_NE(std::string(e.what()).find("k3.szpk"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("subgroup"), std::string::npos) << e.what();
  }
  EXPECT_EQ(records(), before);
}

TEST_F(KeyRecord, KeyCacheOfUnknownOriginIsCheckedInFull) {
  const proving_key_t pk = load(zkey()).pk;
  const fs::path c = dir_ / "k.szkc";
  write_key_cache(c, pk, 1);
  const cli::loaded_key_t first = load(c);
  EXPECT_TRUE(first.check.validated);  // not made here through `starzk cache`: checked
  EXPECT_EQ(first.pk, pk);
  EXPECT_FALSE(load(c).check.validated);

  // A zkey_a column index out of range, with the section and header
  // checksums recomputed: refused by the read, before anything uses it.
  auto b = read_all(c);
  const key_cache_view_t v(c);
  const auto& sec = v.container().section(7);  // zkey_a col
  ASSERT_GT(sec.count, 0u);
  store_u32_le(b.data() + sec.offset, pk.n_vars + 5);
  const uint64_t table = 40 + load_u64_le(b.data() + 32);
  store_u64_le(b.data() + table + 32 * 7 + 24, block_checksum({b.data() + sec.offset, size_t(sec.count * 4)}));
  const uint64_t head = table + 32 * load_u32_le(b.data() + 12);
  store_u64_le(b.data() + head, xxh64(b.data(), head));
  const fs::path bad = dir_ / "bad.szkc";
  write_all(bad, b);
  try {
    load(bad);
    ADD_FAILURE() << "an out-of-range column index was accepted";
  } catch (const io_error& e) {
    EXPECT_NE(std::string(e.what()).find("zkey_a"), std::string::npos) << e.what();
  }

  // A cache remembered as made from a validated key loads without validation.
  const fs::path made = dir_ / "made.szkc";
  write_key_cache(made, pk, 1);
  EXPECT_EQ(cli::remember_validated(made.string(), key_format_t::key_cache, key_point_count(pk),
                                    {.records = &store_, .quiet = true}),
            "");
  EXPECT_FALSE(load(made).check.validated);
}

// map_points (the CPU prover's loads): a .zkey is decoded while it is
// validated, then its aligned point sections are read in place once a
// record vouches for it; a .szkc is read in place whole. Same keys.
TEST_F(KeyRecord, KeysReadInPlaceOnceVouchedFor) {
  const auto mapped = [&](const fs::path& key) {
    return cli::load_key(
        key.string(), "", nullptr,
        {.device = setup_device_t::cpu, .threads = 2, .records = &store_, .quiet = true, .map_points = true});
  };
  const auto lent = [](const proving_key_t& k) {
    return std::vector<bool>{k.a.borrowed(), k.b_g1.borrowed(), k.b_g2.borrowed(), k.l.borrowed(), k.h.borrowed()};
  };
  const cli::loaded_key_t first = mapped(zkey());
  EXPECT_TRUE(first.check.validated);
  EXPECT_EQ(lent(first.pk), std::vector<bool>(5, false));
  const cli::loaded_key_t second = mapped(zkey());
  EXPECT_FALSE(second.check.validated);
  EXPECT_EQ(second.pk, first.pk);
  EXPECT_EQ(lent(second.pk), (std::vector<bool>{false, true, false, true, false}));  // B1, C: 8-byte aligned
  const fs::path c = dir_ / "k.szkc";
  write_key_cache(c, first.pk, 1);
  for (int i = 0; i < 2; ++i) {  // validated, then vouched for
    const cli::loaded_key_t cached = mapped(c);
    EXPECT_EQ(cached.check.validated, i == 0);
    EXPECT_EQ(cached.pk, first.pk);
    EXPECT_EQ(lent(cached.pk), std::vector<bool>(5, true));
  }
}

// ---- through the binary ------------------------------------------------------

class KeyRecordCli : public KeyRecord {
 protected:
  run_result prove(const std::string& extra = "") const {
    return run_binary(STARZK_BIN,
                      "prove --gpu off --zkey " + zkey().string() + " --wtns " + (fixture / "witness.wtns").string() +
                          " --proof " + (dir_ / "proof.json").string() + extra,
                      "STARZK_VALIDATED_KEYS=" + (dir_ / "records").string());
  }
};

TEST_F(KeyRecordCli, OneLineSaysWhatHappened) {
  run_result r = prove();
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("circuit.zkey: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" points validated on the CPU ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(", remembered"), std::string::npos) << r.output;
  EXPECT_EQ(records(), 1u);
  r = prove();
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("circuit.zkey: validated before (digest "), std::string::npos) << r.output;
  r = prove(" --revalidate");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(" points validated on the CPU ("), std::string::npos) << r.output;
  // A cache `starzk cache` made (and remembered) proves read in place.
  const std::string cache = (dir_ / "k.szkc").string(), env = "STARZK_VALIDATED_KEYS=" + (dir_ / "records").string();
  ASSERT_EQ(run_binary(STARZK_BIN, "cache --zkey " + zkey().string() + " --out " + cache, env).status, 0);
  r = run_binary(STARZK_BIN,
                 "prove --gpu off --zkey " + cache + " --wtns " + (fixture / "witness.wtns").string() + " --proof " +
                     (dir_ / "p2.json").string(),
                 env);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("k.szkc: validated before"), std::string::npos) << r.output;
}

TEST_F(KeyRecordCli, BadKeyIsRefusedWithoutARecord) {
  auto b = read_all(zkey());
  encode_g1_snarkjs(g1_outside_subgroup(), b.data() + find_section(b, 9).offset + 3 * 96);  // H query, point 3
  write_all(zkey(), b);
  const run_result r = prove();
  EXPECT_EQ(r.status, 3) << r.output;  // a bad input file (docs/usage.md, "Exit status")
  EXPECT_NE(r.output.find("circuit.zkey: h point 3: not in the prime-order subgroup"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "proof.json"));
  EXPECT_EQ(records(), 0u);
}

}  // namespace
}  // namespace starzk::test
