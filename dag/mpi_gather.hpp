// mpi_gather.hpp: finished partitions travel from their owner rank to
// rank 0, which writes every output; and rank 0's verdict travels back.
//
// Each partition's result (status, the 192-byte compressed proof, its
// public inputs, its label and, when it failed, the message naming the
// partition and the phase) is put in two StarPU data handles on its owner:
// a fixed-size header (a variable handle) and a payload (a vector of bytes
// whose length the header gives). Both are registered with StarPU-MPI
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
#include <map>
#include <vector>

#include "dag/batch.hpp"
#include "dag/mpi_session.hpp"

namespace starzk::dag {

// Collective: every rank calls it with the same `count` (partitions in the
// batch, global indices 0 .. count-1) and the results of the partitions it
// owns (partition_owner(p, size) == rank), keyed by global index; the job
// field is not carried (rank 0 knows each partition's job from its index).
// Rank 0 gets all `count` results in global order; other ranks get an
// empty vector. A partition whose owner has no result for it comes back
// failed, with a message naming the partition and the rank. Throws
// std::runtime_error when a transfer cannot be decoded.
std::vector<partition_result_t> gather_results(const mpi_session_t& session, size_t count,
                                               const std::map<size_t, partition_result_t>& local);

// Collective: rank 0's `status` on every rank (other ranks' argument is ignored).
int share_status(const mpi_session_t& session, int status);

}  // namespace starzk::dag
