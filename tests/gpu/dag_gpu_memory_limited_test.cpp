// Whole proofs through the DAG under a device limit (label gpu; skipped
// without a CUDA device), docs/gpu.md "Memory plan":
//   limited     a 2^18 batch under STARPU_LIMIT_CUDA_MEM sized so that every
//               query streams and the MSM scratch the plan allows is below
//               a whole MSM's (pieces forced) yet above the smallest pieces
//               (the witness map on the CPU, so that no CSR array takes
//               device memory, the NTT domain lean, and the H phase in
//               passes on the GPU, a, b, c in host memory; per chain
//               msm_b1, the chain's last, after b_g2_msm, from the
//               trace; every chain's H phase in two vectors where two
//               are asked; with a on the device, every msm_h finding h
//               there; no witness left on the device after the batch;
//               the G1 MSMs one task each, and as one task, msm_g1, as
//               the plan asks where every query streams);
//               and the same batch, queries resident, STARZK_GPU_SCRATCH_MAX
//               a quarter above the smallest pieces: the MSMs on the GPU,
//               every proof verifies, the first equals the CPU reference;
//   made        a 2^18 batch under a limit that holds w, a, b, c and the
//               witness map's pieces beside the full domain but not the
//               CSR: the plan makes a, b, c on the device (spmv_dev), the
//               H phase reads them there, the witness MSMs wait for msm_h
//               and the chain's last for b_g2_msm (from the trace);
//   rows        (disabled until it has passed on a GPU, below) the CSR
//               does not fit beside a partition and the scratch floor: the
//               plan keeps a, b, c in host memory and every witness map,
//               the first too, runs on the CPUs, with no placement given
// (a 16 GB card's batch: dag_gpu_memory_16gb_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <random>
#include <string>

#include "codelets/codelets.hpp"
#include "codelets/cuda_support.hpp"
#include "codelets/msm_device.hpp"
#include "dag/key_residency.hpp"
#include "dag/partition_dag.hpp"
#include "dag_gpu_memory_util.hpp"
#include "dag_test_util.hpp"
#include "gen/filecoin_shape.hpp"
#include "groth16/setup.hpp"

namespace starzk::test {
namespace {

// A Filecoin-shaped 2^18 circuit, its development key (made on the GPU),
// two witnesses, and the reference proof of the first for fixed r, s:
// built once per process.
struct case18_t {
  test::prove_case_t c;
  blinding_t rs = test::test_blinding(46);
  proof_t reference;
};
const case18_t& case18() {
  static const case18_t k = [] {
    case18_t r;
    const gen_params_t params{.log2_constraints = 18, .n_public = 8, .seed = 0x11e4};
    r.c.name = "gen-2^18";
    r.c.cs = std::make_shared<const r1cs_t>(generate_circuit(params));
    std::mt19937_64 rng(0x2718);
    toxic_waste_t tw{};
    for (fr_t* x : {&tw.tau, &tw.alpha, &tw.beta, &tw.gamma, &tw.delta}) *x = fr_t::random(rng);
    r.c.pk = std::make_shared<const proving_key_t>(setup(*r.c.cs, root_convention_t::bellman, tw, setup_options_t{}));
    for (uint64_t p = 0; p < 2; ++p) r.c.witnesses.push_back(generate_witness(params, *r.c.cs, p));
    r.reference = prove_with_blinding(*r.c.pk, r.c.cs.get(), r.c.witnesses[0], r.rs, 0);
    return r;
  }();
  return k;
}

// Scratch of the key's MSMs: the most any needs in its smallest pieces and
// whole (lean form), with the queries streamed or resident.
struct msm_sizes_t {
  uint64_t smallest = 0, largest_whole = 0;
};
msm_sizes_t msm_sizes(const proving_key_t& pk, bool streamed) {
  msm_sizes_t r;
  for (int q = 0; q < dag::key_query_count; ++q) {
    const codelets::msm_shape_t s = codelets::msm_query_shape(pk, q);
    r.smallest = std::max(r.smallest, codelets::msm_min_scratch_bytes(s, streamed));
    r.largest_whole = std::max(r.largest_whole, codelets::msm_scratch_bytes(s, s.n, streamed, true));
  }
  return r;
}

// a, b, c made on the device (spmv_dev): every witness map and H phase on
// the GPU; the first witness map found its witness missing there (the
// trace examined it beside the DAG's own pop prologue); per partition the
// witness MSMs start after msm_h has ended, and msm_b1, the chain's last,
// after b_g2_msm.
using chains_t = std::map<uint64_t, std::map<std::string, const runtime::trace_event_t*>>;

// The trace's tasks by chain and name; every chain must hold `names`.
chains_t chains_of(const run_t& got, int parts, std::initializer_list<const char*> names) {
  chains_t chains;
  for (const auto& e : got.events)
    if (e.has_chain) chains[e.chain][e.name] = &e;
  EXPECT_EQ(int(chains.size()), parts);
  for (const auto& [chain, by] : chains)
    for (const char* name : names) EXPECT_TRUE(by.count(name)) << "chain " << chain << " has no " << name;
  return chains;
}

void check_rows_made_on_device(const run_t& got, int parts) {
  EXPECT_EQ(got.count("spmv_dev", "cuda"), parts);
  EXPECT_EQ(got.count("ntt_h", "cuda"), parts);
  EXPECT_GE(got.fetching.count("spmv_dev") ? got.fetching.at("spmv_dev") : 0, 1);
  const chains_t chains =
      chains_of(got, parts, {"spmv_passes", "ntt_h", "msm_h", "msm_l", "msm_a", "b_g2_msm", "msm_b1"});
  for (const auto& [chain, by] : chains) {
    if (by.size() < 7) continue;  // said by chains_of
    for (const char* name : {"msm_l", "msm_a", "b_g2_msm"})
      EXPECT_GE(by.at(name)->start_us, by.at("msm_h")->end_us) << "chain " << chain << ": " << name;
    EXPECT_GE(by.at("msm_h")->start_us, by.at("ntt_h")->end_us) << "chain " << chain;
    EXPECT_GE(by.at("msm_b1")->start_us, by.at("b_g2_msm")->end_us) << "chain " << chain;
  }
}

// The H phase in passes with b_g2_msm on the GPU: each chain's last task,
// msm_b1 (or msm_g1, the four G1 MSMs together), waits for its b_g2_msm
// (an edge in the trace) and starts after it has ended, so that no chain's
// witness stays on the device into the next chain's H phase
// (dag/partition_dag.cpp).
void check_b_g2_before_chain_end(const run_t& got, int parts, const char* last_name) {
  const chains_t chains = chains_of(got, parts, {"ntt_h_passes", "b_g2_msm", last_name});
  for (const auto& [chain, by] : chains) {
    if (!by.count("b_g2_msm") || !by.count(last_name)) continue;  // said by chains_of
    const runtime::trace_event_t &b2 = *by.at("b_g2_msm"), &last = *by.at(last_name);
    EXPECT_NE(std::find(last.after.begin(), last.after.end(), b2.id), last.after.end()) << "chain " << chain;
    EXPECT_GE(last.start_us, b2.end_us) << "chain " << chain;
  }
}

// Every H phase in passes ran in the form the key asks for: with two
// vectors asked, each chain's found room for both, the first chain's and
// every later one's (no earlier chain's w or h left on the device,
// dag/partition_dag.cpp); none fell back to the host.
void check_h_passes_forms(const codelets::h_passes_forms_t& before, unsigned vectors, int parts) {
  const codelets::h_passes_forms_t now = codelets::h_passes_forms();
  EXPECT_EQ(now.host - before.host, 0u);
  EXPECT_EQ(now.two - before.two, vectors >= 2 ? unsigned(parts) : 0u) << vectors << " vectors asked";
  EXPECT_EQ(now.one - before.one, vectors >= 2 ? 0u : unsigned(parts)) << vectors << " vectors asked";
}

// With a on the device (STARZK_H_PASSES_A_ON_DEVICE) every task `name`
// on the GPU found its rows (n elements of F_r, read) where it reads them
// when taken: msm_h its h, which the H phase left on the device, and, where
// the witness map ran on the GPU, ntt_h_passes its a, written there.
void check_rows_found(const run_t& got, const char* name, uint64_t row_bytes, int parts) {
  int seen = 0;
  for (const auto& e : got.events) {
    if (e.name != name || e.worker_kind != "cuda") continue;
    ++seen;
    for (unsigned i = 0; i < e.buffers.size(); ++i) {
      if (e.buffers[i].bytes == row_bytes && e.buffers[i].mode.find('R') != std::string::npos) {
        EXPECT_EQ(std::count(e.missing.begin(), e.missing.end(), i), 0)
            << name << " of chain " << e.chain << " fetched its buffer " << i;
      }
    }
  }
  EXPECT_EQ(seen, parts) << name;
}

// Proves the 2^18 case on a session made now and checks the proofs: all
// verify, the first equals the reference, every MSM ran on the GPU.
void prove_and_check_case18(const std::string& place, const std::function<void(const dag::key_bundle_t&)>& check) {
  const case18_t& k = case18();
  runtime::starpu_session session(test::gpu_session_options("starzk"));
  ASSERT_GT(session.cuda_workers(), 0u);
  codelets::set_placement(place);
  auto key = test::bundle(k.c);
  std::printf("[ plan     ] %s\n", key->describe_memory_plan().c_str());
  check(*key);
  const codelets::h_passes_forms_t forms = codelets::h_passes_forms();
  // The device's free bytes before the batch (StarPU's count: its cache of
  // freed buffers counts as used), the key's NTT domain (the bundle
  // prefetches it) on the device first, and one of the 32 MiB chunks StarPU
  // serves device buffers of up to 4 MiB from (the partitions' results):
  // it keeps the first chunk made, all of it counted as used.
  const unsigned node = starpu_worker_get_memory_node(unsigned(starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0)));
  ASSERT_EQ(starpu_data_acquire_on_node(key->device_domain(), int(node), STARPU_R), 0);
  starpu_data_release_on_node(key->device_domain(), int(node));
  const uintptr_t small = starpu_malloc_on_node(node, 1024);
  ASSERT_NE(small, 0u);
  starpu_free_on_node(node, small, 1024);
  const starpu_ssize_t free_before = starpu_memory_get_available(node);
  const run_t got = prove_all(key, k.c.witnesses, k.rs);
  codelets::detail::release_worker_scratch();
  const starpu_ssize_t left = free_before - starpu_memory_get_available(node);
  ASSERT_EQ(got.proofs.size(), k.c.witnesses.size());
  for (uint32_t i = 0; i < k.c.witnesses.size(); ++i)
    EXPECT_TRUE(verify(k.c.pk->vk, public_inputs(*k.c.pk, k.c.witnesses[i]), got.proofs.at(i))) << "partition " << i;
  EXPECT_EQ(encode_proof(got.proofs.at(0)), encode_proof(k.reference));
  // The four G1 MSMs as one task (msm_g1) or four.
  const bool together = key->view().g1_msms_together;
  EXPECT_EQ(got.count("msm", "cuda"), (together ? 1 : 4) * int(k.c.witnesses.size()));
  EXPECT_EQ(got.count("b_g2_msm", "cuda"), int(k.c.witnesses.size()));
  if (key->h_phase_in_passes()) {
    EXPECT_EQ(got.count("ntt_h_passes", "cuda"), int(k.c.witnesses.size()));
    check_b_g2_before_chain_end(got, int(k.c.witnesses.size()), together ? "msm_g1" : "msm_b1");
    check_h_passes_forms(forms, key->view().h_passes_vectors, int(k.c.witnesses.size()));
    if (dag::gpu_memory_knobs_from_env().h_passes_a_on_device) {
      const uint64_t row = k.c.pk->domain_size * sizeof(fr_t);
      check_rows_found(got, together ? "msm_g1" : "msm_h", row, int(k.c.witnesses.size()));
      if (got.count("spmv_passes", "cuda") == int(k.c.witnesses.size()))
        check_rows_found(got, "ntt_h_passes", row, int(k.c.witnesses.size()));
    }
  }
  // The CSR in host memory: the witness map in pieces, on the GPU unless
  // placed on the CPUs (a, b, c in host memory, or made on the device).
  if (key->rows_on_host_with_gpus()) {
    starpu_codelet* map = dag::witness_map_codelet(*key);
    const bool on_gpu = (codelets::codelet_where(map) & STARPU_CUDA) != 0;
    EXPECT_EQ(got.count(map->name, on_gpu ? "cuda" : "cpu"), int(k.c.witnesses.size()));
    EXPECT_EQ(got.count("spmv", "cuda") + got.count("spmv", "cpu"), 0);
    // Witnesses start in host memory: the first chain's first reader on
    // the GPU finds its witness missing there (the trace's diagnosis of
    // fetches; later chains' may have been prefetched).
    EXPECT_GE(got.gpu_tasks_fetching, 1);
  }
  if (key->rows_made_on_device()) check_rows_made_on_device(got, int(k.c.witnesses.size()));
  // With the H phase in passes (every query streamed: the key's only
  // device data is its lean domain) every partition's w and h leave the
  // device with their last reader, not into StarPU's cache of freed
  // buffers (dag/partition_dag.cpp): once the batch is over and the
  // worker's scratch given back, less than one witness remains of it.
  if (key->h_phase_in_passes()) {
    const starpu_ssize_t witness = starpu_ssize_t(k.c.witnesses.at(0).size() * sizeof(fr_t));
    EXPECT_LT(left, witness) << "device bytes the batch left in use on node " << node;
  }
  codelets::set_placement(any_place);
}

TEST(dag_gpu_memory_limited, batch_at_2_18_under_a_small_device_limit_verifies) {
  if (!setup_gpu_available()) GTEST_SKIP() << "no CUDA device";
  const case18_t& k = case18();
  // The device bytes that leave the MSMs more than their smallest pieces
  // need (all queries streamed) but less than the whole largest MSM: from
  // the plan's own inputs, taken from a first session without a limit.
  // The plan, below the scratch floor, runs the witness map in pieces
  // and the H phase in passes (a, b, c in host memory), and keeps the MSM
  // phase's w and h beside a lean domain, with 1/64 of the device as
  // headroom.
  uint64_t fixed = 0, partition = 0;
  {
    runtime::starpu_session session(test::gpu_session_options("starzk"));
    if (session.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
    auto key = test::bundle(k.c);
    const dag::residency_input_t& in = key->memory_input();
    ASSERT_GT(in.device, 0u);
    fixed = in.overlap + in.key_fixed_lean;
    partition = in.partition;
  }
  const msm_sizes_t m = msm_sizes(*k.c.pk, true);
  // Room for the smallest pieces of every MSM, and for the data of two
  // more partitions beside them (staged by the policy, b_g2_msm's w).
  const uint64_t mib = uint64_t(1) << 20;
  const uint64_t scratch = m.smallest + 2 * partition;
  ASSERT_LT(scratch + 2 * mib, m.largest_whole) << "smallest pieces " << m.smallest << " B, partition " << partition
                                                << " B, whole MSM " << m.largest_whole << " B";
  const uint64_t device = (fixed + scratch) * 64 / 63 + mib;
  const test::scoped_env_t env("STARPU_LIMIT_CUDA_MEM", std::to_string((device + mib - 1) / mib));
  // The witness map in pieces on the GPU (the plan's choice), then on the
  // CPUs (placed there); the H phase in passes in two device vectors where
  // they fit (the default), then in one, each with a in host memory and on
  // the device, the G1 MSMs one task each; then with the four together
  // (the plan's choice: every query streams): the same proofs.
  struct run_form_t {
    const char *place, *vectors, *a_on_device, *together;
  };
  const run_form_t runs[] = {{any_place, "2", "0", "off"},         {any_place, "1", "0", "off"},
                             {"spmv_passes=cpu", "2", "0", "off"}, {any_place, "2", "1", "off"},
                             {any_place, "1", "1", "off"},         {"spmv_passes=cpu", "2", "1", "off"},
                             {any_place, "2", "1", "auto"},        {"spmv_passes=cpu", "1", "0", "auto"}};
  for (const auto& [place, vectors, a_on_device, together] : runs) {
    SCOPED_TRACE(std::string(place) + ", STARZK_H_PASSES_VECTORS=" + vectors +
                 ", STARZK_H_PASSES_A_ON_DEVICE=" + a_on_device + ", STARZK_MSM_TOGETHER=" + together);
    const test::scoped_env_t v("STARZK_H_PASSES_VECTORS", vectors), d("STARZK_H_PASSES_A_ON_DEVICE", a_on_device),
        t("STARZK_MSM_TOGETHER", together);
    prove_and_check_case18(place, [&](const dag::key_bundle_t& key) {
      EXPECT_EQ(key.view().g1_msms_together, std::string(together) == "auto");
      EXPECT_EQ(key.view().h_passes_vectors, unsigned(vectors[0] - '0'));
      EXPECT_EQ(key.memory_plan().streamed, dag::key_query_all);
      EXPECT_FALSE(key.memory_plan().optional_fits);
      EXPECT_TRUE(key.memory_plan().lean_domain);  // the H phase runs with the lean twiddles
      EXPECT_TRUE(key.h_phase_in_passes());        // and a, b, c never on the device
      // a has no buffer in host memory where it stays on the device (the
      // witness map writes it there: not placed on the CPUs) and the H
      // phase runs in two vectors (the one-vector form keeps a's coset
      // values in a's host buffer).
      const bool a_dev =
          std::string(a_on_device) == "1" && std::string(place) == any_place && std::string(vectors) == "2";
      EXPECT_EQ(key.host_rows(), a_dev ? 2u : 3u);
      EXPECT_GE(key.view().scratch_max, m.smallest);
      EXPECT_LT(key.view().scratch_max, m.largest_whole);  // some MSM must run in pieces
    });
  }
}

// The 2^18 key's memory-plan inputs, from a session without a limit made
// for them; nullopt without a CUDA worker.
std::optional<dag::residency_input_t> case18_plan_input() {
  runtime::starpu_session session(test::gpu_session_options("starzk"));
  if (session.cuda_workers() == 0) return std::nullopt;
  return test::bundle(case18().c)->memory_input();
}

// A limit that holds w, a, b, c, the full domain and the witness map's
// pieces, or the MSMs' w and h beside the scratch floor, whichever is
// larger, with two witnesses to spare, but not the CSR arrays beside
// them: the plan makes a, b, c on the device (spmv_dev), no query
// resident, and the MSMs get the rest of the device as scratch.
TEST(dag_gpu_memory_limited, the_witness_map_writes_the_rows_on_the_device) {
  if (!setup_gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::optional<dag::residency_input_t> plan = case18_plan_input();
  if (!plan) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  const dag::residency_input_t& in = *plan;
  ASSERT_GT(in.map_scratch, 0u);
  const uint64_t mib = uint64_t(1) << 20;
  const uint64_t phases = std::max(in.partition + in.map_scratch, in.overlap + in.scratch_floor);
  const uint64_t device = (in.key_fixed + phases + 2 * in.witness) * 64 / 63 + mib;
  ASSERT_LT(device, (in.key_fixed + in.key_optional + in.partition + 3 * in.witness + in.scratch_floor) * 64 / 63)
      << "the CSR would fit";
  const test::scoped_env_t env("STARPU_LIMIT_CUDA_MEM", std::to_string((device + mib - 1) / mib));
  prove_and_check_case18(any_place, [&](const dag::key_bundle_t& key) {
    EXPECT_TRUE(key.memory_plan().rows_stay);
    EXPECT_TRUE(key.rows_made_on_device());
    EXPECT_FALSE(key.memory_plan().lean_domain);
    EXPECT_FALSE(key.h_phase_in_passes());
    EXPECT_EQ(dag::witness_map_codelet(key), codelets::spmv_dev_codelet());
  });
}

// DISABLED until it has passed on a GPU: its only run, beside a 2^27 `starzk
// gen` holding most of the H200, had not finished after 450 s: the real
// device memory ran out under StarPU's count (StarPU then waits for ever),
// or the batch livelocks at this limit (the CUDA worker keeps its MSM
// scratch). Run it alone (--gtest_also_run_disabled_tests
// --gtest_filter='*first') to tell which.
TEST(dag_gpu_memory_limited, DISABLED_the_plan_places_every_witness_map_from_the_first) {
  if (!setup_gpu_available()) GTEST_SKIP() << "no CUDA device";
  const case18_t& k = case18();
  const std::optional<dag::residency_input_t> plan = case18_plan_input();
  if (!plan) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  const dag::residency_input_t& in = *plan;
  ASSERT_GT(in.key_optional, 4u << 20);
  // Room for a partition, the domain, the scratch floor and half the CSR.
  const uint64_t mib = uint64_t(1) << 20;
  const uint64_t limit = in.key_fixed + in.partition + in.scratch_floor + in.key_optional / 2;
  const test::scoped_env_t env("STARPU_LIMIT_CUDA_MEM", std::to_string((limit + mib - 1) / mib));
  // No set_placement in this process: StarPU fills each codelet's mask at
  // its first submission, and the plan must hold from that one on.
  runtime::starpu_session session(test::gpu_session_options("starzk"));
  ASSERT_GT(session.cuda_workers(), 0u);
  auto key = test::bundle(k.c);
  std::printf("[ plan     ] %s\n", key->describe_memory_plan().c_str());
  ASSERT_TRUE(key->rows_on_host_with_gpus());
  const run_t got = prove_all(key, k.c.witnesses, k.rs);
  ASSERT_EQ(got.proofs.size(), k.c.witnesses.size());
  EXPECT_EQ(encode_proof(got.proofs.at(0)), encode_proof(k.reference));
  EXPECT_EQ(got.count("spmv", "cuda") + got.count("spmv", "cpu"), 0);
  EXPECT_EQ(got.count("spmv_passes", "cuda"), int(k.c.witnesses.size()));
}

// A cap a quarter above the smallest pieces of every MSM, queries resident.
TEST(dag_gpu_memory_limited, scratch_cap_cuts_the_msms_into_pieces) {
  if (!setup_gpu_available()) GTEST_SKIP() << "no CUDA device";
  const case18_t& k = case18();
  const msm_sizes_t m = msm_sizes(*k.c.pk, false);
  const uint64_t cap = m.smallest + m.smallest / 4;
  ASSERT_LT(cap, m.largest_whole);
  const test::scoped_env_t env("STARZK_GPU_SCRATCH_MAX", std::to_string(cap));
  prove_and_check_case18(any_place, [&](const dag::key_bundle_t& key) {
    EXPECT_EQ(key.memory_plan().streamed, 0u);
    EXPECT_EQ(key.view().scratch_max, cap);
  });
}

}  // namespace
}  // namespace starzk::test
