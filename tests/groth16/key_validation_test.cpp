// validate_key (groth16/key_validation.hpp) on the CPU: a good key passes
// and every point is counted; a bad point in any query or in the verifying
// key is named with its query and index (the first one when there are
// several), for each kind of fault, in small queries and in queries long
// enough for the batched randomized test; O only where the rules
// allow it; the device choice without a GPU; with a GPU, the device path
// gives the CPU path's answer on fresh bad keys (skipped without a device).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "../ec/ec_test_util.hpp"
#include "../msm/msm_test_util.hpp"
#include "groth16/key_validation.hpp"
#include "io/zkey.hpp"

namespace starzk {
namespace {

const proving_key_t& good_key() {
  static const proving_key_t k =
      read_zkey(std::filesystem::path(STARZK_TEST_DATA) / "fixtures" / "multiplier" / "circuit.zkey");
  return k;
}

// The message validate_key throws for `k`, or "" when it passes.
std::string problem(const proving_key_t& k, unsigned threads = 2, setup_device_t device = setup_device_t::cpu) {
  try {
    validate_key(k, {.device = device, .threads = threads});
    return "";
  } catch (const key_validation_error& e) {
    return e.what();
  }
}

template <class P>
affine_t<P> outside_subgroup() {
  return test::random_curve_point<P>();
}
template <class P>
affine_t<P> off_curve() {
  affine_t<P> p = test::random_subgroup_point<P>();
  p.y = p.y + P::field_t::one();
  return p;
}
// x with limbs equal to p: not a canonical Montgomery value.
template <class P>
affine_t<P> non_canonical() {
  affine_t<P> p = test::random_subgroup_point<P>();
  if constexpr (std::is_same_v<P, g1_params>)
    p.x = fp_t::from_mont_limbs(fp_t::modulus);
  else
    p.x.c1 = fp_t::from_mont_limbs(fp_t::modulus);
  return p;
}

TEST(key_validation, good_key_passes_and_counts_every_point) {
  const proving_key_t& k = good_key();
  const key_validation_info_t info = validate_key(k, {.device = setup_device_t::cpu, .threads = 2});
  EXPECT_EQ(info.points, 9 + k.vk.ic.size() + k.h.size() + k.l.size() + k.a.size() + k.b_g1.size() + k.b_g2.size());
  EXPECT_EQ(info.points, key_point_count(k));
  EXPECT_FALSE(info.on_gpu);
  EXPECT_EQ(info.device, "the CPU (2 threads)");
  EXPECT_EQ(problem(k, 1), "");
}

TEST(key_validation, names_the_query_and_index) {
  struct g1_query_t {
    const char* name;
    std::function<std::span<g1_affine_t>(proving_key_t&)> get;
  };
  const g1_query_t g1s[] = {{"ic", [](proving_key_t& k) -> std::span<g1_affine_t> { return k.vk.ic; }},
                            {"h", [](proving_key_t& k) -> std::span<g1_affine_t> { return k.h; }},
                            {"l", [](proving_key_t& k) -> std::span<g1_affine_t> { return k.l; }},
                            {"a", [](proving_key_t& k) -> std::span<g1_affine_t> { return k.a; }},
                            {"b_g1", [](proving_key_t& k) -> std::span<g1_affine_t> { return k.b_g1; }}};
  for (const auto& q : g1s) {
    proving_key_t k = good_key();
    const size_t at = q.get(k).size() - 1;
    q.get(k)[at] = outside_subgroup<g1_params>();
    EXPECT_EQ(problem(k), std::string(q.name) + " point " + std::to_string(at) + ": not in the prime-order subgroup");
    q.get(k)[at] = off_curve<g1_params>();
    EXPECT_EQ(problem(k), std::string(q.name) + " point " + std::to_string(at) + ": not on the curve");
    q.get(k)[at] = non_canonical<g1_params>();
    EXPECT_EQ(problem(k), std::string(q.name) + " point " + std::to_string(at) + ": a coordinate is not below p");
  }
  proving_key_t k = good_key();
  k.b_g2[1] = outside_subgroup<g2_params>();
  EXPECT_EQ(problem(k), "b_g2 point 1: not in the prime-order subgroup");
  k.b_g2[1] = off_curve<g2_params>();
  EXPECT_EQ(problem(k), "b_g2 point 1: not on the curve");
  k.b_g2[1] = non_canonical<g2_params>();
  EXPECT_EQ(problem(k), "b_g2 point 1: a coordinate is not below p");
}

TEST(key_validation, the_first_bad_point_is_reported) {
  proving_key_t k = good_key();
  k.h[5] = off_curve<g1_params>();         // the cheap pass finds this one
  k.h[2] = outside_subgroup<g1_params>();  // but this one comes first
  EXPECT_EQ(problem(k), "h point 2: not in the prime-order subgroup");
  k.h[1] = off_curve<g1_params>();
  EXPECT_EQ(problem(k), "h point 1: not on the curve");
  k.a[0] = outside_subgroup<g1_params>();  // a comes after h
  EXPECT_EQ(problem(k), "h point 1: not on the curve");
}

TEST(key_validation, verifying_key_points) {
  proving_key_t k = good_key();
  k.delta_g1 = outside_subgroup<g1_params>();
  EXPECT_EQ(problem(k), "delta_g1: not in the prime-order subgroup");
  k = good_key();
  k.vk.gamma_g2 = g2_affine_t::infinity();
  EXPECT_EQ(problem(k), "vk.gamma_g2: the point at infinity, not allowed here");
  k = good_key();
  k.beta_g2 = off_curve<g2_params>();
  EXPECT_EQ(problem(k), "beta_g2: not on the curve");
}

TEST(key_validation, infinity_only_where_a_wire_can_be_unused) {
  proving_key_t k = good_key();
  k.a[1] = g1_affine_t::infinity();
  k.b_g1[1] = g1_affine_t::infinity();
  k.b_g2[1] = g2_affine_t::infinity();
  k.l[0] = g1_affine_t::infinity();
  EXPECT_EQ(problem(k), "");
  k.h[3] = g1_affine_t::infinity();
  EXPECT_EQ(problem(k), "h point 3: the point at infinity, not allowed here");
  k = good_key();
  k.vk.ic[0] = g1_affine_t::infinity();
  EXPECT_EQ(problem(k), "ic point 0: the point at infinity, not allowed here");
}

// The validator fed query by query, in a .zkey's order (ic, a, b_g1, b_g2,
// l, h), reports what validate_key reports: the first bad point in the
// documented order (vk points, ic, h, l, a, b_g1, b_g2), not the first
// one checked; a validator given nothing checks everything at finish.
std::string fed_problem(const proving_key_t& k, setup_device_t device = setup_device_t::cpu) {
  using Q = key_query_t;
  try {
    key_validator_t v({.device = device, .threads = 2});
    for (Q q : {Q::ic, Q::a, Q::b_g1, Q::b_g2, Q::l, Q::h}) v.check(q, k);
    v.check(Q::a, k);  // a second time: ignored
    const key_validation_info_t info = v.finish(k);
    EXPECT_EQ(info.points, key_point_count(k));
    return "";
  } catch (const key_validation_error& e) {
    return e.what();
  }
}

TEST(key_validation, a_validator_fed_in_file_order_reports_the_documented_first) {
  EXPECT_EQ(fed_problem(good_key()), "");
  proving_key_t k = good_key();
  k.b_g1[2] = outside_subgroup<g1_params>();  // checked before h, reported after it
  k.h[4] = off_curve<g1_params>();
  EXPECT_EQ(fed_problem(k), "h point 4: not on the curve");
  EXPECT_EQ(fed_problem(k), problem(k));
  k.vk.ic[1] = outside_subgroup<g1_params>();
  EXPECT_EQ(fed_problem(k), "ic point 1: not in the prime-order subgroup");
  k.beta_g2 = off_curve<g2_params>();  // a verifying-key point comes first of all
  EXPECT_EQ(fed_problem(k), "beta_g2: not on the curve");
  EXPECT_EQ(fed_problem(k), problem(k));

  k = good_key();
  k.b_g2[0] = outside_subgroup<g2_params>();
  key_validator_t untouched({.device = setup_device_t::cpu, .threads = 1});
  EXPECT_THROW(untouched.finish(k), key_validation_error);
  {
    key_validator_t dropped({.device = setup_device_t::cpu, .threads = 1});  // never finished: waits, then goes
    dropped.check(key_query_t::h, k);
    dropped.check(key_query_t::b_g2, k);
  }
}

// Points outside G1 by one component only: P + T (T = (0, 2), order 3) and
// P + S, S = [h / 11²]([r] R) of order 11 (R a random curve point); and
// outside G2 by its 13-part, P + S with S = [h2 / 13²]([r] R).
g1_affine_t with_order_3_part() {
  const g1_affine_t t{fp_t::zero(), fp_t::from_u64(2)};
  return g1_jacobian_t::from_affine(test::random_subgroup_point<g1_params>()).add_mixed(t).to_affine();
}
g1_affine_t with_order_11_part() {
  return g1_jacobian_t::from_affine(test::random_subgroup_point<g1_params>())
      .add_mixed(test::torsion_point<g1_params>(11, test::rng()))
      .to_affine();
}
g2_affine_t with_order_13_part() {
  return g2_jacobian_t::from_affine(test::random_subgroup_point<g2_params>())
      .add_mixed(test::torsion_point<g2_params>(13, test::rng()))
      .to_affine();
}

// Queries long enough for the batched tests (msm/batch_membership.hpp,
// batched_min): a good key passes, and a bad point is named at its index
// whatever its bad component, with a second one after it, and with a cheap
// fault before or after it (the batched test then runs on the points
// before the cheap fault, which may hold no subgroup fault at all); the
// same in a long b_g2.
TEST(key_validation, large_queries_name_the_first_bad_point) {
  proving_key_t big = good_key();
  const std::vector<g1_affine_t> h = test::random_bases<g1_params>(test::rng(), 5000),
                                 l = test::random_bases<g1_params>(test::rng(), 3000);
  const std::vector<g2_affine_t> b2 = test::random_bases<g2_params>(test::rng(), 2500);
  big.h.assign(h.begin(), h.end());
  big.l.assign(l.begin(), l.end());
  big.b_g2.assign(b2.begin(), b2.end());
  for (size_t i = 0; i < big.l.size(); i += 9) big.l[i] = g1_affine_t::infinity();  // allowed in l
  for (unsigned threads : {1u, 2u}) {
    EXPECT_EQ(problem(big, threads), "") << threads;
    const std::function<g1_affine_t()> bad[] = {outside_subgroup<g1_params>, with_order_3_part, with_order_11_part};
    for (const auto& make : bad) {
      proving_key_t k = big;
      k.h[3001] = make();
      EXPECT_EQ(problem(k, threads), "h point 3001: not in the prime-order subgroup");
      k.h[4900] = make();
      EXPECT_EQ(problem(k, threads), "h point 3001: not in the prime-order subgroup");
      k.h[4000] = off_curve<g1_params>();
      EXPECT_EQ(problem(k, threads), "h point 3001: not in the prime-order subgroup");
      k.h[2500] = off_curve<g1_params>();
      EXPECT_EQ(problem(k, threads), "h point 2500: not on the curve");
      k = big;
      k.l[2222] = make();
      EXPECT_EQ(problem(k, threads), "l point 2222: not in the prime-order subgroup");
      EXPECT_EQ(fed_problem(k), "l point 2222: not in the prime-order subgroup");
    }
    const std::function<g2_affine_t()> bad2[] = {outside_subgroup<g2_params>, with_order_13_part};
    for (const auto& make : bad2) {
      proving_key_t k = big;
      k.b_g2[2400] = make();
      k.b_g2[2450] = make();
      EXPECT_EQ(problem(k, threads), "b_g2 point 2400: not in the prime-order subgroup");
    }
  }
}

TEST(key_validation, device_choice_without_a_gpu) {
  std::string why;
  if (setup_gpu_available(&why)) GTEST_SKIP() << "a GPU is present: the CPU-only behaviour is not what runs here";
  EXPECT_THROW(validate_key(good_key(), {.device = setup_device_t::gpu}), std::runtime_error);
  try {
    validate_key(good_key(), {.device = setup_device_t::gpu});
  } catch (const key_validation_error&) {
    ADD_FAILURE() << "a missing GPU is not a bad key";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("GPU"), std::string::npos) << e.what();
  }
  const key_validation_info_t info = validate_key(good_key(), {.device = setup_device_t::auto_, .threads = 1});
  EXPECT_FALSE(info.on_gpu);
  EXPECT_EQ(info.device, "the CPU (1 thread)");
}

// With a CUDA device: the same verdict and message as the CPU on a good key
// and on keys with one or two bad points of every kind in every query
// (fresh random points; the first bad index must come back).
TEST(key_validation, gpu_agrees_with_cpu) {
  std::string why;
  if (!setup_gpu_available(&why)) GTEST_SKIP() << why;
  const key_validation_info_t info = validate_key(good_key(), {.device = setup_device_t::gpu});
  EXPECT_TRUE(info.on_gpu);
  EXPECT_EQ(info.device.rfind("GPU 0: ", 0), 0u) << info.device;
  using G1 = g1_params;
  using G2 = g2_params;
  const std::function<void(proving_key_t&)> edits[] = {
      [](proving_key_t& k) { k.h.back() = outside_subgroup<G1>(); },
      [](proving_key_t& k) {
        k.h[1] = off_curve<G1>();
        k.h[3] = outside_subgroup<G1>();
      },
      [](proving_key_t& k) { k.h[2] = g1_affine_t::infinity(); },
      [](proving_key_t& k) { k.vk.ic[0] = non_canonical<G1>(); },
      [](proving_key_t& k) { k.l[0] = outside_subgroup<G1>(); },
      [](proving_key_t& k) {
        k.a[2] = off_curve<G1>();
        k.a[3] = g1_affine_t::infinity();
      },
      [](proving_key_t& k) { k.b_g1[1] = outside_subgroup<G1>(); },
      [](proving_key_t& k) {
        k.b_g2[2] = outside_subgroup<G2>();
        k.b_g2[0] = g2_affine_t::infinity();
      },
      [](proving_key_t& k) { k.b_g2[1] = off_curve<G2>(); },
      [](proving_key_t& k) { k.b_g2[3] = non_canonical<G2>(); },
  };
  for (size_t i = 0; i < std::size(edits); ++i) {
    proving_key_t k = good_key();
    edits[i](k);
    const std::string cpu = problem(k, 2, setup_device_t::cpu);
    EXPECT_NE(cpu, "") << i;
    EXPECT_EQ(problem(k, 2, setup_device_t::gpu), cpu) << i;
    EXPECT_EQ(fed_problem(k, setup_device_t::gpu), cpu) << i;
  }
}

}  // namespace
}  // namespace starzk
