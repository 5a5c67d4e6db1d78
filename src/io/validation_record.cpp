// Validation records (validation_record.hpp): the 88-byte encoding, the
// file sample, the folder from the environment, lookup and atomic writing.
#include "io/validation_record.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>

#include "io/atomic_file.hpp"
#include "io/binfile.hpp"
#include "io/checksum.hpp"
#include "io/io_error.hpp"
#include "util/config.hpp"

namespace starzk {

namespace {

constexpr char magic[4] = {'s', 'z', 'v', 'r'};
constexpr uint32_t version = 2;
constexpr size_t sample_at = 72, checksum_at = 80;
static_assert(checksum_at + 8 == validation_record_size);

}  // namespace

uint32_t required_checks(key_format_t format) {
  // .params and .szpk carry no matrices; .zkey and .szkc carry the QAP's A and B.
  const uint32_t points = checked_on_curve | checked_subgroup;
  const bool matrices = format == key_format_t::zkey || format == key_format_t::key_cache;
  return matrices ? points | checked_matrix_indices : points;
}

std::vector<uint8_t> encode_record(const validation_record_t& r) {
  std::vector<uint8_t> b(validation_record_size, 0);
  std::memcpy(b.data(), magic, 4);
  store_u32_le(b.data() + 4, version);
  std::memcpy(b.data() + 8, r.digest.data(), 32);
  store_u64_le(b.data() + 40, r.file_size);
  store_u32_le(b.data() + 48, uint32_t(r.format));
  store_u32_le(b.data() + 52, r.checks);
  store_u64_le(b.data() + 56, r.points);
  store_u64_le(b.data() + 64, r.validated_at);
  store_u64_le(b.data() + sample_at, r.sample);
  store_u64_le(b.data() + checksum_at, xxh64(b.data(), checksum_at));
  return b;
}

std::optional<validation_record_t> decode_record(std::span<const uint8_t> b, std::string* why) {
  auto no = [&](const std::string& w) -> std::optional<validation_record_t> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (b.size() == 80 && std::memcmp(b.data(), magic, 4) == 0 && load_u32_le(b.data() + 4) == 1)
    return no("record version 1 (no sample; this starzk reads version 2)");
  if (b.size() != validation_record_size)
    return no("corrupt record: " + std::to_string(b.size()) + " bytes, a record has " +
              std::to_string(validation_record_size));
  if (std::memcmp(b.data(), magic, 4) != 0) return no("corrupt record: wrong magic");
  if (load_u64_le(b.data() + checksum_at) != xxh64(b.data(), checksum_at))
    return no("corrupt record: checksum mismatch");
  if (load_u32_le(b.data() + 4) != version)
    return no("record version " + std::to_string(load_u32_le(b.data() + 4)) + " (this starzk reads version 2)");
  validation_record_t r;
  std::memcpy(r.digest.data(), b.data() + 8, 32);
  r.file_size = load_u64_le(b.data() + 40);
  const uint32_t format = load_u32_le(b.data() + 48);
  if (format < 1 || format > 4) return no("corrupt record: unknown key format " + std::to_string(format));
  r.format = key_format_t(format);
  r.checks = load_u32_le(b.data() + 52);
  r.points = load_u64_le(b.data() + 56);
  r.validated_at = load_u64_le(b.data() + 64);
  r.sample = load_u64_le(b.data() + sample_at);
  return r;
}

uint64_t file_sample(const std::filesystem::path& file) {
  constexpr size_t blocks = 64, block = 4096;
  std::ifstream f(file, std::ios::binary);
  if (!f) throw io_error(file, "cannot open it to sample it");
  f.seekg(0, std::ios::end);
  const auto end = f.tellg();
  if (end < 0) throw io_error(file, "cannot find its size");
  const uint64_t size = uint64_t(end);
  // The size, then each block's bytes, hashed as one buffer.
  std::vector<uint8_t> buf(8);
  store_u64_le(buf.data(), size);
  auto take = [&](uint64_t at, size_t n) {
    const size_t old = buf.size();
    buf.resize(old + n);
    f.seekg(std::streamoff(at));
    if (!f.read(reinterpret_cast<char*>(buf.data() + old), std::streamsize(n)))
      throw io_error(file, "cannot read " + std::to_string(n) + " bytes at offset " + std::to_string(at));
  };
  if (size <= blocks * block) {
    take(0, size_t(size));
  } else {
    for (size_t i = 0; i < blocks; ++i) take((size - block) * i / (blocks - 1), block);  // the last ends at the end
  }
  return xxh64(buf.data(), buf.size());
}

record_store_t record_store_t::from_env() {
  if (const auto v = config::get_word("STARZK_VALIDATED_KEYS")) {
    if (*v == "off") return record_store_t();
    return record_store_t(*v);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return record_store_t(std::filesystem::path(xdg) / "starzk" / "validated-keys");
  if (const char* home = std::getenv("HOME"); home && *home)
    return record_store_t(std::filesystem::path(home) / ".cache" / "starzk" / "validated-keys");
  record_store_t off;
  off.off_reason_ = "neither STARZK_VALIDATED_KEYS, XDG_CACHE_HOME nor HOME is set";
  return off;
}

std::string record_store_t::where() const { return enabled_ ? dir_.string() : "off: " + off_reason_; }

std::filesystem::path record_store_t::path_of(const digest_t& d) const { return dir_ / (to_hex(d) + ".rec"); }

std::optional<validation_record_t> record_store_t::find(const digest_t& d, uint64_t file_size, key_format_t format,
                                                        std::string* why) const {
  auto no = [&](const std::string& w) -> std::optional<validation_record_t> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (!enabled_) return no("remembering is " + where());
  const std::filesystem::path p = path_of(d);
  std::ifstream f(p, std::ios::binary);
  if (!f) return no("no record");
  std::vector<uint8_t> b(validation_record_size + 1);  // one more: a longer file is corrupt
  f.read(reinterpret_cast<char*>(b.data()), std::streamsize(b.size()));
  b.resize(size_t(f.gcount()));
  const auto r = decode_record(b, why);
  if (!r) return std::nullopt;
  if (r->digest != d) return no("corrupt record: it names another digest");
  if (r->file_size != file_size) return no("corrupt record: it names another file size");
  if (r->format != format) return no("the record is for another key format");
  if ((r->checks & required_checks(format)) != required_checks(format))
    return no("the record lacks checks this format needs");
  return r;
}

bool record_store_t::may_hold(uint64_t file_size, key_format_t format, uint64_t sample, size_t limit) const {
  if (!enabled_) return false;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir_, ec), end;
  for (size_t seen = 0; !ec && it != end && seen < limit; it.increment(ec), ++seen) {
    std::error_code entry;  // a file that vanished or cannot be read is no hint; the scan goes on
    if (it->path().extension() != ".rec" || !it->is_regular_file(entry) || entry ||
        it->file_size(entry) != validation_record_size || entry)
      continue;
    std::ifstream f(it->path(), std::ios::binary);
    std::vector<uint8_t> b(validation_record_size);
    if (!f.read(reinterpret_cast<char*>(b.data()), std::streamsize(b.size()))) continue;
    const auto r = decode_record(b);
    if (r && r->file_size == file_size && r->format == format && r->sample == sample &&
        (r->checks & required_checks(format)) == required_checks(format) && path_of(r->digest) == it->path())
      return true;
  }
  return false;
}

std::string record_store_t::remember(const validation_record_t& r) const {
  if (!enabled_) return "";
  try {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) return dir_.string() + ": cannot create the folder for validation records: " + ec.message();
    const std::vector<uint8_t> bytes = encode_record(r);
    write_file_atomic(path_of(r.digest), std::span<const uint8_t>(bytes));
    return "";
  } catch (const std::exception& e) {
    return std::string("cannot write a validation record: ") + e.what();
  }
}

}  // namespace starzk
