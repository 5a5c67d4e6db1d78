// key_residency.cpp: the memory plan's rules and knobs (see key_residency.hpp).
#include "dag/key_residency.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "dag/memory_budget.hpp"
#include "util/config.hpp"

namespace starzk::dag {

namespace {

uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / double(uint64_t(1) << 30));
  return buf;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

const char* key_query_name(int q) {
  static const char* const names[key_query_count] = {"h", "l", "a", "b_g1", "b_g2"};
  return q >= 0 && q < key_query_count ? names[q] : "?";
}

residency_plan_t plan_key_residency(const residency_input_t& in) {
  // 1-2: what the queries may hold.
  residency_plan_t plan;
  const uint64_t device_map = in.key_fixed + in.key_optional + in.partition + 3 * in.witness;
  // Form r's two phases beyond the domain: the witness map and the H phase
  // (w, a, b, c, the map's scratch), the MSMs (w, h, the scratch floor).
  const uint64_t map_phase = in.partition + in.map_scratch, msm_phase = in.overlap + in.scratch_floor;
  auto rows_stay_beside = [&](uint64_t domain) {
    return in.map_scratch > 0 && domain > 0 && domain + std::max(map_phase, msm_phase) + in.headroom <= in.device;
  };
  uint64_t set_aside = in.scratch_floor;  // rule 2's share kept from the queries
  if (device_map + in.headroom + in.scratch_floor <= in.device) {
    // The witness map on the device: the running chain's partition, the
    // witness staged for the next chain (run-ahead 1), the chain before's
    // and one of slack for StarPU's allocator.
    plan.fixed = device_map;
    plan.optional_fits = true;
  } else if (rows_stay_beside(in.key_fixed) || rows_stay_beside(in.key_fixed_lean)) {
    // The witness map in pieces writing a, b, c on the device (spmv_dev),
    // with the full domain if it fits.
    plan.rows_stay = true;
    plan.lean_domain = !rows_stay_beside(in.key_fixed);
    plan.fixed = in.overlap + (plan.lean_domain ? in.key_fixed_lean : in.key_fixed);
    set_aside = std::max(minus(map_phase, in.overlap), in.scratch_floor);
  } else {
    // The witness map in pieces (spmv_passes: the CSR and a, b, c in host
    // memory): a GPU holds the H phase's a, b, c or the MSMs' w and h,
    // beside the domain, full if the floor still fits.
    const uint64_t phase = std::max(in.rows, in.overlap);
    plan.fixed = phase + in.key_fixed;
    auto short_of_floor = [&] { return plan.fixed + in.headroom + in.scratch_floor > in.device; };
    if (in.key_fixed_lean > 0 && short_of_floor()) {
      plan.fixed = phase + in.key_fixed_lean;
      plan.lean_domain = true;
      if (short_of_floor()) {
        plan.fixed = in.overlap + in.key_fixed_lean;
        plan.h_passes = true;
      }
    }
  }
  plan.fixed += in.headroom;
  const uint64_t after_fixed = minus(in.device, plan.fixed);
  const uint64_t room = minus(after_fixed, set_aside);
  uint64_t resident = 0;
  for (uint64_t b : in.query) resident += b;
  if (in.forced) {
    plan.streamed = *in.forced & key_query_all;
    for (int q = 0; q < key_query_count; ++q)
      if (plan.streams(q)) resident -= in.query[q];
  } else {
    // 3: stream in order until the rest fits, then bring back what fits.
    for (int q : key_stream_order) {
      if (resident <= room) break;
      plan.streamed |= 1u << q;
      resident -= in.query[q];
    }
    for (int i = key_query_count - 1; i >= 0; --i) {
      const int q = key_stream_order[i];
      if (plan.streams(q) && resident + in.query[q] <= room) {
        plan.streamed &= ~(1u << q);
        resident += in.query[q];
      }
    }
  }
  plan.resident = resident;
  // 4: what the MSM bodies may take.
  plan.scratch_budget = std::max(minus(after_fixed, resident), std::min(in.scratch_floor, after_fixed));
  return plan;
}

std::string describe(const residency_plan_t& plan, const residency_input_t& in) {
  std::string res, str;
  uint64_t streamed = 0;
  for (int q = 0; q < key_query_count; ++q) {
    std::string& list = plan.streams(q) ? str : res;
    list += std::string(list.empty() ? "" : " ") + key_query_name(q);
    if (plan.streams(q)) streamed += in.query[q];
  }
  return "resident " + (res.empty() ? std::string("none") : res) + " (" + gib(plan.resident) + "), streamed " +
         (str.empty() ? std::string("none") : str) + " (" + gib(streamed) + "), MSM scratch up to " +
         gib(plan.scratch_budget) + " of " + gib(in.device) +
         (plan.optional_fits ? ", run-ahead 1"
          : plan.rows_stay   ? ", witness map in pieces, a, b, c on the device"
                             : ", witness map in pieces") +
         (plan.lean_domain ? ", lean NTT domain" : "") + (plan.h_passes ? ", H phase in passes" : "");
}

std::optional<uint32_t> parse_key_stream(std::string_view text, const std::string& what) {
  const std::string t = trim(text);
  if (t.empty() || t == "auto") return std::nullopt;
  if (t == "none") return 0u;
  if (t == "all") return key_query_all;
  uint32_t mask = 0;
  size_t at = 0;
  while (at <= t.size()) {
    const size_t comma = std::min(t.find(',', at), t.size());
    const std::string name = trim(std::string_view(t).substr(at, comma - at));
    int found = -1;
    for (int q = 0; q < key_query_count; ++q)
      if (name == key_query_name(q)) found = q;
    if (found < 0)
      throw std::runtime_error(what + "='" + t + "': unknown query '" + name +
                               "' (expected auto, none, all, or a comma list of h, l, a, b_g1, b_g2)");
    mask |= 1u << found;
    at = comma + 1;
  }
  return mask;
}

gpu_memory_knobs_t gpu_memory_knobs_from_env() {
  gpu_memory_knobs_t k;
  if (const auto e = config::get_word("STARZK_GPU_SCRATCH_MAX"))
    k.scratch_max = parse_byte_size(*e, "STARZK_GPU_SCRATCH_MAX=");
  if (const auto e = config::get_word("STARZK_KEY_STREAM")) k.stream = parse_key_stream(*e, "STARZK_KEY_STREAM");
  k.rows_on_device = config::get_switch("STARZK_ROWS_ON_DEVICE").value_or(true);
  if (const auto e = config::get_word("STARZK_MSM_STREAM_PIECE"))
    k.stream_piece_bytes = trim(*e) == "none" ? 0 : parse_byte_size(*e, "STARZK_MSM_STREAM_PIECE=");
  k.h_passes_vectors = unsigned(config::get_count("STARZK_H_PASSES_VECTORS").value_or(2));
  k.h_passes_a_on_device = config::get_switch("STARZK_H_PASSES_A_ON_DEVICE").value_or(true);
  if (const auto e = config::get_word("STARZK_MSM_TOGETHER"))
    k.msms_together = *e == "auto" ? std::nullopt : std::optional<bool>(*e == "on");
  if (const auto e = config::get_word("STARZK_MSM_PAIRS"))
    k.msm_pairs = *e == "auto"   ? std::nullopt
                  : *e == "on"   ? std::optional<unsigned>(msm_pairs_b_g2 | msm_pairs_g1)
                  : *e == "b_g2" ? std::optional<unsigned>(msm_pairs_b_g2)
                                 : std::optional<unsigned>(0u);
  return k;
}

}  // namespace starzk::dag
