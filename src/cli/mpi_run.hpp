// mpi_run.hpp: `starzk prove --manifest M --mpi`, the batch spread over the
// ranks of an MPI launch (mpirun -np N, or srun --mpi=pmix), one StarPU-MPI
// process per node. Built only with StarPU-MPI (STARZK_HAVE_MPI).
//
// Every rank reads the manifest and starts StarPU with the same options as
// the single-process path (cmd_batch.cpp), then StarPU-MPI on top of it.
// Partition p of the batch (in manifest order, over all jobs) is owned by
// rank p mod N (dag/mpi_session.hpp): only its owner reads its witness and
// runs its DAG, with the key loaded once per rank (and only for the jobs
// that have a partition to prove there), registered as that rank's
// read-only handles. The finished partitions move to rank 0 through
// StarPU-MPI data transfers (dag/mpi_gather.hpp); rank 0 writes every
// output exactly as the single-process path does (proof-<i>.json,
// public-<i>.json, then the job's .bin when all its partitions succeeded,
// each file atomically), reports every failed partition by name, and
// writes M.complete or M.partial (batch_marker.hpp). All ranks then exit
// with rank 0's status. A rank that cannot take part (StarPU-MPI or the
// manifest fails there) ends the whole run (MPI_Abort) with a message
// naming its rank.
//
// Resume: rank 0 alone reads the journals (batch_outputs.hpp) and tells
// every rank which partitions an earlier run finished; their owners skip
// them, as the single-process path does.
//
// Stop: SIGUSR1 on any rank (batch_watch.hpp) stops submission on every
// rank (dag/mpi_stop.hpp carries the word); the partitions in flight
// finish and are gathered, rank 0 writes them and M.partial, and every
// rank exits with status 5. A rank that gets no signal learns of the stop
// from the others, so no rank waits for a share that will not come.
//
// Test hook (hidden, tests only): --test-mpi-stop signal makes a rank send
// itself SIGUSR1 right after submitting its first partition, and waits
// until the watch has taken it; --test-mpi-stop await makes a rank wait,
// after its first partition, until another rank says it stopped. Together
// they stop a run of two ranks at a known point (tests/mpi/mpi_stop_test.sh).
#pragma once

#include "cli/batch_run.hpp"

namespace starzk::cli {

// Returns the exit status, the same on every rank (0: every proof written,
// 1: some partition failed, 5: stopped by SIGUSR1 with partitions left).
int run_manifest_mpi(const batch_run_options_t& options);

}  // namespace starzk::cli
