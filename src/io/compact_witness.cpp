// The compact witness file and the witness reader for both formats
// (compact_witness.hpp).
#include "io/compact_witness.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <fstream>
#include <string>

#include "io/binfile.hpp"
#include "io/io_error.hpp"
#include "io/page_container.hpp"
#include "io/wtns.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

constexpr char magic[] = "szwt";
constexpr uint32_t version = 1;
constexpr uint64_t meta_size = 16;
constexpr size_t block_words = 1024;  // 65536 values per decoding task

uint64_t words_of(uint64_t n) { return (n + 63) / 64; }
uint64_t blocks_of(uint64_t words) { return (words + block_words - 1) / block_words; }
uint64_t pages(uint64_t bytes) { return (bytes + page_container_alignment - 1) / page_container_alignment; }

// The lowest index that failed and why, as one number (index · 8 + reason,
// indices < 2^32), so threads agree on both at once.
struct first_error_t {
  std::atomic<uint64_t> key{UINT64_MAX};
  void note(uint64_t i, int reason) {
    const uint64_t k = i * 8 + uint64_t(reason);
    uint64_t seen = key.load();
    while (k < seen && !key.compare_exchange_weak(seen, k)) {
    }
  }
  bool any() const { return key.load() != UINT64_MAX; }
  uint64_t at() const { return key.load() / 8; }
  int why() const { return int(key.load() % 8); }
};

}  // namespace

uint64_t other_values(std::span<const fr_t> w) {
  return uint64_t(std::count_if(w.begin(), w.end(), [](const fr_t& v) { return !v.is_zero() && !v.is_one(); }));
}

uint64_t compact_witness_bytes(uint64_t n, uint64_t n_other) {
  // The header (well under a page), then each section at the next page;
  // the file ends with the last non-empty section.
  const uint64_t bitmap = 8 * words_of(n), a = page_container_alignment;
  const uint64_t other_at = a + pages(bitmap) * a, values_at = other_at + pages(bitmap) * a;
  return n_other ? values_at + 32 * n_other : other_at + bitmap;
}

void write_compact_witness(const std::filesystem::path& file, std::span<const fr_t> w, unsigned threads) {
  if (w.size() > UINT32_MAX) throw io_error(file, "witness too large for the .szwt format (2^32 - 1 values at most)");
  const uint64_t n = w.size(), words = words_of(n), blocks = blocks_of(words);
  // Pass 1: the other values of each block, for where its values go.
  std::vector<uint64_t> first(blocks + 1, 0);
  parallel_tasks(blocks, threads, [&](size_t b) {
    const uint64_t end = std::min<uint64_t>(n, (b + 1) * block_words * 64);
    const uint64_t begin = b * block_words * 64;
    first[b + 1] = other_values(w.subspan(begin, end - begin));
  });
  for (uint64_t b = 0; b < blocks; ++b) first[b + 1] += first[b];
  const uint64_t n_other = first[blocks];

  const page_section_t sections[3] = {{0, words, 8, 0}, {0, words, 8, 0}, {0, n_other, 32, 0}};
  page_container_writer_t out(file, magic, version, meta_size, sections);
  store_u64_le(out.meta().data(), n);
  store_u64_le(out.meta().data() + 8, n_other);
  const std::span<uint64_t> ones = out.section<uint64_t>(0), other = out.section<uint64_t>(1);
  const std::span<uint8_t> values = out.bytes(2);
  // Pass 2: the bitmaps and the values, each block on its own.
  parallel_tasks(blocks, threads, [&](size_t b) {
    uint64_t k = first[b];
    const uint64_t w_end = std::min<uint64_t>(words, (b + 1) * block_words);
    for (uint64_t j = b * block_words; j < w_end; ++j) {
      uint64_t o = 0, x = 0;
      const uint64_t end = std::min<uint64_t>(n, 64 * (j + 1));
      for (uint64_t i = 64 * j; i < end; ++i) {
        const uint64_t bit = uint64_t(1) << (i % 64);
        if (w[i].is_one()) {
          o |= bit;
        } else if (!w[i].is_zero()) {
          x |= bit;
          w[i].to_bytes_le(values.data() + 32 * k++);
        }
      }
      store_u64_le(reinterpret_cast<uint8_t*>(&ones[j]), o);
      store_u64_le(reinterpret_cast<uint8_t*>(&other[j]), x);
    }
  });
  out.commit(threads);
}

namespace {

struct opened_t {
  page_container_t c;
  uint64_t n = 0, n_other = 0;
};

// Opens the file and checks its header and section sizes against its
// metadata (so what a caller allocates for n_values is backed by n / 8
// bytes of bitmaps in the file).
opened_t open_checked(const std::filesystem::path& file) {
  opened_t o{page_container_t(file, magic, version, meta_size, {"ones", "other", "values"})};
  const page_container_t& c = o.c;
  const uint64_t n = o.n = load_u64_le(c.meta().data()), n_other = o.n_other = load_u64_le(c.meta().data() + 8);
  if (n == 0) c.fail("the witness is empty (wire 0 = 1 is always present)");
  if (n > UINT32_MAX) c.fail("n_values " + std::to_string(n) + " exceeds 2^32 - 1");
  const uint64_t words = words_of(n);
  for (size_t s = 0; s < 2; ++s)
    if (c.section(s).count != words || c.section(s).elem_size != 8)
      c.fail("section " + std::to_string(s) + " (" + c.name(s) + ") holds " + std::to_string(c.section(s).count) +
             " elements of " + std::to_string(c.section(s).elem_size) + " bytes, expected " + std::to_string(words) +
             " words for " + std::to_string(n) + " values");
  if (c.section(2).count != n_other || c.section(2).elem_size != 32)
    c.fail("section 2 (values) holds " + std::to_string(c.section(2).count) + " elements of " +
           std::to_string(c.section(2).elem_size) + " bytes, the metadata says " + std::to_string(n_other) +
           " values of 32");
  return o;
}

// Checks the bitmaps and the stored values and decodes them into out
// (out.size() == o.n).
void decode(const opened_t& o, std::span<fr_t> out, unsigned threads) {
  const page_container_t& c = o.c;
  const uint64_t n = o.n, n_other = o.n_other, words = words_of(n), blocks = blocks_of(words);
  c.verify_checksums(threads);
  const std::span<const uint64_t> ones = c.span<uint64_t>(0), other = c.span<uint64_t>(1);
  const uint8_t* values = c.bytes(2).data();

  // Pass 1: per block, its other values (where its stored values start),
  // and the bitmaps' consistency.
  enum { twice = 1, past_end, not_canonical, stored_0_or_1 };
  first_error_t bad;
  const uint64_t tail = n % 64 ? ~uint64_t(0) << (n % 64) : 0;  // bits past the last value
  std::vector<uint64_t> first(blocks + 1, 0);
  parallel_tasks(blocks, threads, [&](size_t b) {
    const uint64_t w_end = std::min<uint64_t>(words, (b + 1) * block_words);
    uint64_t k = 0;
    for (uint64_t j = b * block_words; j < w_end; ++j) {
      const uint64_t o = load_u64_le(reinterpret_cast<const uint8_t*>(&ones[j]));
      const uint64_t x = load_u64_le(reinterpret_cast<const uint8_t*>(&other[j]));
      if (o & x) bad.note(64 * j + std::countr_zero(o & x), twice);
      if (j == words - 1 && ((o | x) & tail)) bad.note(64 * j + std::countr_zero((o | x) & tail), past_end);
      k += std::popcount(x);
    }
    first[b + 1] = k;
  });
  if (bad.any()) {
    const std::string i = std::to_string(bad.at());
    c.fail(bad.why() == twice ? "value " + i + " is marked both 1 and other"
                              : "a bit is set past the last value (bit " + i + " of " + std::to_string(n) + ")");
  }
  for (uint64_t b = 0; b < blocks; ++b) first[b + 1] += first[b];
  if (first[blocks] != n_other)
    c.fail("the other bitmap marks " + std::to_string(first[blocks]) + " values, the metadata says " +
           std::to_string(n_other));

  // Pass 2: the values, each block on its own.
  parallel_tasks(blocks, threads, [&](size_t b) {
    uint64_t k = first[b];
    const uint64_t w_end = std::min<uint64_t>(words, (b + 1) * block_words);
    for (uint64_t j = b * block_words; j < w_end; ++j) {
      const uint64_t o = load_u64_le(reinterpret_cast<const uint8_t*>(&ones[j]));
      const uint64_t x = load_u64_le(reinterpret_cast<const uint8_t*>(&other[j]));
      const uint64_t end = std::min<uint64_t>(n, 64 * (j + 1));
      for (uint64_t i = 64 * j; i < end; ++i) {
        const uint64_t bit = uint64_t(1) << (i % 64);
        if (x & bit) {
          if (!fr_t::from_bytes_le(values + 32 * k++, out[i])) return bad.note(i, not_canonical);
          if (out[i].is_zero() || out[i].is_one()) return bad.note(i, stored_0_or_1);
        } else {
          out[i] = (o & bit) ? fr_t::one() : fr_t::zero();
        }
      }
    }
  });
  if (bad.any()) {
    const std::string i = std::to_string(bad.at());
    c.fail(bad.why() == not_canonical ? "value " + i + " is not below r (not a canonical Fr value)"
                                      : "value " + i + " is stored as other but is 0 or 1");
  }
  if (!out[0].is_one()) c.fail("value 0 (the constant wire) is not 1");
}

}  // namespace

void read_compact_witness_into(const std::filesystem::path& file, std::span<fr_t> out, unsigned threads) {
  const opened_t o = open_checked(file);
  if (o.n != out.size()) throw witness_count_error(file, o.n, out.size());
  decode(o, out, threads);
}

std::vector<fr_t> read_compact_witness(const std::filesystem::path& file, unsigned threads) {
  const opened_t o = open_checked(file);
  std::vector<fr_t> w(o.n);
  decode(o, w, threads);
  return w;
}

bool is_compact_witness(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[4] = {};
  return in.read(head, 4) && std::memcmp(head, magic, 4) == 0;
}

void read_witness_into(const std::filesystem::path& file, std::span<fr_t> out) {
  if (is_compact_witness(file))
    read_compact_witness_into(file, out);
  else
    read_wtns_into(file, out);
}

std::vector<fr_t> read_witness(const std::filesystem::path& file, uint32_t expected_n_vars) {
  if (!is_compact_witness(file)) return read_wtns(file, expected_n_vars);
  std::vector<fr_t> w(expected_n_vars);
  read_compact_witness_into(file, w);
  return w;
}

}  // namespace starzk
