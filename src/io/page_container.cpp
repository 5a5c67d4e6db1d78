// The page-aligned container: writer and validating reader
// (page_container.hpp).
#include "io/page_container.hpp"

#include <cstring>

#include "io/atomic_file.hpp"
#include "io/binfile.hpp"
#include "io/checksum.hpp"
#include "io/io_error.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

constexpr uint64_t prefix_size = 40;  // magic .. meta_size
constexpr uint64_t entry_size = 32;   // offset, count, elem_size, checksum

uint64_t header_size(uint64_t meta_size, uint64_t n_sections) {
  return prefix_size + meta_size + entry_size * n_sections + 8;
}

}  // namespace

page_container_writer_t::page_container_writer_t(const std::filesystem::path& file, std::string_view magic,
                                                 uint32_t version, uint64_t meta_size,
                                                 std::span<const page_section_t> sections)
    : out_(file), magic_(magic), version_(version), meta_size_(meta_size), table_(sections.begin(), sections.end()) {
  if (magic.size() != 4 || meta_size % 8 != 0) throw io_error(file, "internal: bad container magic or meta size");
  // Layout: each non-empty section at the next aligned offset.
  size_ = header_size(meta_size, table_.size());
  for (page_section_t& t : table_) {
    if (t.elem_size == 0) throw io_error(file, "internal: a section has elements of 0 bytes");
    t.offset = align_up(size_, page_container_alignment);
    if (t.count != 0) size_ = t.offset + t.bytes();
  }
  base_ = out_.map_writable(size_);
}

void page_container_writer_t::check_elem_size(size_t i, size_t want) const {
  if (i >= table_.size() || table_[i].elem_size != want)
    throw io_error(out_.target(), "internal: section " + std::to_string(i) + " does not hold " + std::to_string(want) +
                                      "-byte elements");
}

void page_container_writer_t::commit(unsigned threads) {
  // The mapping starts zeroed (a reserved, never written range reads as
  // zeros), so the padding between sections is already zero.
  uint8_t* h = base_;
  std::memcpy(h, magic_.data(), 4);
  store_u32_le(h + 4, version_);
  store_u32_le(h + 8, page_container_bom);
  store_u32_le(h + 12, uint32_t(table_.size()));
  store_u64_le(h + 16, size_);
  store_u64_le(h + 24, page_container_alignment);
  store_u64_le(h + 32, meta_size_);
  uint8_t* e = h + prefix_size + meta_size_;
  for (page_section_t& t : table_) {
    t.checksum = block_checksum(
        t.count ? std::span<const uint8_t>(base_ + t.offset, size_t(t.bytes())) : std::span<const uint8_t>(), threads);
    store_u64_le(e, t.offset);
    store_u64_le(e + 8, t.count);
    store_u64_le(e + 16, t.elem_size);
    store_u64_le(e + 24, t.checksum);
    e += entry_size;
  }
  const uint64_t head = header_size(meta_size_, table_.size());
  store_u64_le(e, xxh64(h, head - 8));
  out_.commit();
}

void write_page_container(const std::filesystem::path& file, std::string_view magic, uint32_t version,
                          std::span<const uint8_t> meta, std::span<const page_section_data_t> sections,
                          unsigned threads) {
  std::vector<page_section_t> table(sections.size());
  for (size_t i = 0; i < sections.size(); ++i) table[i] = {0, sections[i].count, sections[i].elem_size, 0};
  page_container_writer_t w(file, magic, version, meta.size(), table);
  if (!meta.empty()) std::memcpy(w.meta().data(), meta.data(), meta.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    const std::span<uint8_t> dst = w.bytes(i);
    const auto* src = static_cast<const uint8_t*>(sections[i].data);
    parallel_for(
        dst.size(), threads, [&](size_t b, size_t e) { std::memcpy(dst.data() + b, src + b, e - b); }, size_t(8) << 20);
  }
  w.commit(threads);
}

page_container_t::page_container_t(const std::filesystem::path& file, std::string_view magic, uint32_t version,
                                   uint64_t meta_size, std::vector<std::string> section_names)
    : file_(file) {
  const page_layout_t layout{version, meta_size, std::move(section_names)};
  open(magic, {&layout, 1});
}

page_container_t::page_container_t(const std::filesystem::path& file, std::string_view magic,
                                   std::span<const page_layout_t> layouts)
    : file_(file) {
  open(magic, layouts);
}

void page_container_t::open(std::string_view magic, std::span<const page_layout_t> layouts) {
  const uint8_t* d = file_.data();
  const uint64_t size = file_.size();
  if (size < prefix_size) {
    fail("truncated: " + std::to_string(size) + " bytes is too short for a '" + std::string(magic) + "' header");
  }
  if (std::memcmp(d, magic.data(), 4) != 0) {
    std::string found;
    for (int i = 0; i < 4; ++i) found += (d[i] >= 32 && d[i] < 127) ? char(d[i]) : '?';
    fail("wrong magic: expected '" + std::string(magic) + "', found '" + found + "'");
  }
  const uint32_t v = load_u32_le(d + 4);
  const page_layout_t* layout = nullptr;
  std::string known;
  for (const page_layout_t& l : layouts) {
    if (l.version == v) layout = &l;
    known += (known.empty() ? "" : ", ") + std::to_string(l.version);
  }
  if (layout == nullptr) {
    fail("unsupported version " + std::to_string(v) + " (this build reads version" + (layouts.size() > 1 ? "s " : " ") +
         known + "; remake the file)");
  }
  version_ = v;
  names_ = layout->section_names;
  const uint64_t meta_size = layout->meta_size;
  if (load_u32_le(d + 8) != page_container_bom) {
    fail("wrong byte order mark: the file was written on a host of another byte order");
  }
  const uint64_t n = load_u32_le(d + 12);
  if (n != names_.size()) {
    fail("has " + std::to_string(n) + " sections, expected " + std::to_string(names_.size()));
  }
  const uint64_t m = load_u64_le(d + 32);
  if (m != meta_size) fail("metadata of " + std::to_string(m) + " bytes, expected " + std::to_string(meta_size));
  const uint64_t head = header_size(m, n);
  if (size < head)
    fail("truncated: the header needs " + std::to_string(head) + " bytes, the file has " + std::to_string(size));
  if (load_u64_le(d + head - 8) != xxh64(d, head - 8)) fail("header checksum mismatch: the header is corrupt");
  const uint64_t declared = load_u64_le(d + 16);
  if (declared != size) {
    fail((size < declared ? "truncated: " : "") + std::string("the header says ") + std::to_string(declared) +
         " bytes, the file has " + std::to_string(size));
  }
  const uint64_t align = load_u64_le(d + 24);
  if (align != page_container_alignment) {
    fail("section alignment " + std::to_string(align) + ", expected " + std::to_string(page_container_alignment));
  }
  meta_ = {d + prefix_size, size_t(m)};

  sections_.resize(n);
  const uint8_t* e = d + prefix_size + m;
  uint64_t end = head;  // end of the bytes used so far
  for (size_t i = 0; i < n; ++i, e += entry_size) {
    page_section_t& s = sections_[i];
    s.offset = load_u64_le(e);
    s.count = load_u64_le(e + 8);
    s.elem_size = load_u64_le(e + 16);
    s.checksum = load_u64_le(e + 24);
    const std::string what = "section " + std::to_string(i) + " (" + names_[i] + ")";
    if (s.elem_size == 0 || s.count > size / s.elem_size) {
      fail(what + ": " + std::to_string(s.count) + " elements of " + std::to_string(s.elem_size) +
           " bytes cannot fit in the file");
    }
    if (s.offset % align != 0)
      fail(what + " at offset " + std::to_string(s.offset) + " is misaligned (not a multiple of " +
           std::to_string(align) + ")");
    if (s.count == 0) continue;
    if (s.offset < end)
      fail(what + " at offset " + std::to_string(s.offset) + " overlaps the header or the previous section");
    if (s.offset > size || s.bytes() > size - s.offset) {
      fail("truncated: " + what + " needs " + std::to_string(s.bytes()) + " bytes at offset " +
           std::to_string(s.offset) + ", the file has " + std::to_string(size));
    }
    end = s.offset + s.bytes();
  }
  if (end != size) fail(std::to_string(size - end) + " trailing bytes after the last section");
}

void page_container_t::check_elem_size(size_t i, size_t want) const {
  if (sections_[i].elem_size != want) {
    fail("section " + std::to_string(i) + " (" + names_[i] + ") has elements of " +
         std::to_string(sections_[i].elem_size) + " bytes, expected " + std::to_string(want));
  }
}

void page_container_t::verify_checksums(unsigned threads) const {
  for (size_t i = 0; i < sections_.size(); ++i) {
    const page_section_t& s = sections_[i];
    const std::span<const uint8_t> bytes =
        s.count ? std::span<const uint8_t>(file_.data() + s.offset, s.bytes()) : std::span<const uint8_t>();
    if (block_checksum(bytes, threads) != s.checksum) {
      fail("section " + std::to_string(i) + " (" + names_[i] + "): checksum mismatch, the data is corrupt");
    }
  }
}

void page_container_t::fail(const std::string& problem) const { throw io_error(file_.path(), problem); }

}  // namespace starzk
