// A proof's output set and the proofs .bin file (proof_files.hpp).
#include "io/proof_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "groth16/proof_bytes.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/output_set.hpp"
#include "io/proof_json.hpp"

namespace starzk {

std::vector<std::filesystem::path> proof_outputs_t::members() const {
  std::vector<std::filesystem::path> m;
  for (const auto* p : {&public_json, &proof_bin, &proof_json})
    if (!p->empty()) m.push_back(*p);
  return m;
}

void write_proof_outputs(const proof_outputs_t& o, const proof_t& proof, std::span<const fr_t> publics) {
  const std::vector<std::filesystem::path> m = o.members();
  if (m.empty()) return;
  output_set_t set(m);
  size_t i = 0;
  if (!o.public_json.empty()) set.write(i++, std::string_view(public_json_text(publics)));
  if (!o.proof_bin.empty()) set.write(i++, std::span<const uint8_t>(encode_proof(proof)));
  if (!o.proof_json.empty()) set.write(i++, std::string_view(proof_json_text(proof)));
  set.commit();
}

size_t clean_proof_outputs(const proof_outputs_t& o) {
  const std::vector<std::filesystem::path> m = o.members();
  return clean_output_set(m);
}

std::vector<proof_t> read_proofs_bin(const std::filesystem::path& file, size_t expected) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw io_error(file, std::string("cannot open: ") + std::strerror(errno));
  struct closer_t {
    int fd;
    ~closer_t() { ::close(fd); }
  } closer{fd};
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) throw io_error(file, std::string("cannot read: ") + std::strerror(errno));
  // The size first: nothing is read from a file of the wrong length.
  if (uint64_t(size) != uint64_t(expected) * proof_bytes_size) {
    throw io_error(file, "is " + std::to_string(size) + " bytes: " + std::to_string(expected) + " proof(s) of " +
                             std::to_string(proof_bytes_size) + " bytes need " +
                             std::to_string(uint64_t(expected) * proof_bytes_size));
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  for (size_t got = 0; got < bytes.size();) {
    const ssize_t k = ::pread(fd, bytes.data() + got, bytes.size() - got, off_t(got));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) throw io_error(file, "short read");
    got += size_t(k);
  }
  std::vector<proof_t> proofs;
  proofs.reserve(expected);
  for (size_t i = 0; i < expected; ++i) {
    try {
      proofs.push_back(decode_proof(std::span<const uint8_t>(bytes).subspan(i * proof_bytes_size, proof_bytes_size)));
    } catch (const std::invalid_argument& e) {
      throw io_error(file, "proof " + std::to_string(i) + ": " + e.what());
    }
  }
  return proofs;
}

void write_proofs_bin(const std::filesystem::path& file, std::span<const proof_t> proofs) {
  atomic_file_t f(file);
  for (const proof_t& p : proofs) f.write(std::span<const uint8_t>(encode_proof(p)));
  f.commit();
}

}  // namespace starzk
