// The batch journal (batch_journal.hpp).
#include "io/batch_journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include "groth16/proof_bytes.hpp"
#include "io/atomic_file.hpp"
#include "io/checksum.hpp"
#include "io/io_error.hpp"

namespace starzk {

namespace {

constexpr const char* header_line = "starzk-journal 1\n";
// "<partition> <16 hex> <384 hex> <16 hex>\n", partition at most 10 digits.
constexpr size_t max_line = 10 + 1 + 16 + 1 + 2 * proof_bytes_size + 1 + 16 + 1;

std::string hex16(uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

bool parse_hex(const std::string& s, uint8_t* out, size_t n) {
  if (s.size() != 2 * n) return false;
  for (size_t i = 0; i < 2 * n; ++i) {
    const char c = s[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    out[i / 2] = uint8_t(i % 2 ? out[i / 2] | d : d << 4);
  }
  return true;
}

bool parse_u64_hex(const std::string& s, uint64_t& v) {
  uint8_t b[8];
  if (!parse_hex(s, b, 8)) return false;
  v = 0;
  for (uint8_t x : b) v = v << 8 | x;
  return true;
}

// One line without its newline; false when it is torn or corrupt.
bool parse_line(const std::string& line, size_t max_entries, journal_entry_t& e) {
  const size_t last = line.rfind(' ');
  if (last == std::string::npos) return false;
  uint64_t check = 0;
  if (!parse_u64_hex(line.substr(last + 1), check) || check != xxh64(line.data(), last)) return false;
  const size_t s1 = line.find(' '), s2 = line.find(' ', s1 + 1);
  if (s1 == 0 || s1 > 10 || s2 == std::string::npos || s2 >= last) return false;
  const std::string part = line.substr(0, s1);
  if (part.find_first_not_of("0123456789") != std::string::npos) return false;
  const uint64_t p = std::stoull(part);
  if (p >= max_entries) return false;
  e.partition = uint32_t(p);
  if (!parse_u64_hex(line.substr(s1 + 1, s2 - s1 - 1), e.inputs)) return false;
  uint8_t bytes[proof_bytes_size];
  if (!parse_hex(line.substr(s2 + 1, last - s2 - 1), bytes, proof_bytes_size)) return false;
  try {
    e.proof = decode_proof(std::span<const uint8_t>(bytes, proof_bytes_size));
  } catch (const std::invalid_argument&) {
    return false;
  }
  return true;
}

}  // namespace

std::string journal_line(const journal_entry_t& e) {
  std::string s = std::to_string(e.partition) + " " + hex16(e.inputs) + " ";
  for (uint8_t b : encode_proof(e.proof)) {
    char h[3];
    std::snprintf(h, sizeof h, "%02x", b);
    s += h;
  }
  const uint64_t check = xxh64(s.data(), s.size());  // everything before the check's space
  s += " " + hex16(check) + "\n";
  return s;
}

journal_read_t read_journal(const std::filesystem::path& file, size_t max_entries) {
  journal_read_t out;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return out;
  const uint64_t size = std::filesystem::file_size(file, ec);
  if (ec) throw io_error(file, "cannot read the journal: " + ec.message());
  // Every partition may have been appended a few times over reruns before
  // write_journal compacted the file; more than 4 lines each is not a journal.
  const uint64_t limit = 64 + 4 * uint64_t(max_entries) * max_line;
  if (size > limit) {
    throw io_error(file, "journal of " + std::to_string(size) + " bytes, more than " + std::to_string(limit) + " for " +
                             std::to_string(max_entries) + " partitions");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw io_error(file, "cannot open the journal");
  std::string line;
  if (!std::getline(in, line) || line + "\n" != header_line)
    throw io_error(file, "not a starzk batch journal (first line is not 'starzk-journal 1')");
  std::map<uint32_t, journal_entry_t> by_partition;
  while (std::getline(in, line)) {
    journal_entry_t e;
    if (line.size() < max_line && parse_line(line, max_entries, e))
      by_partition[e.partition] = e;
    else
      ++out.skipped;
  }
  for (auto& [p, e] : by_partition) out.entries.push_back(e);
  return out;
}

void write_journal(const std::filesystem::path& file, const std::vector<journal_entry_t>& entries) {
  std::string text = header_line;
  for (const journal_entry_t& e : entries) text += journal_line(e);
  write_file_atomic(file, std::string_view(text));
}

journal_appender_t::journal_appender_t(const std::filesystem::path& file) : file_(file) {
  fd_ = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) throw io_error(file, std::string("cannot open the journal for appending: ") + std::strerror(errno));
}

journal_appender_t::~journal_appender_t() {
  if (fd_ >= 0) ::close(fd_);
}

void journal_appender_t::append(const journal_entry_t& e) {
  const std::string line = journal_line(e);
  // One write of a short line to an O_APPEND file: a kill leaves it whole or
  // torn at its end, and a torn line fails its check when read.
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t k = ::write(fd_, line.data() + done, line.size() - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) throw io_error(file_, std::string("cannot append to the journal: ") + std::strerror(errno));
    done += size_t(k);
  }
  if (::fsync(fd_) != 0) throw io_error(file_, std::string("cannot sync the journal: ") + std::strerror(errno));
}

}  // namespace starzk
