// Validation of every point of a proving key: coordinates canonical, on the
// curve, in the order-r subgroup, and O only where a wire can legitimately
// be unused.
//
// Why a separate step: a malicious key with a point outside the subgroup
// can leak the witness through a proof, so no key of unknown origin is used
// unchecked; but the subgroup test is most of the cost of reading a key.
// The readers (.zkey, .params, .szkc) therefore check the format and that
// every point is on its curve, and this step, run once per key content
// (cli/inputs.cpp remembers keys that passed, io/validation_record.hpp),
// does the rest, on the CPU cores or on a CUDA device (cuda/key_check.hpp).
// On the CPU a query of a few thousand points or more is checked as a
// whole by a randomized batch test (msm/batch_membership.hpp: a bad point
// passes with probability at most 2^-64, the randomness drawn from the OS
// after the key is read), and point by point (ec/subgroup.hpp) only to
// name the bad point once the batch test has failed, or for short queries.
//
// Rules (those of the readers, io/zkey.hpp, io/params.hpp,
// io/key_cache.hpp): O is refused in the verifying-key points (alpha_g1,
// beta_g1, delta_g1, beta_g2, gamma_g2, delta_g2), in ic and in h, and
// allowed in l, a, b_g1 and b_g2 (a wire absent from a matrix gives O;
// a .params file never stores O in a, b_g1, b_g2, but its reader puts O on
// the wires it omits).
//
// The first bad point, in the order vk points, ic, h, l, a, b_g1, b_g2 and
// by index within a query, is reported as key_validation_error with the
// text "<query> point <i>: <why>" (or "<name>: <why>" for a vk point), e.g.
// "b_g2 point 17: not in the prime-order subgroup".
//
// key_validator_t checks the queries as a reader completes them, so that
// the device checks of one query run while the next is still decoded
// (io/zkey.hpp's on_query); validate_key is a validator given the whole
// key at once. Either reports the same point for the same key.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "groth16/keys.hpp"
#include "groth16/setup.hpp"  // setup_device_t: auto_ | cpu | gpu

namespace starzk {

class key_validation_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct key_validation_options_t {
  // auto_: a CUDA device when this build has CUDA and one is present (the
  // CPU if the device fails), cpu: the CPU cores, gpu: a device or a
  // std::runtime_error saying why there is none.
  setup_device_t device = setup_device_t::auto_;
  unsigned threads = 0;  // CPU threads (0: every hardware thread)
};

// What ran where, and how long.
struct key_validation_info_t {
  uint64_t points = 0;   // points checked, O included
  bool on_gpu = false;   // the queries ran on a CUDA device
  std::string device;    // "the CPU (2 threads)" or "GPU 0: NVIDIA H200"
  std::string fallback;  // why auto_ used the CPU ("" when it did not need to say)
  double seconds = 0;
};

// Throws key_validation_error for a bad point (see above), or
// std::runtime_error when device = gpu and no device can run the checks.
key_validation_info_t validate_key(const proving_key_t& pk, const key_validation_options_t& options = {});

// Queries checked on one background thread, in the order given. check(q,
// pk) queues query q of pk, whose points must stay where they are (no
// resize, no move of that vector's storage) until finish returns or the
// validator is destroyed; each query at most once. finish(pk) queues the
// queries not given yet, checks the nine verifying-key points on the
// calling thread, waits, and then returns or throws exactly as
// validate_key(pk) would. The destructor waits for the queued checks
// (declare the validator after the key it reads, so it goes first).
class key_validator_t {
 public:
  explicit key_validator_t(const key_validation_options_t& options = {});
  ~key_validator_t();
  key_validator_t(const key_validator_t&) = delete;
  key_validator_t& operator=(const key_validator_t&) = delete;

  void check(key_query_t q, const proving_key_t& pk);
  key_validation_info_t finish(const proving_key_t& pk);

 private:
  struct state_t;
  std::unique_ptr<state_t> state_;
};

// The number of points validate_key checks.
uint64_t key_point_count(const proving_key_t& pk);

}  // namespace starzk
