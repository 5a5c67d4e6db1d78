// Fuzz targets of starzk's own binary formats: the key cache (.szkc), the
// CSR circuit (.szcs), the packed key (.szpk) with its circuit, the compact
// witness (.szwt), a proofs .bin file, the batch journal and a validation
// record.
//
// The page containers are resealed first (fuzz_input.hpp), so mutations
// reach the metadata, the section table and the sections' contents instead
// of stopping at a checksum. Each is then used the way the CLI uses it:
//   .szkc  opened with the header check, its verifying key taken (`verify`),
//          copied out, then validated (every point and matrix index, as
//          `cache --check` does but without the subgroup tests, which are
//          arithmetic on decoded points and slow), and read as `prove`
//          reads it (read_key_cache, on_curve);
//   .szcs  read_csr_circuit (checksums and every index, what load_circuit
//          does), and the view's own to_r1cs after validate();
//   .szpk  opened, its verifying key unpacked, the whole key unpacked on
//          the CPU (without subgroup tests), the snarkjs rows rebuilt from the
//          multiplier circuit (as cli/inputs.cpp does for a packed zkey)
//          and the prover's input check against that circuit;
//   .szwt  read whole (read_compact_witness), and into the multiplier's
//          witness count as a partition's fill reads it;
//   .bin   read as N proofs for the N its size implies, and as one;
//   journal, record and memo: read_journal (at most 64 partitions),
//          decode_record and decode_memo.
#include <vector>

#include "fuzz_input.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "io/batch_journal.hpp"
#include "io/compact_witness.hpp"
#include "io/csr_circuit.hpp"
#include "io/digest_memo.hpp"
#include "io/key_cache.hpp"
#include "io/packed_key.hpp"
#include "io/proof_files.hpp"
#include "io/r1cs.hpp"
#include "io/validation_record.hpp"
#include "io/wtns.hpp"

namespace starzk::fuzz {

namespace {

std::filesystem::path resealed(std::span<const uint8_t> in, const char* name) {
  std::vector<uint8_t> b(in.begin(), in.end());
  reseal_container(b);
  return write_scratch(b, name);
}

void szkc(std::span<const uint8_t> in) {
  const auto p = resealed(in, "input.szkc");
  accepts([&] {
    const key_cache_view_t v(p, cache_check_t::header, 1);
    (void)v.vk();
    (void)v.to_proving_key();
    v.validate(1, false);
  });
  accepts([&] { (void)read_key_cache(p, cache_check_t::on_curve, 1); });
}

void szcs(std::span<const uint8_t> in) {
  const auto p = resealed(in, "input.szcs");
  accepts([&] { (void)read_csr_circuit(p, 1); });
  accepts([&] {
    const csr_circuit_view_t v(p, false, 1);
    v.validate(1);
    check_r1cs_shape(p, v.to_r1cs());
  });
}

void szpk(std::span<const uint8_t> in) {
  const auto p = resealed(in, "input.szpk");
  accepts([&] {
    const packed_key_view_t view(p);
    const auto dec = cpu_point_decoder(1);
    (void)unpack_packed_vk(view, *dec);
    proving_key_t pk = unpack_packed_key(view, false, *dec, 1);
    if (pk.convention == root_convention_t::snarkjs) zkey_matrices(circuit(), pk.domain_size, pk.zkey_a, pk.zkey_b);
    accepts<prove_error>([&] { check_prover_inputs(pk, &circuit(), witness(), 1); });
  });
}

void szwt(std::span<const uint8_t> in) {
  const auto p = resealed(in, "input.szwt");
  accepts([&] { (void)read_compact_witness(p, 1); });
  std::vector<fr_t> out(witness().size());
  accepts([&] { read_witness_into(p, out); });
}

void proofs_bin(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.proofs");
  accepts([&] { (void)read_proofs_bin(p, in.size() / 192 ? in.size() / 192 : 1); });
  accepts([&] { (void)read_proofs_bin(p, 1); });
}

void journal(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.journal");
  journal_read_t r;
  if (!accepts([&] { r = read_journal(p, 64); })) return;
  for (const journal_entry_t& e : r.entries)
    if (e.partition >= 64) std::abort();  // the reader promised to refuse it
}

void record(std::span<const uint8_t> in) {
  std::string why;
  const auto r = decode_record(in, &why);
  // What decodes must encode to the same bytes.
  if (r && encode_record(*r) != std::vector<uint8_t>(in.begin(), in.end())) std::abort();
}

void memo(std::span<const uint8_t> in) {
  std::string why;
  const auto m = decode_memo(in, &why);
  if (m && encode_memo(*m) != std::vector<uint8_t>(in.begin(), in.end())) std::abort();
}

const target_t targets[] = {
    {"szkc", szkc},       {"szcs", szcs},     {"szpk", szpk}, {"szwt", szwt}, {"proofs_bin", proofs_bin},
    {"journal", journal}, {"record", record}, {"memo", memo},
};

}  // namespace

std::span<const target_t> mapped_targets() { return targets; }

}  // namespace starzk::fuzz
