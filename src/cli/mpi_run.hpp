// mpi_run.hpp: `starzk prove --manifest M --mpi`, the batch spread over the
// ranks of an MPI launch (mpirun -np N, or srun --mpi=pmix), one StarPU-MPI
// process per node. Built only with StarPU-MPI (STARZK_HAVE_MPI).
//
// Every rank reads the manifest and starts StarPU with the same options as
// the single-process path (cmd_batch.cpp), then StarPU-MPI on top of it.
// Partition p of the batch (in manifest order, over all jobs) is owned by
// rank p mod N (dag/mpi_session.hpp): only its owner reads its witness and
// runs its DAG, with the key loaded once per rank (and only for the jobs
// that have a partition there), registered as that rank's read-only
// handles. The finished partitions move to rank 0 through StarPU-MPI data
// transfers (dag/mpi_gather.hpp); rank 0 writes every output exactly as the
// single-process path does (proof-<i>.json, public-<i>.json, then the
// job's .bin when all its partitions succeeded, each file atomically) and
// reports every failed partition by name. All ranks then exit with rank
// 0's status. A rank that cannot take part (StarPU-MPI or the manifest
// fails there) ends the whole run (MPI_Abort) with a message naming its rank.
#pragma once

#include "cli/batch_run.hpp"

namespace starzk::cli {

// Returns the exit status, the same on every rank (0: every proof written).
int run_manifest_mpi(const batch_run_options_t& options);

}  // namespace starzk::cli
