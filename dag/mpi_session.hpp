// mpi_session.hpp: StarPU-MPI on top of a running StarPU, as one RAII
// object, and the static placement of partitions on ranks.
//
// Multi-node proving (docs/slurm.md) runs one process per node (an MPI rank),
// each with its own StarPU driving all the cores and GPUs of its node. The
// StarPU session (runtime/starpu_session.hpp) is started first, with the
// scheduling policy the user chose; starpu_mpi_init() then attaches
// StarPU-MPI to it and initialises MPI itself (MPI_Init_thread from
// StarPU-MPI's progress thread) unless the program already did. The
// communicator is MPI_COMM_WORLD, as launched by `mpirun -np N` or
// `srun --mpi=pmix`. The destructor calls starpu_mpi_shutdown(), which
// finalises MPI if StarPU-MPI initialised it, so the session must end
// before the StarPU session does.
//
// Placement: partition p (its index over the whole batch, in manifest
// order) is owned by rank p mod size. The owner reads its witness, runs its
// DAG and holds its proof; everything a partition writes lives on its
// owner, which is how StarPU-MPI decides where work runs. Round-robin over
// the global index spreads every job of j >= size partitions over all
// ranks and keeps consecutive partitions (similar sizes) apart.
#pragma once

#include <cstddef>

namespace starzk::dag {

class mpi_session_t {
 public:
  // StarPU must be running. Throws std::runtime_error when StarPU-MPI
  // cannot start.
  mpi_session_t();
  ~mpi_session_t();
  mpi_session_t(const mpi_session_t&) = delete;
  mpi_session_t& operator=(const mpi_session_t&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }

  // Waits until every rank gets here (starpu_mpi_barrier).
  void barrier() const;

  // Ends every rank of the run at once with `code` (MPI_Abort): for a
  // failure that leaves this rank unable to take part in a collective
  // step, which would otherwise leave the other ranks waiting for it.
  [[noreturn]] static void abort_all(int code);

 private:
  int rank_ = 0;
  int size_ = 1;
};

// The rank that owns partition `global_index` of the batch (p mod size).
inline int partition_owner(size_t global_index, int size) {
  return size > 0 ? static_cast<int>(global_index % static_cast<size_t>(size)) : 0;
}

}  // namespace starzk::dag
