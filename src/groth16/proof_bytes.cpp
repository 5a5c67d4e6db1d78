// The 192-byte compressed proof form; see proof_bytes.hpp.
#include "groth16/proof_bytes.hpp"

#include <stdexcept>

#include "ec/encoding.hpp"

namespace starzk {

std::array<uint8_t, proof_bytes_size> encode_proof(const proof_t& p) {
  std::array<uint8_t, proof_bytes_size> out{};
  encode_g1_compressed(p.a, out.data());
  encode_g2_compressed(p.b, out.data() + 48);
  encode_g1_compressed(p.c, out.data() + 144);
  return out;
}

proof_t decode_proof(std::span<const uint8_t> bytes) {
  if (bytes.size() != proof_bytes_size)
    throw std::invalid_argument("a proof is 192 bytes, got " + std::to_string(bytes.size()));
  proof_t p;
  auto check = [](decode_status s, const char* what) {
    if (s != decode_status::ok) throw std::invalid_argument(std::string("proof point ") + what + ": " + describe(s));
  };
  check(decode_g1_compressed(bytes.data(), p.a), "A");
  check(decode_g2_compressed(bytes.data() + 48, p.b), "B");
  check(decode_g1_compressed(bytes.data() + 144, p.c), "C");
  return p;
}

std::vector<proof_t> decode_proofs(std::span<const uint8_t> bytes) {
  if (bytes.size() % proof_bytes_size != 0)
    throw std::invalid_argument("proof file length " + std::to_string(bytes.size()) +
                                " is not a multiple of 192 bytes");
  std::vector<proof_t> out;
  for (size_t off = 0; off < bytes.size(); off += proof_bytes_size)
    out.push_back(decode_proof(bytes.subspan(off, proof_bytes_size)));
  return out;
}

}  // namespace starzk
