// mpi_stop.cpp: every rank's word on how its submission ended, sent to
// every other rank (see mpi_stop.hpp).
//
// Per peer: one receive posted at construction into a 4-byte variable
// handle of its own, and one send of this rank's word (all sends read the
// same handle). starpu_mpi_test polls a receive without blocking; once it
// says the receive completed, the request is gone (it must not be tested
// again) and the word is read through starpu_data_acquire, which also
// orders the read after StarPU-MPI's write.
#include "dag/mpi_stop.hpp"

#include <starpu_mpi.h>

#include <stdexcept>
#include <string>

namespace starzk::dag {

namespace {

// StarPU-MPI tag of the words (apart from mpi_gather.cpp's 0x3A...).
constexpr starpu_mpi_tag_t tag_stop_word = 0x3B000000;

void check(int rc, const char* call) {
  if (rc != 0)
    throw std::runtime_error(std::string("StarPU-MPI stop exchange: ") + call + " failed (code " + std::to_string(rc) +
                             ")");
}

starpu_data_handle_t register_word(int32_t* word) {
  starpu_data_handle_t h = nullptr;
  starpu_variable_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(word), sizeof *word);
  return h;
}

}  // namespace

mpi_stop_t::mpi_stop_t(const mpi_session_t& session)
    : rank_(session.rank()), size_(session.size()), peers_(size_t(session.size())) {
  my_handle_ = register_word(&mine_);
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    peer_t& p = peers_[size_t(r)];
    p.handle = register_word(&p.word);
    check(starpu_mpi_irecv(p.handle, &p.recv, r, tag_stop_word, MPI_COMM_WORLD), "starpu_mpi_irecv");
  }
}

mpi_stop_t::~mpi_stop_t() {
  try {
    wait_all();
  } catch (const std::exception&) {
    // A request that cannot be waited for: the handles are left registered
    // (unregistering them would wait for it); the process is ending.
    return;
  }
  for (peer_t& p : peers_)
    if (p.handle) starpu_data_unregister(p.handle);
  starpu_data_unregister(my_handle_);
}

void mpi_stop_t::take(int rank, peer_t& p) {
  p.received = true;
  p.recv = nullptr;
  starpu_data_acquire(p.handle, STARPU_R);
  const int32_t word = p.word;
  starpu_data_release(p.handle);
  if (word != 0 && (first_stopped_ < 0 || rank < first_stopped_)) first_stopped_ = rank;
}

int mpi_stop_t::stopped_by() {
  for (int r = 0; r < size_; ++r) {
    peer_t& p = peers_[size_t(r)];
    if (r == rank_ || p.received) continue;
    int done = 0;
    check(starpu_mpi_test(&p.recv, &done, MPI_STATUS_IGNORE), "starpu_mpi_test");
    if (done) take(r, p);
  }
  return first_stopped_;
}

void mpi_stop_t::announce(bool stopped) {
  if (announced_) return;
  announced_ = true;
  mine_ = stopped ? 1 : 0;
  if (stopped && (first_stopped_ < 0 || rank_ < first_stopped_)) first_stopped_ = rank_;
  for (int r = 0; r < size_; ++r)
    if (r != rank_)
      check(starpu_mpi_isend(my_handle_, &peers_[size_t(r)].send, r, tag_stop_word, MPI_COMM_WORLD),
            "starpu_mpi_isend");
}

int mpi_stop_t::wait_all() {
  if (waited_) return first_stopped_;
  announce(false);
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    peer_t& p = peers_[size_t(r)];
    if (!p.received) {
      check(starpu_mpi_wait(&p.recv, MPI_STATUS_IGNORE), "starpu_mpi_wait (receive)");
      take(r, p);
    }
    check(starpu_mpi_wait(&p.send, MPI_STATUS_IGNORE), "starpu_mpi_wait (send)");
    p.send = nullptr;
  }
  waited_ = true;
  return first_stopped_;
}

}  // namespace starzk::dag
