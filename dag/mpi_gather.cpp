// mpi_gather.cpp: partition results to rank 0 through StarPU-MPI data
// transfers, rank 0's status and shared bytes back to every rank (see
// mpi_gather.hpp).
//
// Wire form of one partition (both halves registered with StarPU-MPI, the
// owner as their rank):
//   header  (fixed size): state (0 failed, 1 ok, 2 no result),
//           n_publics, label_bytes, error_bytes, the 192-byte compressed
//           proof (zeros unless ok)
//   payload (omitted when empty): the public inputs
//           (n_publics F_r elements as stored), then the label, then the error.
#include "dag/mpi_gather.hpp"

#include <starpu.h>
#include <starpu_mpi.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "groth16/proof_bytes.hpp"

namespace starzk::dag {

namespace {

static_assert(std::is_trivially_copyable_v<fr_t>, "public inputs cross as raw bytes");

// StarPU-MPI data tags (64-bit, carried in StarPU-MPI's own envelope; each
// must be unique among the handles registered at once): the status, the
// shared bytes, then two per partition.
constexpr starpu_mpi_tag_t tag_status = 0x3A000000;
constexpr starpu_mpi_tag_t tag_bytes = tag_status + 1;
constexpr starpu_mpi_tag_t tag_base = tag_status + 2;

enum : uint32_t { state_failed = 0, state_ok = 1, state_none = 2 };

struct wire_header_t {
  uint32_t state = state_none;
  uint32_t n_publics = 0;
  uint32_t label_bytes = 0;
  uint32_t error_bytes = 0;
  uint8_t proof[proof_bytes_size] = {};
};
static_assert(std::is_trivially_copyable_v<wire_header_t>);

size_t payload_bytes(const wire_header_t& h) {
  return size_t(h.n_publics) * sizeof(fr_t) + h.label_bytes + h.error_bytes;
}

// `bytes` at `data` as a StarPU handle (a vector of bytes) registered with
// StarPU-MPI, `owner` holding the data.
starpu_data_handle_t register_bytes(void* data, size_t bytes, int owner, starpu_mpi_tag_t tag) {
  starpu_data_handle_t h = nullptr;
  starpu_vector_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(data), uint32_t(bytes), 1);
  starpu_mpi_data_register(h, tag, owner);
  return h;
}

// Brings `bytes` at `data` (significant on `owner` only) to `to`'s copy at
// the same address. Only `owner` and `to` call it.
void move_bytes(void* data, size_t bytes, int owner, int to, starpu_mpi_tag_t tag) {
  starpu_data_handle_t h = register_bytes(data, bytes, owner, tag);
  starpu_mpi_get_data_on_node(MPI_COMM_WORLD, h, to);
  starpu_data_unregister(h);  // on `to`: the received replica is now in `data`
}

// Rank 0's `bytes` at `data` to every rank's copy, one rank after another.
void root_to_all(const mpi_session_t& session, void* data, size_t bytes, starpu_mpi_tag_t tag) {
  if (bytes == 0) return;
  for (int r = 1; r < session.size(); ++r)
    if (session.rank() == 0 || session.rank() == r) move_bytes(data, bytes, 0, r, tag);
}

wire_header_t make_header(const partition_result_t& r) {
  wire_header_t h;
  h.state = r.ok ? state_ok : state_failed;
  h.n_publics = uint32_t(r.publics.size());
  h.label_bytes = uint32_t(r.label.size());
  h.error_bytes = uint32_t(r.error.size());
  if (r.ok) {
    const auto bytes = encode_proof(r.proof);
    std::memcpy(h.proof, bytes.data(), bytes.size());
  }
  return h;
}

std::vector<uint8_t> make_payload(const partition_result_t& r) {
  std::vector<uint8_t> out(r.publics.size() * sizeof(fr_t) + r.label.size() + r.error.size());
  uint8_t* p = out.data();
  if (!r.publics.empty()) std::memcpy(p, r.publics.data(), r.publics.size() * sizeof(fr_t));
  p += r.publics.size() * sizeof(fr_t);
  std::memcpy(p, r.label.data(), r.label.size());
  p += r.label.size();
  std::memcpy(p, r.error.data(), r.error.size());
  return out;
}

partition_result_t read_wire(size_t index, const wire_header_t& h, const std::vector<uint8_t>& payload) {
  partition_result_t r;
  r.index = uint32_t(index);
  r.ok = h.state == state_ok;
  const uint8_t* p = payload.data();
  r.publics.resize(h.n_publics);
  if (h.n_publics) std::memcpy(r.publics.data(), p, size_t(h.n_publics) * sizeof(fr_t));
  p += size_t(h.n_publics) * sizeof(fr_t);
  r.label.assign(reinterpret_cast<const char*>(p), h.label_bytes);
  p += h.label_bytes;
  r.error.assign(reinterpret_cast<const char*>(p), h.error_bytes);
  if (r.ok) {
    try {
      r.proof = decode_proof(std::span<const uint8_t>(h.proof, proof_bytes_size));
    } catch (const std::exception& e) {
      throw std::runtime_error("MPI gather: partition " + std::to_string(index) + " (" + r.label +
                               "): the proof received from its rank does not decode: " + e.what());
    }
  }
  return r;
}

}  // namespace

std::vector<std::optional<partition_result_t>> gather_results(const mpi_session_t& session, size_t count,
                                                              const std::map<size_t, partition_result_t>& local) {
  const int me = session.rank();
  std::vector<std::optional<partition_result_t>> all;
  if (me == 0) all.resize(count);
  for (size_t p = 0; p < count; ++p) {
    const int owner = partition_owner(p, session.size());
    if (me != owner && me != 0) continue;
    const auto it = me == owner ? local.find(p) : local.end();
    if (owner == 0) {  // rank 0 owns it: nothing moves
      if (it != local.end()) {
        all[p] = it->second;
        all[p]->index = uint32_t(p);
      }
      continue;
    }
    wire_header_t header = it != local.end() ? make_header(it->second) : wire_header_t{};
    move_bytes(&header, sizeof header, owner, 0, tag_base + 2 * starpu_mpi_tag_t(p));
    if (header.state == state_none) continue;  // no result on its owner: no payload either
    std::vector<uint8_t> payload =
        it != local.end() ? make_payload(it->second) : std::vector<uint8_t>(payload_bytes(header));
    if (!payload.empty()) move_bytes(payload.data(), payload.size(), owner, 0, tag_base + 2 * starpu_mpi_tag_t(p) + 1);
    if (me == 0) all[p] = read_wire(p, header, payload);
  }
  return all;
}

int share_status(const mpi_session_t& session, int status) {
  int32_t value = session.is_root() ? int32_t(status) : 0;
  root_to_all(session, &value, sizeof value, tag_status);
  return int(value);
}

void share_bytes(const mpi_session_t& session, std::vector<uint8_t>& bytes) {
  root_to_all(session, bytes.data(), bytes.size(), tag_bytes);
}

}  // namespace starzk::dag
