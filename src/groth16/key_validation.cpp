// validate_key (key_validation.hpp): the CPU path, the device choice, and
// the error text. The device path is key_validation_gpu.cpp.
#include "groth16/key_validation.hpp"

#include <chrono>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "ec/subgroup.hpp"
#include "groth16/key_validation_gpu.hpp"  // declarations only; defined with CUDA in the build
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
// speed), then the subgroup checks (ec's batched entry point) on the points
// before it; whichever failure comes first is the one reported.
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
  if (const auto bad = first_outside_subgroup(v.first(clean), threads))
    return bad_point_t{*bad, key_fault_t::outside_subgroup};
  return cheap;
}

template <class P>
std::optional<key_fault_t> single_fault(const affine_t<P>& p) {
  if (const auto f = cheap_fault(p, false)) return f;
  if (!p.is_in_subgroup()) return key_fault_t::outside_subgroup;
  return std::nullopt;
}

// One query of the key: its name, its points, and whether O is allowed.
template <class P>
struct query_t {
  const char* name;
  std::span<const affine_t<P>> points;
  bool infinity_ok;
};

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw key_validation_error(where + ": " + why);
}

}  // namespace

uint64_t key_point_count(const proving_key_t& pk) {
  return 9 + pk.vk.ic.size() + pk.h.size() + pk.l.size() + pk.a.size() + pk.b_g1.size() + pk.b_g2.size();
}

key_validation_info_t validate_key(const proving_key_t& pk, const key_validation_options_t& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  key_validation_info_t info;
  info.points = key_point_count(pk);
  const unsigned threads = resolve_threads(opt.threads);

  // Where: the device when asked for and present.
  std::string why_not;
  bool gpu = opt.device != setup_device_t::cpu && setup_gpu_available(&why_not);
  if (opt.device == setup_device_t::gpu && !gpu)
    throw std::runtime_error("key validation on the GPU: " + why_not + " (validate on the CPU instead)");
#if STARZK_HAVE_CUDA
  if (!gpu && opt.device == setup_device_t::auto_) info.fallback = why_not;
  if (gpu) {
    try {
      info.device = key_validation_detail::gpu_device_name();
    } catch (const std::runtime_error& e) {
      if (opt.device == setup_device_t::gpu) throw;
      gpu = false;
      info.fallback = e.what();
    }
  }
#endif

  // The verifying-key points: nine, on the CPU.
  const std::pair<const char*, const g1_affine_t*> g1s[] = {{"alpha_g1", &pk.alpha_g1},
                                                            {"beta_g1", &pk.beta_g1},
                                                            {"delta_g1", &pk.delta_g1},
                                                            {"vk.alpha_g1", &pk.vk.alpha_g1}};
  const std::pair<const char*, const g2_affine_t*> g2s[] = {{"beta_g2", &pk.beta_g2},
                                                            {"delta_g2", &pk.delta_g2},
                                                            {"vk.beta_g2", &pk.vk.beta_g2},
                                                            {"vk.gamma_g2", &pk.vk.gamma_g2},
                                                            {"vk.delta_g2", &pk.vk.delta_g2}};
  for (const auto& [name, p] : g1s)
    if (const auto f = single_fault(*p)) fail(name, fault_text(*f));
  for (const auto& [name, p] : g2s)
    if (const auto f = single_fault(*p)) fail(name, fault_text(*f));

  // The queries, in order; each on the device or the CPU.
  auto scan = [&](const auto& q) {
    std::optional<bad_point_t> bad;
#if STARZK_HAVE_CUDA
    if (gpu) {
      try {
        bad = key_validation_detail::scan_gpu(q.points, q.infinity_ok);
      } catch (const std::runtime_error& e) {
        if (opt.device == setup_device_t::gpu) throw;
        gpu = false;  // auto: the CPU takes this query and the rest
        info.fallback = e.what();
      }
    }
#endif
    if (!gpu) bad = scan_cpu(q.points, q.infinity_ok, threads);
    if (bad) fail(std::string(q.name) + " point " + std::to_string(bad->index), fault_text(bad->fault));
  };
  const query_t<g1_params> g1q[] = {
      {"ic", pk.vk.ic, false}, {"h", pk.h, false}, {"l", pk.l, true}, {"a", pk.a, true}, {"b_g1", pk.b_g1, true}};
  for (const auto& q : g1q) scan(q);
  scan(query_t<g2_params>{"b_g2", pk.b_g2, true});

  info.on_gpu = gpu;
  if (!gpu) info.device = "the CPU (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return info;
}

}  // namespace starzk
