// Generated jobs on disk: formats, disk planning, the packed key sink
// (write.hpp).
#include "gen/write.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <system_error>

#include "groth16/witness_map.hpp"
#include "io/compact_witness.hpp"
#include "io/csr_circuit.hpp"
#include "io/io_error.hpp"
#include "io/key_cache.hpp"
#include "io/packed_key.hpp"
#include "io/params.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"

namespace starzk {

namespace {

constexpr uint64_t gib = uint64_t(1) << 30;

void make_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw std::runtime_error(dir.string() + ": cannot create the output directory" +
                             (ec ? ": " + ec.message() : std::string()));
}

// Bytes the circuit file takes: .r1cs stores 4 + 32 bytes per term and 12
// per row; .szcs 8 per row pointer and 4 per column plus 2 per code (coded
// matrices) or 32 per value.
uint64_t circuit_bytes(const r1cs_t& cs, gen_format_t f) {
  uint64_t b = 1 << 20;
  for (const sparse_matrix_t* m : {&cs.a, &cs.b, &cs.c}) {
    if (f == gen_format_t::iden3)
      b += 36 * m->nnz() + 4 * m->n_rows;
    else
      b += 8 * (m->n_rows + 1) + 4 * m->nnz() + (m->coded() ? 2 : 32) * m->nnz() + 2 * 4096 + (1 << 21);
  }
  return b;
}

// An upper bound of the key file: every wire dense in A and B.
uint64_t key_bytes(const r1cs_t& cs, gen_format_t f, root_convention_t conv) {
  const uint64_t n = domain_size_for(cs), nv = cs.n_vars;
  if (f == gen_format_t::compact) {
    packed_key_shape_t sh{conv, cs.n_vars, cs.n_public, n, nv, nv};
    return sh.file_bytes();
  }
  uint64_t b = 96 * (3 * nv + n) + 192 * nv + (1 << 20);
  if (conv == root_convention_t::snarkjs) b += 44 * (cs.a.nnz() + cs.b.nnz() + cs.n_public + 1);
  return b;
}

std::string gb(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(gib));
  return buf;
}

}  // namespace

packed_key_sink_t::packed_key_sink_t(std::filesystem::path file, unsigned threads)
    : file_(std::move(file)), threads_(threads) {}
packed_key_sink_t::~packed_key_sink_t() = default;

void packed_key_sink_t::begin(const key_layout_t& l) {
  w_ = std::make_unique<packed_key_writer_t>(
      file_, packed_key_shape_t{l.convention, l.n_vars, l.n_public, l.domain_size, l.n_a, l.n_b});
  std::copy(l.a_density.begin(), l.a_density.end(), w_->density(packed_section_t::a_density).begin());
  std::copy(l.b_density.begin(), l.b_density.end(), w_->density(packed_section_t::b_density).begin());
  w_->set_head(l.head);
}

// key_query_t and packed_section_t list the queries in the same order.
static_assert(int(key_query_t::b_g2) == int(packed_section_t::b_g2) && int(key_query_t::ic) == 0);

void packed_key_sink_t::put(key_query_t q, uint64_t first, std::span<const g1_affine_t> pts) {
  w_->put(static_cast<packed_section_t>(q), first, pts);
}
void packed_key_sink_t::put(key_query_t q, uint64_t first, std::span<const g2_affine_t> pts) {
  w_->put(static_cast<packed_section_t>(q), first, pts);
}

void packed_key_sink_t::commit() {
  if (!w_) throw io_error(file_, "internal: the setup never described the key");
  w_->commit(threads_);
}

gen_format_t parse_gen_format(const std::string& s, unsigned log2_domain) {
  if (s == "iden3") return gen_format_t::iden3;
  if (s == "compact") return gen_format_t::compact;
  if (s == "auto") return log2_domain >= 24 ? gen_format_t::compact : gen_format_t::iden3;
  throw std::invalid_argument("--format: '" + s + "' is not one of auto, iden3, compact");
}

std::string generated_witness_name(uint64_t partition, gen_format_t format) {
  return "witness-" + std::to_string(partition) + (format == gen_format_t::compact ? ".szwt" : ".wtns");
}

void write_packed_dev_key(const r1cs_t& cs, root_convention_t convention, const setup_options_t& options,
                          const std::filesystem::path& file, unsigned threads) {
  packed_key_sink_t sink(file, threads);
  setup_to(cs, convention, options, sink);
  sink.commit();
}

gen_job_files_t write_generated_job(const gen_params_t& params, const std::filesystem::path& dir,
                                    const gen_job_options_t& o) {
  if (o.partitions == 0) throw std::invalid_argument("gen: at least one partition");
  make_dir(dir);
  const r1cs_t cs = generate_circuit(params, o.threads);
  const bool compact = o.format == gen_format_t::compact;
  const bool bellman = o.convention == root_convention_t::bellman;
  gen_job_files_t files;
  files.circuit = dir / (compact ? "circuit.szcs" : "circuit.r1cs");
  files.key = dir / (o.key_cache ? "key.szkc" : compact ? "key.szpk" : bellman ? "key.params" : "key.zkey");

  // Disk planning, before the first byte is written.
  const uint64_t c_bytes = circuit_bytes(cs, o.format);
  const uint64_t k_bytes = o.key ? key_bytes(cs, o.key_cache ? gen_format_t::iden3 : o.format, o.convention) : 0;
  // A compact witness's size depends on its values: witness 0's stands for
  // all (every witness of the shape has the same mix, give or take a few).
  std::vector<fr_t> w0 = generate_witness(params, cs, 0, o.threads);
  uint64_t w_bytes = 32 * uint64_t(cs.n_vars) + 4096;
  if (compact) {
    const uint64_t other = other_values(w0);
    w_bytes = compact_witness_bytes(w0.size(), other + other / 16 + 64);
  }
  std::error_code ec;
  const uint64_t avail = std::filesystem::space(dir, ec).available;
  const uint64_t fixed = c_bytes + k_bytes + gib / 4;  // a margin for the file system
  uint32_t distinct = o.distinct ? std::min(o.distinct, o.partitions) : o.partitions;
  if (!ec) {
    if (avail < fixed + w_bytes)
      throw io_error(dir, "not enough free disk space: the circuit (" + gb(c_bytes) + "), the key (up to " +
                              gb(k_bytes) + ") and one witness (" + gb(w_bytes) + ") need more than the " + gb(avail) +
                              " free");
    const uint64_t fit = (avail - fixed) / w_bytes;
    if (o.distinct == 0)
      distinct = uint32_t(std::min<uint64_t>(distinct, fit));
    else if (fit < distinct)
      throw io_error(dir, "not enough free disk space for " + std::to_string(distinct) + " witnesses of " +
                              gb(w_bytes) + " beside the circuit and key (" + gb(avail) + " free)");
  }
  files.distinct = distinct;

  if (compact)
    write_csr_circuit(files.circuit, cs, o.threads);
  else
    write_r1cs(files.circuit, cs);
  if (o.progress) o.progress(files.circuit);
  for (uint32_t i = 0; i < distinct; ++i) {
    const std::filesystem::path file = dir / generated_witness_name(i, o.format);
    const std::vector<fr_t> w = i == 0 ? std::move(w0) : generate_witness(params, cs, i, o.threads);
    if (compact)
      write_compact_witness(file, w, o.threads);
    else
      write_wtns(file, w);
    if (o.progress) o.progress(file);
  }
  for (uint32_t i = 0; i < o.partitions; ++i)
    files.witnesses.push_back(dir / generated_witness_name(i % distinct, o.format));
  if (o.key) {
    if (o.key_cache)
      write_key_cache(files.key, setup(cs, o.convention, o.setup), o.threads);
    else if (compact)
      write_packed_dev_key(cs, o.convention, o.setup, files.key, o.threads);
    else if (bellman)
      write_params(files.key, setup(cs, o.convention, o.setup));
    else
      write_zkey(files.key, setup(cs, o.convention, o.setup));
    if (o.progress) o.progress(files.key);
  }
  return files;
}

void write_generated(const gen_params_t& params, const std::filesystem::path& dir, uint32_t partitions,
                     unsigned threads, const gen_progress_fn& progress) {
  gen_job_options_t o;
  o.partitions = partitions;
  o.distinct = partitions;
  o.key = false;
  o.threads = threads;
  o.progress = progress;
  write_generated_job(params, dir, o);
}

}  // namespace starzk
