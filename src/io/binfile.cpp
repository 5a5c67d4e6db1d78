// The iden3 container: bounded reading and in-memory writing (binfile.hpp).
#include "io/binfile.hpp"

#include <cerrno>
#include <cstring>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"

namespace starzk {

// ---- bin_cursor_t ------------------------------------------------------------

void bin_cursor_t::fail(const std::string& problem) const { throw io_error(*file_, what_ + ": " + problem); }

void bin_cursor_t::need(size_t n) const {
  if (n > remaining()) {
    fail("truncated: needs " + std::to_string(n) + " more bytes at offset " + std::to_string(pos_) + " of " +
         std::to_string(size_));
  }
}

uint32_t bin_cursor_t::u32() {
  need(4);
  const uint32_t v = load_u32_le(data_ + pos_);
  pos_ += 4;
  return v;
}

uint64_t bin_cursor_t::u64() {
  need(8);
  const uint64_t v = load_u64_le(data_ + pos_);
  pos_ += 8;
  return v;
}

std::span<const uint8_t> bin_cursor_t::bytes(size_t n) {
  need(n);
  std::span<const uint8_t> s(data_ + pos_, n);
  pos_ += n;
  return s;
}

void bin_cursor_t::need_elements(uint64_t count, uint64_t elem_size, const char* what_elements) const {
  // count * elem_size <= remaining, without overflowing 64 bits.
  if (elem_size != 0 && count > remaining() / elem_size) {
    fail("length lies: " + std::to_string(count) + " " + what_elements + " of " + std::to_string(elem_size) +
         " bytes do not fit in the " + std::to_string(remaining()) + " bytes left");
  }
}

void bin_cursor_t::expect_end() const {
  if (pos_ != size_) {
    fail("length lies: " + std::to_string(size_ - pos_) + " unexpected trailing bytes (section is " +
         std::to_string(size_) + " bytes, content ends at " + std::to_string(pos_) + ")");
  }
}

// ---- bin_file_t --------------------------------------------------------------

bin_file_t::bin_file_t(const std::filesystem::path& file, std::string_view magic, uint32_t min_version,
                       uint32_t max_version)
    : path_(file), map_(file), data_(map_.data()), size_(map_.size()) {
  bin_cursor_t c(data_, size_, &path_, "file header");
  if (size_ < 12) {
    fail("too short for a '" + std::string(magic) + "' file (" + std::to_string(size_) + " bytes)");
  }
  auto m = c.bytes(4);
  if (std::memcmp(m.data(), magic.data(), 4) != 0) {
    std::string found;
    for (uint8_t ch : m) found += (ch >= 32 && ch < 127) ? char(ch) : '?';
    fail("wrong magic: expected '" + std::string(magic) + "', found '" + found + "'");
  }
  version_ = c.u32();
  if (version_ < min_version || version_ > max_version) {
    fail("unsupported version " + std::to_string(version_) + " (supported: " + std::to_string(min_version) +
         (min_version == max_version ? "" : "-" + std::to_string(max_version)) + ")");
  }
  const uint32_t n = c.u32();
  c.need_elements(n, 12, "section headers");
  sections_.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (c.remaining() < 12) {
      fail("truncated: section header " + std::to_string(i) + " of " + std::to_string(n) + " at offset " +
           std::to_string(c.offset()) + " is cut off");
    }
    bin_section_t s{};
    s.id = c.u32();
    s.size = c.u64();
    s.offset = c.offset();
    if (s.size > c.remaining()) {
      fail("truncated: section " + std::to_string(s.id) + " claims " + std::to_string(s.size) + " bytes but only " +
           std::to_string(c.remaining()) + " remain");
    }
    c.skip(size_t(s.size));
    sections_.push_back(s);
  }
  if (c.remaining() != 0) fail(std::to_string(c.remaining()) + " trailing bytes after the last section");
}

void bin_file_t::fail(const std::string& problem) const { throw io_error(path_, problem); }

bool bin_file_t::has(uint32_t id) const {
  for (const auto& s : sections_) {
    if (s.id == id) return true;
  }
  return false;
}

std::optional<bin_cursor_t> bin_file_t::optional_section(uint32_t id, const char* name) const {
  const bin_section_t* found = nullptr;
  const std::string what = "section " + std::to_string(id) + " (" + name + ")";
  for (const auto& s : sections_) {
    if (s.id != id) continue;
    if (found) fail(what + " appears more than once");
    found = &s;
  }
  if (!found) return std::nullopt;
  return bin_cursor_t(data_ + found->offset, size_t(found->size), &path_, what);
}

bin_cursor_t bin_file_t::section(uint32_t id, const char* name) const {
  auto c = optional_section(id, name);
  if (!c) fail("section " + std::to_string(id) + " (" + name + ") is missing");
  return *c;
}

// ---- bin_writer_t ------------------------------------------------------------

bin_writer_t::bin_writer_t(std::string_view magic, uint32_t version, uint32_t n_sections) : n_sections_(n_sections) {
  buf_.insert(buf_.end(), magic.begin(), magic.end());
  buf_.resize(4, ' ');
  u32(version);
  u32(n_sections);
}

void bin_writer_t::u32(uint32_t v) { store_u32_le(extend(4), v); }
void bin_writer_t::u64(uint64_t v) { store_u64_le(extend(8), v); }

uint8_t* bin_writer_t::extend(size_t n) {
  const size_t at = buf_.size();
  buf_.resize(at + n);
  return buf_.data() + at;
}

void bin_writer_t::begin_section(uint32_t id) {
  end_section();
  u32(id);
  open_ = buf_.size();
  u64(0);
}

void bin_writer_t::end_section() {
  if (!open_) return;
  store_u64_le(buf_.data() + *open_, uint64_t(buf_.size() - *open_ - 8));
  open_.reset();
  ++written_;
}

void bin_writer_t::save(const std::filesystem::path& file) const {
  if (open_ || written_ != n_sections_) {
    throw io_error(file, "internal: container has " + std::to_string(written_ + (open_ ? 1 : 0)) +
                             " sections, header says " + std::to_string(n_sections_) +
                             (open_ ? " (one still open)" : ""));
  }
  write_file_atomic(file, std::span<const uint8_t>(buf_));
}

}  // namespace starzk
