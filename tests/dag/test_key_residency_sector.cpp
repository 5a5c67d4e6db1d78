// The device memory plan (dag/key_residency.hpp) for a 2^27 sector
// partition on the devices operators run it on: the whole H200 (witness
// map on the device, run-ahead, every query resident), 24 GB (rows made on
// the device), 18 GB (the lean domain), 16 GB (the H phase in passes), and
// the conditions of the device witness map and of rows on the device.
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

// The whole H200: the witness map on the device, holding the running
// chain's partition and three more witnesses (the one staged, run-ahead 1,
// the chain before's and the slack); every query fits beside them, with
// more than 12 GiB of MSM scratch.
TEST(KeyResidency, SectorPartitionOnTheWholeH200) {
  residency_input_t in = key27(128800);  // 125.8 GiB
  const residency_plan_t p = plan_key_residency(in);
  EXPECT_TRUE(p.optional_fits);
  EXPECT_FALSE(p.lean_domain);
  EXPECT_EQ(p.run_ahead(), 1);
  EXPECT_EQ(p.fixed, in.key_fixed + in.partition + 3 * in.witness + in.key_optional + in.headroom);
  EXPECT_EQ(p.streamed, 0u);
  EXPECT_EQ(p.scratch_budget, in.device - p.fixed - 72 * GiB);
  EXPECT_GT(p.scratch_budget, 12 * GiB);
  // Everything the plan counts fits the device at once.
  EXPECT_LE(p.fixed + p.resident + p.scratch_budget, in.device);
  EXPECT_NE(describe(p, in).find("run-ahead 1"), std::string::npos) << describe(p, in);
}

// The device witness map needs one partition and three more witnesses
// beside the CSR; a byte short of that, the witness map goes to the CPUs
// and the plan sets no run-ahead.
TEST(KeyResidency, TheDeviceWitnessMapNeedsAPartitionAndThreeWitnesses) {
  residency_input_t in = key24(300);
  in.overlap = GiB;
  in.key_optional = GiB;
  residency_plan_t p = plan_key_residency(in);
  EXPECT_TRUE(p.optional_fits);
  EXPECT_EQ(p.run_ahead(), 1);
  EXPECT_EQ(p.fixed, GiB / 2 + GiB + GiB + 3 * (GiB / 4));
  in.device = p.fixed + in.scratch_floor;  // exactly: still on the device
  EXPECT_TRUE(plan_key_residency(in).optional_fits);
  in.device -= 1;
  p = plan_key_residency(in);
  EXPECT_FALSE(p.optional_fits);
  EXPECT_EQ(p.run_ahead(), 0);
  EXPECT_EQ(describe(p, in).find("run-ahead"), std::string::npos) << describe(p, in);
}

// 24 GB: the witness map in pieces, the full domain beside a, b, c, all
// queries streamed, the MSMs get what the H phase leaves.
TEST(KeyResidency, SectorPartitionOn24GB) {
  const residency_input_t in = key27(24000);
  const residency_plan_t p = plan_key_residency(in);
  EXPECT_FALSE(p.optional_fits);
  EXPECT_FALSE(p.lean_domain);
  EXPECT_EQ(p.fixed, in.rows + in.key_fixed + in.headroom);
  EXPECT_EQ(p.streamed, key_query_all);
  EXPECT_EQ(p.scratch_budget, in.device - p.fixed);
  EXPECT_GE(p.scratch_budget, in.scratch_floor);
}

// 18,000 MiB: a, b, c with the full domain leave less than the floor, with
// the lean one they leave it: the H phase stays whole, the domain lean.
TEST(KeyResidency, SectorPartitionOn18GBTakesTheLeanDomain) {
  const residency_input_t in = key27(18000);
  const residency_plan_t p = plan_key_residency(in);
  EXPECT_FALSE(p.optional_fits);
  EXPECT_TRUE(p.lean_domain);
  EXPECT_FALSE(p.h_passes);
  EXPECT_EQ(p.fixed, in.rows + in.key_fixed_lean + in.headroom);
  EXPECT_EQ(p.scratch_budget, in.device - p.fixed);
  EXPECT_GE(p.scratch_budget, in.scratch_floor);
  const std::string d = describe(p, in);
  EXPECT_NE(d.find("witness map in pieces, lean NTT domain"), std::string::npos) << d;
  EXPECT_EQ(d.find("passes"), std::string::npos) << d;
}

// 16 GB: a, b, c alone (12 GiB) leave less than the floor beside them, so
// the H phase runs in passes (a, b, c in host memory, one vector at a time
// through the scratch); the device holds the MSMs' w and h, the lean
// domain and the scratch, which has room for the passes' vector.
TEST(KeyResidency, SectorPartitionOn16GBRunsTheHPhaseInPasses) {
  const residency_input_t in = key27(16000);
  const residency_plan_t p = plan_key_residency(in);
  EXPECT_FALSE(p.optional_fits);
  EXPECT_TRUE(p.lean_domain);
  EXPECT_TRUE(p.h_passes);
  EXPECT_EQ(p.fixed, in.overlap + in.key_fixed_lean + in.headroom);
  EXPECT_EQ(p.streamed, key_query_all);
  EXPECT_EQ(p.scratch_budget, in.device - p.fixed);
  EXPECT_GE(p.scratch_budget, in.scratch_floor);
  EXPECT_GT(p.scratch_budget, 4 * GiB + 256 * (uint64_t(1) << 20));  // one vector + two 128 MiB chunks
  EXPECT_LE(in.overlap + in.key_fixed_lean + p.scratch_budget + in.headroom, in.device);
  const std::string d = describe(p, in);
  EXPECT_NE(d.find("witness map in pieces, lean NTT domain, H phase in passes"), std::string::npos) << d;
  // Without a lean form the full domain is kept and the scratch gets less
  // than the floor (what the device has after the H phase).
  residency_input_t no_lean = in;
  no_lean.key_fixed_lean = 0;
  const residency_plan_t q = plan_key_residency(no_lean);
  EXPECT_FALSE(q.lean_domain);
  EXPECT_LT(q.scratch_budget, p.scratch_budget);
}

// With the witness map able to write a, b, c on the device (map_scratch:
// its pieces' buffers, ~0.7 GiB at 2^27), a 24 GB card holds w, a, b, c,
// the full domain and the map's scratch at once: form r. The MSMs' data
// (w and h) is what fixed counts, so their scratch gets the rest of the
// device (a CUDA worker gives it back before the next witness map), ~4
// GiB more than where a, b, c live in host memory; the queries' room
// leaves the witness map's phase.
TEST(KeyResidency, SectorPartitionOn24GBMakesTheRowsOnTheDevice) {
  const uint64_t MiB = uint64_t(1) << 20;
  residency_input_t in = key27(24000);
  const residency_plan_t host_rows = plan_key_residency(in);
  in.map_scratch = 700 * MiB;
  const residency_plan_t p = plan_key_residency(in);
  EXPECT_TRUE(p.rows_stay);
  EXPECT_FALSE(p.optional_fits);
  EXPECT_FALSE(p.lean_domain);
  EXPECT_FALSE(p.h_passes);
  EXPECT_EQ(p.run_ahead(), 0);
  EXPECT_EQ(p.fixed, in.overlap + in.key_fixed + in.headroom);
  EXPECT_EQ(p.streamed, key_query_all);
  EXPECT_EQ(p.scratch_budget, in.device - p.fixed);
  EXPECT_EQ(p.scratch_budget, host_rows.scratch_budget + in.rows - in.overlap);
  // Both phases fit beside the domain.
  EXPECT_LE(in.key_fixed + in.partition + in.map_scratch + in.headroom, in.device);
  EXPECT_LE(p.fixed + p.scratch_budget, in.device);
  const std::string d = describe(p, in);
  EXPECT_NE(d.find("witness map in pieces, a, b, c on the device"), std::string::npos) << d;
  // A byte short of the witness map's phase with the full domain: the lean
  // one; a byte short with that too: a, b, c in host memory, as before.
  in.device = in.key_fixed + in.partition + in.map_scratch + in.headroom - 1;
  residency_plan_t q = plan_key_residency(in);
  EXPECT_TRUE(q.rows_stay);
  EXPECT_TRUE(q.lean_domain);
  EXPECT_EQ(q.fixed, in.overlap + in.key_fixed_lean + in.headroom);
  in.device = in.key_fixed_lean + in.partition + in.map_scratch + in.headroom - 1;
  q = plan_key_residency(in);
  EXPECT_FALSE(q.rows_stay);
  EXPECT_EQ(describe(q, in).find("a, b, c on the device"), std::string::npos);
}

// The same rule takes the larger phase: with a floor above the witness
// map's phase, the MSMs' data and the floor must fit; and a 16 GB card
// holds neither (the H phase in passes, as before).
TEST(KeyResidency, RowsOnTheDeviceNeedBothPhases) {
  const uint64_t MiB = uint64_t(1) << 20;
  residency_input_t in = key27(24000);
  in.map_scratch = 700 * MiB;
  in.scratch_floor = in.partition + in.map_scratch - in.overlap + 1;  // the MSM phase is now the larger
  in.device = in.key_fixed + in.overlap + in.scratch_floor + in.headroom;
  residency_plan_t p = plan_key_residency(in);
  EXPECT_TRUE(p.rows_stay);
  EXPECT_FALSE(p.lean_domain);
  EXPECT_EQ(p.scratch_budget, in.scratch_floor);  // all of it the floor, nothing resident
  in.device -= 1;
  EXPECT_TRUE(plan_key_residency(in).lean_domain);
  in = key27(16000);
  in.map_scratch = 700 * MiB;
  p = plan_key_residency(in);
  EXPECT_FALSE(p.rows_stay);
  EXPECT_TRUE(p.h_passes);
  // No such form (map_scratch 0: no CUDA bodies): never.
  in = key27(24000);
  EXPECT_FALSE(plan_key_residency(in).rows_stay);
}

}  // namespace
}  // namespace starzk::dag
