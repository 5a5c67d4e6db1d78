// fuzz_seeds OUT: writes the seed corpus of every fuzz target into
// OUT/<target>/, from tests/fixtures.
//
// The iden3 and JSON seeds are the fixture files themselves (the bits
// circuit's 1 MB key is left out: every execution would decode it). The
// formats no fixture holds are made here from the multiplier fixture with
// the project's own writers, so the seeds are exactly what starzk writes:
//   a bellman-convention key from setup (CPU, random toxic waste) as .params,
//   .szkc and .szpk; the snarkjs key (circuit.zkey) as .szkc and .szpk;
//   the circuits as .szcs in both versions (coded, and expanded to plain);
//   the fixtures' witnesses as .szwt;
//   the fixtures' proofs as .bin files (one, and all three back to back)
//   and as a batch journal; a validation record; a digest memo; manifests in TOML and JSON;
//   a task trace of one partition's chain (the recorder's JSON form).
// libFuzzer's -max_len is the largest seed, so small seeds keep each
// execution short.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "groth16/r1cs.hpp"
#include "groth16/setup.hpp"
#include "io/batch_journal.hpp"
#include "io/compact_witness.hpp"
#include "io/csr_circuit.hpp"
#include "io/key_cache.hpp"
#include "io/packed_key.hpp"
#include "io/params.hpp"
#include "io/proof_files.hpp"
#include "io/proof_json.hpp"
#include "policies/resource_class.h"
#include "runtime/trace.hpp"
#include "io/r1cs.hpp"
#include "io/digest_memo.hpp"
#include "io/validation_record.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"

namespace fs = std::filesystem;
using namespace starzk;

namespace {

const fs::path data = fs::path(STARZK_TEST_DATA) / "fixtures";
const char* const circuits[] = {"multiplier", "mimc", "bits"};

void put_text(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

void copy_fixtures(const fs::path& dir, const char* file, bool skip_bits = false) {
  for (const char* c : circuits) {
    if (skip_bits && std::string(c) == "bits") continue;
    fs::copy_file(data / c / file, dir / (std::string(c) + "-" + file), fs::copy_options::overwrite_existing);
  }
}

void manifests(const fs::path& dir) {
  put_text(dir / "one.toml",
           "[[job]]\nname = \"sector-1\"\nkey = \"k.zkey\"\nwitnesses = [\"p0.wtns\", \"p1.wtns\"]\n"
           "out_dir = \"out\"\nproofs_bin = \"out/s.proofs\"\n");
  put_text(dir / "two.toml",
           "# two jobs\n[[job]]\nkey = \"porep.params\"\ncircuit = \"porep.r1cs\"\nwitnesses = [\"a.wtns\"]\n"
           "proofs_bin = \"a.bin\"\n\n[[job]]\nname = \"b\"\nkey = \"k.szpk\"\ncircuit = \"c.szcs\"\n"
           "witnesses = [\"b0.wtns\", \"b1.wtns\", \"b2.wtns\"]\nout_dir = \"/abs/out\"\n");
  put_text(dir / "one.json",
           "{\"jobs\": [{\"name\": \"j\", \"key\": \"k.zkey\", \"witnesses\": [\"w.wtns\"], \"out_dir\": \"o\"},"
           " {\"key\": \"k.params\", \"circuit\": \"c.r1cs\", \"witnesses\": [\"x.wtns\", \"y.wtns\"],"
           " \"proofs_bin\": \"p.bin\"}]}\n");
}

// spmv (W rows) -> ntt_h (RW rows) -> msm_h (R key, R rows, W out, SCRATCH)
// -> free (RW rows), one chain, as the recorder writes it.
void traces(const fs::path& dir) {
  runtime::trace_t t;
  const char* names[] = {"spmv", "ntt_h", "msm_h", "free"};
  const std::vector<std::vector<runtime::trace_buffer_t>> buffers = {
      {{1, 4096, "W"}},
      {{1, 4096, "RW"}},
      {{0, 1 << 20, "R"}, {1, 4096, "R"}, {2, 96, "W"}, {3, 65536, "SCRATCH"}},
      {{1, 4096, "RW"}}};
  for (std::uint64_t i = 0; i < 4; ++i) {
    runtime::trace_event_t e;
    e.id = i;
    e.name = e.codelet = names[i];
    e.model = std::string("starzk_") + names[i];
    e.footprint = 0x1000u + unsigned(i);
    e.could_run = {"cpu"};
    e.worker = int(i % 2);
    e.worker_kind = "cpu";
    e.start_us = 1000.0 * double(i);
    e.end_us = e.start_us + 900;
    e.submit_us = e.ready_us = double(i);
    e.has_chain = true;
    e.last = i == 2;
    e.job = 1;
    e.rc = i == 3 ? STARZK_RC_DEALLOC : STARZK_RC_GPU_CHAIN;
    e.buffers = buffers[i];
    for (const auto& b : e.buffers) e.bytes += b.bytes;
    if (i > 0) e.after = i == 3 ? std::vector<std::uint64_t>{1, 2} : std::vector<std::uint64_t>{i - 1};
    t.events.push_back(e);
    t.submitted.push_back(i);
  }
  t.meta["policy"] = "starzk";
  std::ofstream out(dir / "chain.json", std::ios::binary);
  runtime::write_trace_json(t, out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds OUT\n");
    return 2;
  }
  const fs::path out = argv[1];
  auto dir = [&](const char* target) {
    fs::path d = out / target;
    fs::create_directories(d);
    return d;
  };
  try {
    copy_fixtures(dir("zkey"), "circuit.zkey", true);
    copy_fixtures(dir("r1cs"), "circuit.r1cs");
    copy_fixtures(dir("wtns"), "witness.wtns");
    copy_fixtures(dir("proof_json"), "proof.json");
    copy_fixtures(dir("public_json"), "public.json");
    copy_fixtures(dir("vkey_json"), "verification_key.json");
    manifests(dir("manifest"));
    traces(dir("trace"));

    const r1cs_t cs = read_r1cs(data / "multiplier" / "circuit.r1cs");
    const proving_key_t snarkjs = read_zkey(data / "multiplier" / "circuit.zkey");
    const proving_key_t bellman = setup(cs, root_convention_t::bellman, 1);
    write_params(dir("params") / "multiplier.params", bellman, 1);
    fs::copy_file(out / "params" / "multiplier.params", dir("params_vk") / "multiplier.params",
                  fs::copy_options::overwrite_existing);
    write_key_cache(dir("szkc") / "multiplier-snarkjs.szkc", snarkjs, 1);
    write_key_cache(dir("szkc") / "multiplier-bellman.szkc", bellman, 1);
    write_packed_key(dir("szpk") / "multiplier-snarkjs.szpk", snarkjs, 1);
    write_packed_key(dir("szpk") / "multiplier-bellman.szpk", bellman, 1);
    for (const char* c : {"multiplier", "mimc"}) {
      r1cs_t circuit = read_r1cs(data / c / "circuit.r1cs");
      write_csr_circuit(dir("szcs") / (std::string(c) + "-coded.szcs"), circuit, 1);
      expand_circuit(circuit, 1);
      write_csr_circuit(dir("szcs") / (std::string(c) + "-plain.szcs"), circuit, 1);
    }

    for (const char* c : circuits)
      write_compact_witness(dir("szwt") / (std::string(c) + ".szwt"), read_wtns(data / c / "witness.wtns"), 1);

    std::vector<proof_t> proofs;
    for (const char* c : circuits) proofs.push_back(read_proof_json(data / c / "proof.json"));
    write_proofs_bin(dir("proofs_bin") / "one.proofs", std::span(proofs).first(1));
    write_proofs_bin(dir("proofs_bin") / "three.proofs", proofs);
    std::vector<journal_entry_t> entries;
    for (uint32_t i = 0; i < proofs.size(); ++i) entries.push_back({i, 0x0123456789abcdefull + i, proofs[i]});
    write_journal(dir("journal") / "three.journal", entries);

    validation_record_t r;
    r.digest[0] = 0x5a;
    r.file_size = 55292;
    r.checks = checked_on_curve | checked_subgroup | checked_matrix_indices;
    r.points = 123;
    r.validated_at = 1700000000;
    const auto rec = encode_record(r);
    std::ofstream(dir("record") / "zkey.rec", std::ios::binary)
        .write(reinterpret_cast<const char*>(rec.data()), std::streamsize(rec.size()));
    digest_memo_t m;
    m.stamp = {0x801, 4242, 55292, 1700000000123456789, 1700000000987654321};
    m.taken_ns = 1700000100000000000;
    m.digest[0] = 0x5a;
    const auto memo = encode_memo(m);
    std::ofstream(dir("memo") / "zkey.szdm", std::ios::binary)
        .write(reinterpret_cast<const char*>(memo.data()), std::streamsize(memo.size()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
