// mpi_gather.hpp: finished partitions travel from their owner rank to
// rank 0, which writes every output; rank 0's verdict (and what an
// earlier run finished) travels back.
//
// Each partition's result (status, the 192-byte compressed proof, its
// public inputs, its label and, when it failed, the message naming the
// partition and the phase; or "no result") is put in two StarPU data
// handles on its owner: a fixed-size header and a payload whose length
// the header gives, each a StarPU vector of bytes. Both are registered with StarPU-MPI
// (starpu_mpi_data_register) with the owner as their rank, and
// starpu_mpi_get_data_on_node brings them to rank 0: StarPU-MPI sends from
// the owner and receives into rank 0's replica; no other channel is used.
// The partitions go in global order, the same on every rank, so the
// blocking send / receive pairs always match.
//
// The proof crosses in its canonical compressed form (encode_proof), so
// rank 0 decodes, and thereby checks, every point it writes; public inputs
// cross as raw F_r elements (all ranks run the same binary).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "dag/batch.hpp"
#include "dag/mpi_session.hpp"

namespace starzk::dag {

// Collective: every rank calls it with the same `count` (partitions in the
// batch, global indices 0 .. count-1) and the results of the partitions it
// owns (partition_owner(p, size) == rank), keyed by global index; the job
// field is not carried (rank 0 knows each partition's job from its index).
// Rank 0 gets `count` entries in global order; other ranks get an empty
// vector. A partition whose owner has no result for it (never submitted:
// the batch was stopped, or an earlier run finished it) comes back empty.
// Throws std::runtime_error when a transfer cannot be decoded.
std::vector<std::optional<partition_result_t>> gather_results(const mpi_session_t& session, size_t count,
                                                              const std::map<size_t, partition_result_t>& local);

// Collective: rank 0's `status` on every rank (other ranks' argument is ignored).
int share_status(const mpi_session_t& session, int status);

// Collective: rank 0's `bytes` on every rank; every rank passes a vector
// of the same size (other ranks' contents are overwritten).
void share_bytes(const mpi_session_t& session, std::vector<uint8_t>& bytes);

}  // namespace starzk::dag
