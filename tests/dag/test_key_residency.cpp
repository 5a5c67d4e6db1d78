// The device memory plan (dag/key_residency.hpp) as a pure function over
// sizes: everything resident when it fits; otherwise queries stream in the
// rule's order (h, b_g2, l, b_g1, a) until the rest fits, and whatever
// still fits comes back; the scratch budget (device - fixed - resident,
// never below the floor the device holds); forced sets; saturation on a
// device too small for anything; the knobs' parsing and their errors.
// (A 2^27 sector partition on the devices operators use:
// test_key_residency_sector.cpp.)
#include <gtest/gtest.h>

#include <cstdlib>

#include "dag/key_residency.hpp"
#include "dag/memory_budget.hpp"
#include "key_residency_test_util.hpp"

namespace starzk::dag {
namespace {

using test::bit;
using test::GiB;
using test::key24;
using test::key27;

TEST(KeyResidency, EverythingResidentWhenItFits) {
  const residency_input_t in = key24(300);  // 30 GiB
  const residency_plan_t p = plan_key_residency(in);
  EXPECT_EQ(p.streamed, 0u);
  EXPECT_EQ(p.resident, 9 * GiB);
  EXPECT_EQ(p.scratch_budget, 30 * GiB - GiB / 2 - GiB - 3 * (GiB / 4) - 9 * GiB);
}

// With the witness map on the device a staged partition and the chain
// before hold their witness alone (a, b, c live only inside a chain; one
// more witness is slack for StarPU's allocator), so
// the MSM-phase data (overlap: w and h) does not count there; it is the
// phase a device holds when the witness map runs on the CPUs.
TEST(KeyResidency, TheDeviceMapCountsOneChainAndTwoWitnesses) {
  residency_input_t in = key24(300);
  in.overlap = GiB;
  residency_plan_t p = plan_key_residency(in);
  EXPECT_TRUE(p.optional_fits);
  EXPECT_EQ(p.fixed, GiB / 2 + GiB + 3 * (GiB / 4));
  EXPECT_EQ(p.streamed, 0u);
  EXPECT_EQ(p.scratch_budget, 30 * GiB - p.fixed - 9 * GiB);
  // 4.9 GiB: the witness map's 2.25 beside the 3 of the floor do not fit: it
  // runs on the CPUs, and the device holds the larger phase (w, h: 1 GiB
  // against a, b, c: 0.75) and the domain; all streams.
  in.device = 49 * GiB / 10;
  p = plan_key_residency(in);
  EXPECT_FALSE(p.optional_fits);
  EXPECT_EQ(p.fixed, GiB / 2 + GiB);  // the domain + the larger phase (w, h: 1 GiB)
  EXPECT_EQ(p.streamed, key_query_all);
}

TEST(KeyResidency, StreamsInOrderUntilTheRestFits) {
  // room = device - 2.25 - 3. Queries 9 GiB.
  // room 7.75: h streams (7.5 left) -> fits.
  residency_plan_t p = plan_key_residency(key24(130));
  EXPECT_EQ(p.streamed, bit(key_query_t::h));
  EXPECT_EQ(p.resident, 15 * GiB / 2);
  // room 4.75: h (7.5), b_g2 (4.5) -> fits; h comes back? 4.5 + 1.5 > 4.75: no.
  p = plan_key_residency(key24(100));
  EXPECT_EQ(p.streamed, bit(key_query_t::h) | bit(key_query_t::b_g2));
  EXPECT_EQ(p.resident, 9 * GiB / 2);
  // room 6.15: h, b_g2 stream (4.5 left), then h comes back (6.0 <= 6.15).
  p = plan_key_residency(key24(114));
  EXPECT_EQ(p.streamed, bit(key_query_t::b_g2));
  EXPECT_EQ(p.resident, 6 * GiB);
  // room 1.75: h, b_g2, l, b_g1 stream (1.5 left).
  p = plan_key_residency(key24(70));
  EXPECT_EQ(p.streamed, key_query_all & ~bit(key_query_t::a));
  EXPECT_EQ(p.resident, 3 * GiB / 2);
  // room 0.75: all stream.
  p = plan_key_residency(key24(60));
  EXPECT_EQ(p.streamed, key_query_all);
  EXPECT_EQ(p.resident, 0u);
  for (int q = 0; q < key_query_count; ++q) EXPECT_TRUE(p.streams(q));
}

TEST(KeyResidency, ScratchBudgetKeepsTheFloor) {
  // Every plan leaves at least the floor for scratch when the device holds
  // fixed + floor, and what the resident queries leave otherwise.
  for (uint64_t d = 0; d <= 400; d += 5) {
    const residency_input_t in = key24(d);
    const residency_plan_t p = plan_key_residency(in);
    // The witness map on the device when it fits beside the floor, else
    // the H phase's a, b, c (the larger phase) beside the domain.
    const uint64_t device_map = in.partition + 3 * in.witness;
    const bool map_on_device = in.key_fixed + device_map + in.scratch_floor <= in.device;
    const uint64_t fixed = in.key_fixed + (map_on_device ? device_map : in.rows);
    EXPECT_EQ(p.fixed, fixed) << "device " << d;
    EXPECT_EQ(p.optional_fits, map_on_device) << "device " << d;
    const uint64_t after = in.device > fixed ? in.device - fixed : 0;
    if (after >= in.scratch_floor) {
      EXPECT_LE(p.resident, after - in.scratch_floor) << "device " << d;
    } else {
      EXPECT_EQ(p.resident, 0u) << "device " << d;
    }
    EXPECT_GE(p.scratch_budget, std::min(in.scratch_floor, after)) << "device " << d;
    EXPECT_LE(p.scratch_budget, after) << "device " << d;
    if (after >= in.scratch_floor) {
      EXPECT_EQ(p.scratch_budget, after - p.resident) << "device " << d;
    }
    uint64_t sum = 0;
    for (int q = 0; q < key_query_count; ++q)
      if (!p.streams(q)) sum += in.query[q];
    EXPECT_EQ(sum, p.resident);
  }
  // A device smaller than the fixed part: nothing left, all streamed.
  const residency_plan_t tiny = plan_key_residency(key24(10));
  EXPECT_EQ(tiny.streamed, key_query_all);
  EXPECT_EQ(tiny.scratch_budget, 0u);
}

TEST(KeyResidency, OptionalArraysCountOnlyWhenTheyFit) {
  // CSR arrays of 4 GiB: on a 30 GiB device they fit beside the fixed part
  // and the floor, so the queries get 4 GiB less.
  residency_input_t in = key24(300);
  in.key_optional = 4 * GiB;
  residency_plan_t p = plan_key_residency(in);
  EXPECT_EQ(p.fixed, GiB / 2 + GiB + 3 * (GiB / 4) + 4 * GiB);  // the domain, a partition, three witnesses, the CSR
  EXPECT_TRUE(p.optional_fits);
  EXPECT_EQ(p.streamed, 0u);
  EXPECT_EQ(p.scratch_budget, 30 * GiB - p.fixed - 9 * GiB);
  // Room 7.75 GiB before them, 3.75 with them: h, b_g2 and l stream (3 left).
  in = key24(130);
  in.key_optional = 4 * GiB;
  p = plan_key_residency(in);
  EXPECT_EQ(p.streamed, bit(key_query_t::h) | bit(key_query_t::b_g2) | bit(key_query_t::l));
  EXPECT_EQ(p.resident, 3 * GiB);
  // Arrays larger than the device cannot stay there: they do not count.
  // The witness map then runs on the CPUs: fixed is the H phase's a, b, c
  // and the domain (12.5 GiB: room 8.25, h streams).
  in = key24(125);
  in.key_optional = 20 * GiB;
  p = plan_key_residency(in);
  EXPECT_EQ(p.fixed, GiB / 2 + 3 * GiB / 4);
  EXPECT_FALSE(p.optional_fits);
  EXPECT_EQ(p.streamed, bit(key_query_t::h));
}

TEST(KeyResidency, ForcedSets) {
  residency_input_t in = key24(300);
  in.forced = key_query_all;
  residency_plan_t p = plan_key_residency(in);
  EXPECT_EQ(p.streamed, key_query_all);
  EXPECT_EQ(p.resident, 0u);
  EXPECT_EQ(p.scratch_budget, 30 * GiB - GiB / 2 - GiB - 3 * (GiB / 4));
  in.forced = bit(key_query_t::l) | bit(key_query_t::b_g2);
  p = plan_key_residency(in);
  EXPECT_EQ(p.streamed, bit(key_query_t::l) | bit(key_query_t::b_g2));
  EXPECT_EQ(p.resident, 9 * GiB / 2);
  // None streamed on a small device: the scratch still gets its floor.
  in = key24(80);
  in.forced = 0u;
  p = plan_key_residency(in);
  EXPECT_EQ(p.streamed, 0u);
  EXPECT_EQ(p.scratch_budget, in.scratch_floor);
}

TEST(KeyResidency, DescribeNamesBothSets) {
  residency_input_t in = key24(105);
  const std::string d = describe(plan_key_residency(in), in);
  EXPECT_NE(d.find("resident l a b_g1 (4.50 GiB)"), std::string::npos) << d;
  EXPECT_NE(d.find("streamed h b_g2 (4.50 GiB)"), std::string::npos) << d;
}

TEST(KeyResidency, KnobParsing) {
  EXPECT_FALSE(parse_key_stream("auto", "X").has_value());
  EXPECT_FALSE(parse_key_stream("", "X").has_value());
  EXPECT_EQ(parse_key_stream("none", "X"), 0u);
  EXPECT_EQ(parse_key_stream("all", "X"), key_query_all);
  EXPECT_EQ(parse_key_stream("h", "X"), bit(key_query_t::h));
  EXPECT_EQ(parse_key_stream("b_g2, l", "X"), bit(key_query_t::b_g2) | bit(key_query_t::l));
  EXPECT_EQ(parse_key_stream("h,l,a,b_g1,b_g2", "X"), key_query_all);
  for (const char* bad : {"H", "h,", ",h", "b2", "h;l", "everything"}) {
    try {
      parse_key_stream(bad, "STARZK_KEY_STREAM");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("STARZK_KEY_STREAM="), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(parse_byte_size("512M", "X="), 512ull << 20);
  EXPECT_EQ(parse_byte_size("0", "X="), 0u);
  try {
    parse_byte_size("12X", "STARZK_GPU_SCRATCH_MAX=");
    ADD_FAILURE() << "12X was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("STARZK_GPU_SCRATCH_MAX='12X'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_byte_size("-1G", "X="), std::runtime_error);
  EXPECT_THROW(parse_memory_budget("lots"), std::runtime_error);

  setenv("STARZK_GPU_SCRATCH_MAX", "1.5G", 1);
  setenv("STARZK_KEY_STREAM", "b_g2", 1);
  gpu_memory_knobs_t k = gpu_memory_knobs_from_env();
  EXPECT_EQ(k.scratch_max, 3ull << 29);
  EXPECT_EQ(k.stream, bit(key_query_t::b_g2));
  setenv("STARZK_GPU_SCRATCH_MAX", "many", 1);
  EXPECT_THROW(gpu_memory_knobs_from_env(), std::runtime_error);
  unsetenv("STARZK_GPU_SCRATCH_MAX");
  unsetenv("STARZK_KEY_STREAM");
  k = gpu_memory_knobs_from_env();
  EXPECT_EQ(k.scratch_max, UINT64_MAX);
  EXPECT_FALSE(k.stream.has_value());
  EXPECT_TRUE(k.rows_on_device);
  setenv("STARZK_ROWS_ON_DEVICE", "0", 1);
  EXPECT_FALSE(gpu_memory_knobs_from_env().rows_on_device);
  setenv("STARZK_ROWS_ON_DEVICE", "sometimes", 1);
  EXPECT_THROW(gpu_memory_knobs_from_env(), std::runtime_error);
  unsetenv("STARZK_ROWS_ON_DEVICE");

  EXPECT_EQ(gpu_memory_knobs_from_env().stream_piece_bytes, 768ull << 20);
  setenv("STARZK_MSM_STREAM_PIECE", "2G", 1);
  EXPECT_EQ(gpu_memory_knobs_from_env().stream_piece_bytes, 2ull << 30);
  for (const char* off : {"0", "none"}) {
    setenv("STARZK_MSM_STREAM_PIECE", off, 1);
    EXPECT_EQ(gpu_memory_knobs_from_env().stream_piece_bytes, 0u) << off;
  }
  setenv("STARZK_MSM_STREAM_PIECE", "short", 1);
  try {
    gpu_memory_knobs_from_env();
    ADD_FAILURE() << "short was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("STARZK_MSM_STREAM_PIECE='short'"), std::string::npos) << e.what();
  }
  unsetenv("STARZK_MSM_STREAM_PIECE");

  EXPECT_EQ(gpu_memory_knobs_from_env().h_passes_vectors, 2u);
  setenv("STARZK_H_PASSES_VECTORS", "1", 1);
  EXPECT_EQ(gpu_memory_knobs_from_env().h_passes_vectors, 1u);
  for (const char* bad : {"0", "3", "two"}) {
    setenv("STARZK_H_PASSES_VECTORS", bad, 1);
    try {
      gpu_memory_knobs_from_env();
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("STARZK_H_PASSES_VECTORS"), std::string::npos) << e.what();
    }
  }
  unsetenv("STARZK_H_PASSES_VECTORS");

  EXPECT_TRUE(gpu_memory_knobs_from_env().h_passes_a_on_device);
  setenv("STARZK_H_PASSES_A_ON_DEVICE", "0", 1);
  EXPECT_FALSE(gpu_memory_knobs_from_env().h_passes_a_on_device);
  setenv("STARZK_H_PASSES_A_ON_DEVICE", "1", 1);
  EXPECT_TRUE(gpu_memory_knobs_from_env().h_passes_a_on_device);
  setenv("STARZK_H_PASSES_A_ON_DEVICE", "maybe", 1);
  EXPECT_THROW(gpu_memory_knobs_from_env(), std::runtime_error);
  unsetenv("STARZK_H_PASSES_A_ON_DEVICE");

  EXPECT_EQ(gpu_memory_knobs_from_env().msms_together, std::optional<bool>(false));  // off
  setenv("STARZK_MSM_TOGETHER", "auto", 1);
  EXPECT_FALSE(gpu_memory_knobs_from_env().msms_together.has_value());
  setenv("STARZK_MSM_TOGETHER", "on", 1);
  EXPECT_EQ(gpu_memory_knobs_from_env().msms_together, std::optional<bool>(true));
  setenv("STARZK_MSM_TOGETHER", "off", 1);
  EXPECT_EQ(gpu_memory_knobs_from_env().msms_together, std::optional<bool>(false));
  setenv("STARZK_MSM_TOGETHER", "sometimes", 1);
  EXPECT_THROW(gpu_memory_knobs_from_env(), std::runtime_error);
  unsetenv("STARZK_MSM_TOGETHER");

  EXPECT_FALSE(gpu_memory_knobs_from_env().msm_pairs.has_value());  // auto
  setenv("STARZK_MSM_PAIRS", "auto", 1);
  EXPECT_FALSE(gpu_memory_knobs_from_env().msm_pairs.has_value());
  setenv("STARZK_MSM_PAIRS", "on", 1);
  EXPECT_EQ(gpu_memory_knobs_from_env().msm_pairs, std::optional<unsigned>(msm_pairs_b_g2 | msm_pairs_g1));
  setenv("STARZK_MSM_PAIRS", "b_g2", 1);
  EXPECT_EQ(gpu_memory_knobs_from_env().msm_pairs, std::optional<unsigned>(msm_pairs_b_g2));
  setenv("STARZK_MSM_PAIRS", "off", 1);
  EXPECT_EQ(gpu_memory_knobs_from_env().msm_pairs, std::optional<unsigned>(0u));
  setenv("STARZK_MSM_PAIRS", "twice", 1);
  EXPECT_THROW(gpu_memory_knobs_from_env(), std::runtime_error);
  unsetenv("STARZK_MSM_PAIRS");
}

}  // namespace
}  // namespace starzk::dag
