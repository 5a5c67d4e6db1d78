// validate_key and key_validator_t (key_validation.hpp): the CPU path, the
// device choice, the background thread and the error text. The device
// path is the installed GPU backend's (key_validation_gpu.hpp,
// gpu_backend.hpp).
//
// The validator's thread takes queued queries one at a time: first it
// chooses the device (and, for a GPU, creates its context, ~0.1 s that
// then overlaps the reader), then scans each query on the device, or on
// the CPU when the device is off, absent, or failed under auto. Each
// query's answer is kept; finish reports the first bad one in the
// documented order, so the order the reader completes queries in (a
// .zkey's is a, b_g1, b_g2, l, h) never changes which point is named. On
// the CPU a large query is first checked as a whole by the batched
// randomized test (msm/batch_membership.hpp), and point by point only when
// that fails.
#include "groth16/key_validation.hpp"

#include <array>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "ec/subgroup.hpp"
#include "groth16/key_validation_gpu.hpp"  // through the installed GPU backend (gpu_backend.hpp)
#include "msm/batch_membership.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

// A coordinate is canonical when its Montgomery limbs are below p (the
// in-memory form; a .szkc holds raw limbs, which could be anything).
bool canonical(const fp_t& v) { return limbs::less(v.mont_limbs(), fp_t::modulus); }
bool canonical(const fp2_t& v) { return canonical(v.c0) && canonical(v.c1); }

using key_validation_detail::bad_point_t;
using key_validation_detail::key_fault_t;

const char* fault_text(key_fault_t f) {
  switch (f) {
    case key_fault_t::non_canonical:
      return "a coordinate is not below p";
    case key_fault_t::infinity:
      return "the point at infinity, not allowed here";
    case key_fault_t::off_curve:
      return "not on the curve";
    case key_fault_t::outside_subgroup:
      return "not in the prime-order subgroup";
    case key_fault_t::other:
      break;
  }
  return "refused by the device check";
}

// Everything but the subgroup: canonical, the infinity rule, the curve.
template <class P>
std::optional<key_fault_t> cheap_fault(const affine_t<P>& p, bool infinity_ok) {
  if (!canonical(p.x) || !canonical(p.y)) return key_fault_t::non_canonical;
  if (p.is_infinity()) return infinity_ok ? std::nullopt : std::optional(key_fault_t::infinity);
  if (!p.is_on_curve()) return key_fault_t::off_curve;
  return std::nullopt;
}

// CPU: the lowest index failing the cheap checks (a parallel pass at memory
// speed), then the subgroup checks on the points before it (a large query
// tested whole first, msm/batch_membership.hpp); whichever failure comes
// first is the one reported.
template <class P>
std::optional<bad_point_t> scan_cpu(std::span<const affine_t<P>> v, bool infinity_ok, unsigned threads) {
  std::mutex m;
  std::optional<bad_point_t> cheap;
  parallel_for(
      v.size(), threads,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          if (const auto f = cheap_fault(v[i], infinity_ok)) {
            std::lock_guard<std::mutex> lock(m);
            if (!cheap || i < cheap->index) cheap = bad_point_t{i, *f};
            return;
          }
        }
      },
      4096);
  const size_t clean = cheap ? cheap->index : v.size();
  if (const auto bad = first_outside_subgroup_batched(v.first(clean), threads))
    return bad_point_t{*bad, key_fault_t::outside_subgroup};
  return cheap;
}

template <class P>
std::optional<key_fault_t> single_fault(const affine_t<P>& p) {
  if (const auto f = cheap_fault(p, false)) return f;
  if (!p.is_in_subgroup()) return key_fault_t::outside_subgroup;
  return std::nullopt;
}

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw key_validation_error(where + ": " + why);
}

}  // namespace

uint64_t key_point_count(const proving_key_t& pk) {
  return 9 + pk.vk.ic.size() + pk.h.size() + pk.l.size() + pk.a.size() + pk.b_g1.size() + pk.b_g2.size();
}

namespace {

constexpr size_t n_queries = 6;  // key_query_t's values, in order
constexpr const char* query_names[n_queries] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

}  // namespace

struct key_validator_t::state_t {
  key_validation_options_t opt;
  unsigned threads = 1;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();

  // Under `m`: the queue, what each query came to, and the device state.
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::pair<key_query_t, const proving_key_t*>> queue;
  std::array<bool, n_queries> given{};
  std::array<bool, n_queries> done{};
  std::array<std::optional<bad_point_t>, n_queries> bad;
  std::exception_ptr error;  // a device that was insisted on failed (gpu), or the choice itself did
  bool closing = false;
  bool gpu = false;
  std::string device, fallback;
  std::thread worker;

  std::unique_ptr<key_validation_detail::gpu_scanner_t> scanner;

  // Where the checks run; on the worker thread, before the first query.
  void choose() {
    std::string why_not;
    bool use_gpu = opt.device != setup_device_t::cpu && setup_gpu_available(&why_not);
    if (opt.device == setup_device_t::gpu && !use_gpu)
      throw std::runtime_error("key validation on the GPU: " + why_not + " (validate on the CPU instead)");
    if (!use_gpu && opt.device == setup_device_t::auto_) fallback = why_not;
    if (use_gpu) {
      gpu = true;
      try {
        scanner = key_validation_detail::make_gpu_scanner();
        device = key_validation_detail::gpu_device_name();
      } catch (const std::runtime_error& e) {
        give_up_device(e);
      }
    }
  }

  // A device that failed: fatal when it was insisted on, else the CPU
  // takes this query and the rest.
  void give_up_device(const std::runtime_error& e) {
    if (opt.device == setup_device_t::gpu) throw;
    gpu = false;
    scanner.reset();
    fallback = e.what();
  }

  // One query on the device or the CPU; a device failure under auto moves
  // this query and the rest to the CPU.
  template <class P>
  std::optional<bad_point_t> scan(std::span<const affine_t<P>> points, bool inf_ok) {
    if (gpu) {
      try {
        return scanner->scan(points, inf_ok);
      } catch (const std::runtime_error& e) {
        give_up_device(e);
      }
    }
    return scan_cpu(points, inf_ok, threads);
  }

  // O is refused in ic and h (key_validation.hpp's rules).
  std::optional<bad_point_t> scan(key_query_t q, const proving_key_t& pk) {
    switch (q) {
      case key_query_t::ic:
        return scan<g1_params>(pk.vk.ic, false);
      case key_query_t::h:
        return scan<g1_params>(pk.h, false);
      case key_query_t::l:
        return scan<g1_params>(pk.l, true);
      case key_query_t::a:
        return scan<g1_params>(pk.a, true);
      case key_query_t::b_g1:
        return scan<g1_params>(pk.b_g1, true);
      case key_query_t::b_g2:
        return scan<g2_params>(pk.b_g2, true);
    }
    return std::nullopt;
  }

  void run() {
    bool chosen = false;
    for (;;) {
      std::pair<key_query_t, const proving_key_t*> job;
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return closing || !queue.empty(); });
        if (queue.empty()) return;
        job = queue.front();
        queue.pop_front();
      }
      std::optional<bad_point_t> answer;
      std::exception_ptr failure;
      try {
        if (!chosen) choose(), chosen = true;
        if (!error) answer = scan(job.first, *job.second);
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(m);
      if (failure && !error) error = failure;
      bad[size_t(job.first)] = answer;
      done[size_t(job.first)] = true;
      cv.notify_all();
    }
  }
};

key_validator_t::key_validator_t(const key_validation_options_t& options) : state_(std::make_unique<state_t>()) {
  state_->opt = options;
  state_->threads = resolve_threads(options.threads);
  state_->worker = std::thread([s = state_.get()] { s->run(); });
}

key_validator_t::~key_validator_t() {
  {
    std::lock_guard<std::mutex> lock(state_->m);
    state_->closing = true;
    state_->queue.clear();  // queued checks not started are dropped; the one running ends
  }
  state_->cv.notify_all();
  state_->worker.join();
}

void key_validator_t::check(key_query_t q, const proving_key_t& pk) {
  std::lock_guard<std::mutex> lock(state_->m);
  if (state_->given[size_t(q)]) return;
  state_->given[size_t(q)] = true;
  state_->queue.emplace_back(q, &pk);
  state_->cv.notify_all();
}

key_validation_info_t key_validator_t::finish(const proving_key_t& pk) {
  for (size_t q = 0; q < n_queries; ++q) check(key_query_t(q), pk);

  // The verifying-key points: nine, on this thread while the queries run.
  const std::pair<const char*, const g1_affine_t*> g1s[] = {{"alpha_g1", &pk.alpha_g1},
                                                            {"beta_g1", &pk.beta_g1},
                                                            {"delta_g1", &pk.delta_g1},
                                                            {"vk.alpha_g1", &pk.vk.alpha_g1}};
  const std::pair<const char*, const g2_affine_t*> g2s[] = {{"beta_g2", &pk.beta_g2},
                                                            {"delta_g2", &pk.delta_g2},
                                                            {"vk.beta_g2", &pk.vk.beta_g2},
                                                            {"vk.gamma_g2", &pk.vk.gamma_g2},
                                                            {"vk.delta_g2", &pk.vk.delta_g2}};
  std::optional<std::string> vk_fault;
  for (const auto& [name, p] : g1s)
    if (const auto f = single_fault(*p); f && !vk_fault) vk_fault = std::string(name) + ": " + fault_text(*f);
  for (const auto& [name, p] : g2s)
    if (const auto f = single_fault(*p); f && !vk_fault) vk_fault = std::string(name) + ": " + fault_text(*f);

  state_t& s = *state_;
  std::unique_lock<std::mutex> lock(s.m);
  s.cv.wait(lock, [&] {
    for (bool d : s.done)
      if (!d) return false;
    return true;
  });
  if (s.error) std::rethrow_exception(s.error);
  if (vk_fault) throw key_validation_error(*vk_fault);
  for (size_t q = 0; q < n_queries; ++q)
    if (const auto& b = s.bad[q])
      fail(std::string(query_names[q]) + " point " + std::to_string(b->index), fault_text(b->fault));

  key_validation_info_t info;
  info.points = key_point_count(pk);
  info.on_gpu = s.gpu;
  info.device =
      s.gpu ? s.device : "the CPU (" + std::to_string(s.threads) + (s.threads == 1 ? " thread)" : " threads)");
  info.fallback = s.fallback;
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.t0).count();
  return info;
}

key_validation_info_t validate_key(const proving_key_t& pk, const key_validation_options_t& opt) {
  return key_validator_t(opt).finish(pk);
}

}  // namespace starzk
