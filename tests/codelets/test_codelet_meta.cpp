// What the policies and StarPU read from each codelet: a unique name, a
// distinct color, a CPU body, a resource class (policies/resource_class.h)
// and a history-based performance model whose footprint follows the
// problem size (same size, same footprint; other size, other footprint);
// which CUDA bodies StarPU may run asynchronously.
#include <gtest/gtest.h>
#include <starpu.h>

#include <map>
#include <set>
#include <string>

#include "codelets/codelets.hpp"
#include "policies/resource_class.h"
#include "test_inputs.hpp"

namespace starzk {
namespace {

TEST(codelet_meta, names_colors_bodies_models_and_classes) {
  const std::map<std::string, starzk_resource_class> want = {
      {"spmv", STARZK_RC_MEMORY_HEAVY}, {"spmv_passes", STARZK_RC_MEMORY_HEAVY}, {"spmv_dev", STARZK_RC_MEMORY_HEAVY},
      {"ntt_h", STARZK_RC_GPU_CHAIN},   {"ntt_h_passes", STARZK_RC_GPU_CHAIN},   {"prep_msm", STARZK_RC_MEMORY_HEAVY},
      {"msm", STARZK_RC_GPU_CHAIN},     {"b_g2_msm", STARZK_RC_MEMORY_HEAVY},    {"assemble", STARZK_RC_LIGHT},
      {"free", STARZK_RC_DEALLOC}};
  std::set<std::string> names, symbols;
  std::set<unsigned> colors;
  const auto all = codelets::all_codelets();
  ASSERT_EQ(all.size(), want.size());
  for (starpu_codelet* cl : all) {
    ASSERT_NE(cl->name, nullptr);
    const std::string name = cl->name;
    ASSERT_TRUE(want.count(name)) << name;
    EXPECT_EQ(starzk_codelet_get_class(cl), want.at(name)) << name;
    EXPECT_NE(cl->cpu_funcs[0], nullptr) << name;
    EXPECT_NE(cl->color, 0u) << name;
    ASSERT_NE(cl->model, nullptr) << name;
    EXPECT_EQ(cl->model->type, STARPU_HISTORY_BASED) << name;
    ASSERT_NE(cl->model->symbol, nullptr);
    EXPECT_NE(cl->model->footprint, nullptr) << name;
    names.insert(name);
    colors.insert(cl->color);
    symbols.insert(cl->model->symbol);
  }
  EXPECT_EQ(names.size(), all.size());
  EXPECT_EQ(colors.size(), all.size());
  EXPECT_EQ(symbols.size(), all.size());
  // Same object every time (the class table is keyed by address).
  EXPECT_EQ(codelets::msm_codelet(), codelets::msm_codelet());
}

// A CUDA body that waits for its stream inside must not be declared
// STARPU_CUDA_ASYNC: StarPU would start the next task's body while it runs
// and see the task before it end only when it returns (codelets/
// cuda_support.hpp). The MSM bodies wait (their launchers count the live
// terms on the host); the others only enqueue.
TEST(codelet_meta, cuda_bodies_are_async_unless_they_wait) {
  const std::set<std::string> waits = {"msm", "b_g2_msm"};
  const std::set<std::string> enqueue_only = {"spmv", "spmv_passes", "spmv_dev", "ntt_h", "ntt_h_passes"};
  int cuda_bodies = 0;
  for (starpu_codelet* cl : codelets::all_codelets()) {
    const std::string name = cl->name;
    if (!cl->cuda_funcs[0]) continue;
    ++cuda_bodies;
    ASSERT_TRUE(waits.count(name) || enqueue_only.count(name)) << name << ": a CUDA body this test does not know";
    const bool async = (cl->cuda_flags[0] & STARPU_CUDA_ASYNC) != 0;
    EXPECT_EQ(async, enqueue_only.count(name) == 1) << name;
  }
  if (cuda_bodies == 0) GTEST_SKIP() << "built without CUDA bodies";
}

TEST(codelet_meta, footprints_follow_the_problem_size) {
  const test::prove_case_t& small = test::prove_case("multiplier");
  const test::prove_case_t& big = test::prove_case("gen-bellman");
  codelets::partition_state_t ps, pb, ps2;
  ps.key.pk = small.pk.get();
  ps.key.cs = small.cs.get();
  ps2.key = ps.key;
  pb.key.pk = big.pk.get();
  pb.key.cs = big.cs.get();
  auto footprint = [](starpu_codelet* cl, void* arg) {
    starpu_task t;
    starpu_task_init(&t);
    t.cl = cl;
    t.cl_arg = arg;
    const uint32_t f = cl->model->footprint(&t);
    const size_t size = cl->model->size_base(&t, 0);
    return std::make_pair(f, size);
  };
  // b_g2_msm's argument is an msm_task_arg_t (a pair names a partner).
  auto arg = [](starpu_codelet* cl, codelets::partition_state_t& p) -> void* {
    return cl == codelets::b_g2_msm_codelet() ? static_cast<void*>(&p.b_g2_arg) : static_cast<void*>(&p);
  };
  for (starpu_codelet* cl : {codelets::spmv_codelet(), codelets::spmv_passes_codelet(), codelets::spmv_dev_codelet(),
                             codelets::ntt_h_codelet(), codelets::prep_msm_codelet(), codelets::b_g2_msm_codelet()}) {
    EXPECT_EQ(footprint(cl, arg(cl, ps)), footprint(cl, arg(cl, ps2))) << cl->name;
    EXPECT_NE(footprint(cl, arg(cl, ps)).first, footprint(cl, arg(cl, pb)).first) << cl->name;
    EXPECT_LT(footprint(cl, arg(cl, ps)).second, footprint(cl, arg(cl, pb)).second) << cl->name;
  }
  // A pair of b_g2_msm is a model entry of its own (twice the work).
  codelets::msm_task_arg_t pair{&ps, codelets::msm_query_t::h, false, &ps2};
  EXPECT_NE(footprint(codelets::b_g2_msm_codelet(), &pair).first,
            footprint(codelets::b_g2_msm_codelet(), &ps.b_g2_arg).first);
  // free's argument names what it releases; its size is the partition's.
  starpu_codelet* fr = codelets::free_codelet();
  EXPECT_EQ(footprint(fr, &ps.free_rest), footprint(fr, &ps2.free_rest));
  EXPECT_EQ(footprint(fr, &ps.free_rest), footprint(fr, &ps.free_rows_bc));
  EXPECT_NE(footprint(fr, &ps.free_rest).first, footprint(fr, &pb.free_rest).first);
  EXPECT_LT(footprint(fr, &ps.free_row_a).second, footprint(fr, &pb.free_row_a).second);
  // One msm codelet, four queries: each its own history.
  std::set<uint32_t> fps;
  for (int q = 0; q < codelets::msm_query_count; ++q)
    fps.insert(footprint(codelets::msm_codelet(), &pb.msm_args[q]).first);
  EXPECT_EQ(fps.size(), 4u);
}

TEST(codelet_meta, flop_estimates_grow_with_size) {
  const test::prove_case_t& small = test::prove_case("multiplier");
  const test::prove_case_t& big = test::prove_case("gen-snarkjs");
  codelets::partition_state_t ps, pb;
  ps.key.pk = small.pk.get();
  pb.key.pk = big.pk.get();
  EXPECT_LT(codelets::spmv_flops(ps), codelets::spmv_flops(pb));
  EXPECT_LT(codelets::ntt_h_flops(ps), codelets::ntt_h_flops(pb));
  EXPECT_LT(codelets::msm_flops(ps, codelets::msm_query_t::h), codelets::msm_flops(pb, codelets::msm_query_t::h));
  EXPECT_GT(codelets::b_g2_msm_flops(pb), codelets::msm_flops(pb, codelets::msm_query_t::a));
}

}  // namespace
}  // namespace starzk

namespace starzk {
namespace {

// set_placement: the codelets with a CUDA body in a CUDA build are exactly
// spmv, spmv_passes, spmv_dev, ntt_h, ntt_h_passes, msm and b_g2_msm; a placement
// sets each codelet's `where` mask, "any" gives back every body it has;
// bad specs name what is wrong and change nothing after the bad item.
TEST(codelet_meta, placement_sets_where_masks_and_rejects_bad_specs) {
  const std::set<std::string> gpu_capable = {"spmv",         "spmv_passes", "spmv_dev", "ntt_h",
                                             "ntt_h_passes", "msm",         "b_g2_msm"};
  bool cuda_build = false;
  for (starpu_codelet* cl : codelets::all_codelets()) {
    if (cl->cuda_funcs[0]) {
      cuda_build = true;
      EXPECT_TRUE(gpu_capable.count(cl->name)) << cl->name << " has a CUDA body";
    }
  }
  codelets::set_placement("spmv=cpu,msm=cpu");
  for (starpu_codelet* cl : codelets::all_codelets())
    if (std::string(cl->name) == "spmv" || std::string(cl->name) == "msm") {
      EXPECT_EQ(cl->where, uint32_t(STARPU_CPU));
    }
  EXPECT_NE(codelets::placement().find("spmv=cpu"), std::string::npos) << codelets::placement();
  auto rejects = [](const std::string& spec, const std::string& part) {
    try {
      codelets::set_placement(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  rejects("bogus=cpu", "unknown codelet");
  rejects("spmv=gpu", "expected cpu, cuda or any");
  rejects("spmv", "expected CODELET=");
  rejects("assemble=cuda", "no cuda body");
  if (!cuda_build) rejects("msm=cuda", "no cuda body");
  codelets::set_placement("spmv=any,msm=any");
  for (starpu_codelet* cl : codelets::all_codelets()) {
    const uint32_t bodies = (cl->cpu_funcs[0] ? STARPU_CPU : 0) | (cl->cuda_funcs[0] ? STARPU_CUDA : 0);
    if (std::string(cl->name) == "spmv" || std::string(cl->name) == "msm") {
      EXPECT_EQ(cl->where, bodies);
    }
  }
}

}  // namespace
}  // namespace starzk
