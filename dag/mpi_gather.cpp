// mpi_gather.cpp: partition results to rank 0 through StarPU-MPI data
// transfers, rank 0's status back to every rank (see mpi_gather.hpp).
//
// Wire form of one partition (both halves registered with StarPU-MPI, the
// owner as their rank):
//   header  (variable handle): ok, n_publics, label_bytes, error_bytes,
//           the 192-byte compressed proof (zeros when !ok)
//   payload (vector of bytes, omitted when empty): the public inputs
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
// must be unique among the handles registered at once): one for the
// status, then two per partition.
constexpr starpu_mpi_tag_t tag_status = 0x3A000000;
constexpr starpu_mpi_tag_t tag_base = tag_status + 1;

struct wire_header_t {
  uint32_t ok = 0;
  uint32_t n_publics = 0;
  uint32_t label_bytes = 0;
  uint32_t error_bytes = 0;
  uint8_t proof[proof_bytes_size] = {};
};
static_assert(std::is_trivially_copyable_v<wire_header_t>);

size_t payload_bytes(const wire_header_t& h) {
  return size_t(h.n_publics) * sizeof(fr_t) + h.label_bytes + h.error_bytes;
}

// Brings `bytes` at `data` (significant on `owner` only) to rank 0's copy
// at the same address, as a StarPU handle registered with StarPU-MPI.
// Ranks other than the owner and rank 0 must not call it.
void move_to_root(void* data, size_t bytes, bool as_vector, int owner, starpu_mpi_tag_t tag) {
  starpu_data_handle_t h = nullptr;
  if (as_vector)
    starpu_vector_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(data), uint32_t(bytes), 1);
  else
    starpu_variable_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(data), bytes);
  starpu_mpi_data_register(h, tag, owner);
  starpu_mpi_get_data_on_node(MPI_COMM_WORLD, h, 0);
  starpu_data_unregister(h);  // rank 0: the received replica is now in `data`
}

wire_header_t make_header(const partition_result_t& r) {
  wire_header_t h;
  h.ok = r.ok ? 1 : 0;
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
  r.ok = h.ok != 0;
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

std::vector<partition_result_t> gather_results(const mpi_session_t& session, size_t count,
                                               const std::map<size_t, partition_result_t>& local) {
  const int me = session.rank();
  std::vector<partition_result_t> all;
  if (me == 0) all.resize(count);
  for (size_t p = 0; p < count; ++p) {
    const int owner = partition_owner(p, session.size());
    if (me != owner && me != 0) continue;
    partition_result_t mine;
    if (me == owner) {
      if (auto it = local.find(p); it != local.end()) {
        mine = it->second;
      } else {
        mine.ok = false;
        mine.label = "partition " + std::to_string(p);
        mine.error = "partition " + std::to_string(p) + ": rank " + std::to_string(me) + " owns it but has no result";
      }
      mine.index = uint32_t(p);
    }
    if (owner == 0) {  // rank 0 owns it: nothing moves
      all[p] = std::move(mine);
      continue;
    }
    wire_header_t header = me == owner ? make_header(mine) : wire_header_t{};
    move_to_root(&header, sizeof header, false, owner, tag_base + 2 * starpu_mpi_tag_t(p));
    std::vector<uint8_t> payload = me == owner ? make_payload(mine) : std::vector<uint8_t>(payload_bytes(header));
    if (!payload.empty())
      move_to_root(payload.data(), payload.size(), true, owner, tag_base + 2 * starpu_mpi_tag_t(p) + 1);
    if (me == 0) all[p] = read_wire(p, header, payload);
  }
  return all;
}

int share_status(const mpi_session_t& session, int status) {
  int32_t value = session.is_root() ? int32_t(status) : 0;
  for (int r = 1; r < session.size(); ++r) {
    if (session.rank() != 0 && session.rank() != r) continue;
    starpu_data_handle_t h = nullptr;
    starpu_variable_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&value), sizeof value);
    starpu_mpi_data_register(h, tag_status, 0);
    starpu_mpi_get_data_on_node(MPI_COMM_WORLD, h, r);
    starpu_data_unregister(h);
  }
  return int(value);
}

}  // namespace starzk::dag
