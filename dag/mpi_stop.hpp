// mpi_stop.hpp: a stop asked for on one MPI rank reaches every rank while
// they prove, whichever ranks got the signal.
//
// `starzk prove --manifest M --mpi` stops cleanly on SIGUSR1 (what Slurm's
// --signal sends before the time limit, and what mpirun forwards): no more
// partitions are submitted, those in flight finish, rank 0 writes what was
// proved. Slurm signals every task, but not at the same instant, and an
// operator may signal one rank only; a rank that never learns of the stop
// would prove its whole share while the others wait for it in the gather.
//
// Each rank therefore tells every other rank, exactly once, how its
// submission ended: "stopped" (a stop was asked: its own signal or a
// peer's word) or "done" (nothing left to submit). The receives from every
// peer are posted when the object is made, so every word can complete as
// soon as it is sent; between submissions a rank polls them
// (stopped_by) and stops once a peer said "stopped". Before the gather a
// rank sends its own word (if it has not yet) and waits for every peer's
// (wait_all), so no request is outstanding when StarPU-MPI shuts down.
// No hang is possible: every rank sends before it waits, and a send
// waits only for a receive that was posted at the start.
//
// The words travel as StarPU-MPI non-blocking sends and receives
// (starpu_mpi_isend / starpu_mpi_irecv) of a 4-byte StarPU variable
// handle per peer, under a tag of their own; no other channel is used.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <vector>

#include "dag/mpi_session.hpp"

namespace starzk::dag {

class mpi_stop_t {
 public:
  // Collective: every rank makes one, after the mpi_session_t and before
  // it submits anything. Throws std::runtime_error when a receive cannot
  // be posted.
  explicit mpi_stop_t(const mpi_session_t& session);
  // wait_all() if it was not called, then the handles go.
  ~mpi_stop_t();
  mpi_stop_t(const mpi_stop_t&) = delete;
  mpi_stop_t& operator=(const mpi_stop_t&) = delete;

  // Non-blocking: the lowest rank that has said "stopped" so far, or -1.
  int stopped_by();
  // Sends this rank's word to every peer; only the first call sends.
  void announce(bool stopped);
  // announce(false) if not done yet, then waits for every peer's word and
  // for this rank's sends. Returns the lowest rank that said "stopped"
  // (this one included), or -1.
  int wait_all();

 private:
  struct peer_t {
    int32_t word = 0;  // received: 1 stopped, 0 done
    starpu_data_handle_t handle = nullptr;
    void* recv = nullptr;  // its starpu_mpi_req (a void*), until it completed
    void* send = nullptr;  // starpu_mpi_req of this rank's word to the peer
    bool received = false;
  };
  void take(int rank, peer_t& p);  // a completed receive: read its word

  int rank_, size_;
  int32_t mine_ = 0;
  starpu_data_handle_t my_handle_ = nullptr;
  bool announced_ = false, waited_ = false;
  int first_stopped_ = -1;
  std::vector<peer_t> peers_;  // by rank; this rank's entry unused
};

}  // namespace starzk::dag
