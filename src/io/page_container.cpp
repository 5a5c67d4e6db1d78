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

void write_page_container(const std::filesystem::path& file, std::string_view magic, uint32_t version,
                          std::span<const uint8_t> meta, std::span<const page_section_data_t> sections,
                          unsigned threads) {
  if (magic.size() != 4 || meta.size() % 8 != 0) throw io_error(file, "internal: bad container magic or meta size");
  const uint64_t align = page_container_alignment;
  const uint64_t head = header_size(meta.size(), sections.size());

  // Layout: each non-empty section at the next aligned offset.
  std::vector<page_section_t> table(sections.size());
  uint64_t end = head;
  for (size_t i = 0; i < sections.size(); ++i) {
    page_section_t& t = table[i];
    t.count = sections[i].count;
    t.elem_size = sections[i].elem_size;
    t.offset = align_up(end, align);
    if (t.count != 0) end = t.offset + t.bytes();
    t.checksum = block_checksum({static_cast<const uint8_t*>(sections[i].data), size_t(t.bytes())}, threads);
  }

  std::vector<uint8_t> h(head, 0);
  std::memcpy(h.data(), magic.data(), 4);
  store_u32_le(h.data() + 4, version);
  store_u32_le(h.data() + 8, page_container_bom);
  store_u32_le(h.data() + 12, uint32_t(sections.size()));
  store_u64_le(h.data() + 16, end);
  store_u64_le(h.data() + 24, align);
  store_u64_le(h.data() + 32, meta.size());
  if (!meta.empty()) std::memcpy(h.data() + prefix_size, meta.data(), meta.size());
  uint8_t* e = h.data() + prefix_size + meta.size();
  for (const page_section_t& t : table) {
    store_u64_le(e, t.offset);
    store_u64_le(e + 8, t.count);
    store_u64_le(e + 16, t.elem_size);
    store_u64_le(e + 24, t.checksum);
    e += entry_size;
  }
  store_u64_le(e, xxh64(h.data(), head - 8));

  write_file_atomic(file, [&](atomic_file_t& out) {
    out.write(h.data(), h.size());
    uint64_t pos = head;
    const std::vector<uint8_t> zeros(align, 0);
    for (size_t i = 0; i < sections.size(); ++i) {
      if (table[i].count == 0) continue;
      out.write(zeros.data(), table[i].offset - pos);
      out.write(sections[i].data, table[i].bytes());
      pos = table[i].offset + table[i].bytes();
    }
  });
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
    fail("unsupported version " + std::to_string(v) + " (this build reads version" +
         (layouts.size() > 1 ? "s " : " ") + known + "; remake the file)");
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
  if (size < head) fail("truncated: the header needs " + std::to_string(head) + " bytes, the file has " + std::to_string(size));
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
    if (s.offset % align != 0) fail(what + " at offset " + std::to_string(s.offset) + " is misaligned (not a multiple of " + std::to_string(align) + ")");
    if (s.count == 0) continue;
    if (s.offset < end) fail(what + " at offset " + std::to_string(s.offset) + " overlaps the header or the previous section");
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
    const std::span<const uint8_t> bytes = s.count ? std::span<const uint8_t>(file_.data() + s.offset, s.bytes())
                                                   : std::span<const uint8_t>();
    if (block_checksum(bytes, threads) != s.checksum) {
      fail("section " + std::to_string(i) + " (" + names_[i] + "): checksum mismatch, the data is corrupt");
    }
  }
}

void page_container_t::fail(const std::string& problem) const { throw io_error(file_.path(), problem); }

}  // namespace starzk
