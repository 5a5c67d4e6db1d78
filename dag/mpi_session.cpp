// mpi_session.cpp: StarPU-MPI start-up and shut-down (see mpi_session.hpp).
#include "dag/mpi_session.hpp"

#include <starpu.h>
#include <starpu_mpi.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace starzk::dag {

namespace {

void check(int rc, const char* call) {
  if (rc != 0)
    throw std::runtime_error(std::string("StarPU-MPI: ") + call + " failed (code " + std::to_string(rc) + ")");
}

}  // namespace

mpi_session_t::mpi_session_t() {
  if (!starpu_is_initialized()) throw std::runtime_error("StarPU-MPI: StarPU is not running");
  // initialize_mpi = 1: StarPU-MPI calls MPI_Init_thread itself when the
  // program has not (MPI_Initialized is checked first).
  check(starpu_mpi_init(nullptr, nullptr, 1), "starpu_mpi_init");
  try {
    check(starpu_mpi_comm_rank(MPI_COMM_WORLD, &rank_), "starpu_mpi_comm_rank");
    check(starpu_mpi_comm_size(MPI_COMM_WORLD, &size_), "starpu_mpi_comm_size");
  } catch (...) {
    starpu_mpi_shutdown();
    throw;
  }
}

mpi_session_t::~mpi_session_t() { starpu_mpi_shutdown(); }

void mpi_session_t::barrier() const { check(starpu_mpi_barrier(MPI_COMM_WORLD), "starpu_mpi_barrier"); }

void mpi_session_t::abort_all(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace starzk::dag
