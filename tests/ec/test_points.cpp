// Group laws of the point forms (affine, Jacobian, XYZZ) on G1 and G2.
//
// Each formula is held against another computed differently: doubling vs
// general addition vs mixed addition, XYZZ vs Jacobian, and the group axioms
// (associativity, commutativity, inverses, identity) on seeded random points
// of the subgroup and of the whole curve. Infinity enters every operand slot.
#include <gtest/gtest.h>

#include <vector>

#include "ec/xyzz.hpp"
#include "ec_test_util.hpp"

namespace starzk {
namespace {

using test::random_curve_point;
using test::random_scalar;
using test::random_subgroup_point;

template <class P>
class points_test : public ::testing::Test {};
using param_types = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(points_test, param_types);

template <class P>
using jac = jacobian_t<P>;
template <class P>
using aff = affine_t<P>;
template <class P>
using xyzz = xyzz_t<P>;

constexpr int n_random = 12;

// k as a field element (fp2_t has no from_u64): 1 + 1 + ... + 1.
template <class F>
F small(unsigned k) {
  F r = F::zero();
  for (unsigned i = 0; i < k; ++i) r = r + F::one();
  return r;
}

// The same point with Z scaled by lambda: (X l^2 : Y l^3 : Z l).
template <class P>
jac<P> rescale(const jac<P>& p, const typename P::field_t& l) {
  const auto l2 = l.sqr();
  return jac<P>{p.x * l2, p.y * l2 * l, p.z * l};
}

TYPED_TEST(points_test, layout_and_infinity_representation) {
  using P = TypeParam;
  const aff<P> o = aff<P>::infinity();
  EXPECT_TRUE(o.is_infinity());
  EXPECT_TRUE(o.x.is_zero() && o.y.is_zero());
  EXPECT_TRUE(o.is_on_curve());
  EXPECT_FALSE(aff<P>::generator().is_infinity());
  // (0, 0) is not a curve point, so it is free to mean O.
  EXPECT_FALSE((P::b()).is_zero());
  EXPECT_TRUE(jac<P>::infinity().is_infinity());
  EXPECT_TRUE(jac<P>::from_affine(o).is_infinity());
  EXPECT_TRUE(jac<P>::infinity().to_affine().is_infinity());
  EXPECT_TRUE(xyzz<P>::infinity().to_affine().is_infinity());
  EXPECT_TRUE(xyzz<P>::infinity().to_jacobian().is_infinity());
  EXPECT_TRUE(xyzz<P>::from_jacobian(jac<P>::infinity()).is_infinity());
  EXPECT_EQ(-o, o);
}

TYPED_TEST(points_test, generator_on_curve_and_affine_round_trip) {
  using P = TypeParam;
  const aff<P> g = aff<P>::generator();
  EXPECT_TRUE(g.is_on_curve());
  EXPECT_EQ(jac<P>::from_affine(g).to_affine(), g);
  // A perturbed point is off the curve.
  aff<P> bad = g;
  bad.y = bad.y + P::field_t::one();
  EXPECT_FALSE(bad.is_on_curve());
}

TYPED_TEST(points_test, dbl_agrees_with_add_and_add_mixed) {
  using P = TypeParam;
  for (int i = 0; i < n_random; ++i) {
    const aff<P> a = (i % 2) ? random_subgroup_point<P>() : random_curve_point<P>();
    const jac<P> p = rescale(jac<P>::from_affine(a), P::field_t::random(test::rng()));
    const jac<P> d = p.dbl();
    EXPECT_EQ(d, p.add(p));
    EXPECT_EQ(d, p.add(rescale(p, P::field_t::random(test::rng()))));
    EXPECT_EQ(d, p.add_mixed(a));
    EXPECT_TRUE(d.to_affine().is_on_curve());
    EXPECT_NE(d, p);
  }
}

TYPED_TEST(points_test, add_mixed_agrees_with_add) {
  using P = TypeParam;
  for (int i = 0; i < n_random; ++i) {
    const aff<P> a = random_curve_point<P>();
    const aff<P> b = random_curve_point<P>();
    const jac<P> pa = rescale(jac<P>::from_affine(a), P::field_t::random(test::rng()));
    const jac<P> sum = pa.add(jac<P>::from_affine(b));
    EXPECT_EQ(sum, pa.add_mixed(b));
    EXPECT_EQ(sum, jac<P>::from_affine(b).add(pa));  // commutative
    const aff<P> s = sum.to_affine();
    EXPECT_TRUE(s.is_on_curve());
    EXPECT_NE(s, a);
    EXPECT_NE(s, b);
  }
}

TYPED_TEST(points_test, associativity) {
  using P = TypeParam;
  for (int i = 0; i < n_random; ++i) {
    const jac<P> a = jac<P>::from_affine(random_curve_point<P>());
    const jac<P> b = jac<P>::from_affine(random_curve_point<P>());
    const jac<P> c = jac<P>::from_affine(random_curve_point<P>());
    EXPECT_EQ(a.add(b).add(c), a.add(b.add(c)));
    EXPECT_EQ(a.add(a).add(b), a.add(a.add(b)));  // exercises the P == Q branch inside
  }
}

TYPED_TEST(points_test, inverse_and_identity) {
  using P = TypeParam;
  for (int i = 0; i < n_random; ++i) {
    const aff<P> a = random_curve_point<P>();
    const jac<P> p = rescale(jac<P>::from_affine(a), P::field_t::random(test::rng()));
    const jac<P> o = jac<P>::infinity();
    EXPECT_TRUE(p.add(p.neg()).is_infinity());
    EXPECT_TRUE(p.add(jac<P>::from_affine(-a)).is_infinity());
    EXPECT_TRUE(p.add_mixed(-a).is_infinity());
    EXPECT_TRUE((p - p).is_infinity());
    EXPECT_EQ(p.add(o), p);
    EXPECT_EQ(o.add(p), p);
    EXPECT_EQ(p.add_mixed(aff<P>::infinity()), p);
    EXPECT_EQ(o.add_mixed(a), p);
    EXPECT_TRUE(o.add(o).is_infinity());
    EXPECT_TRUE(o.dbl().is_infinity());
    EXPECT_TRUE(o.add_mixed(aff<P>::infinity()).is_infinity());
    EXPECT_EQ((-p).to_affine(), -a);
  }
}

TYPED_TEST(points_test, projective_equality) {
  using P = TypeParam;
  const jac<P> g = jac<P>::generator();
  const jac<P> g2 = rescale(g, small<typename P::field_t>(7));
  EXPECT_EQ(g, g2);
  EXPECT_NE(g, g2.neg());
  EXPECT_NE(g, jac<P>::infinity());
  EXPECT_NE(jac<P>::infinity(), g);
  EXPECT_EQ(jac<P>::infinity(),
            (jac<P>{small<typename P::field_t>(5), small<typename P::field_t>(9), P::field_t::zero()}));
  // Same x, other y: must differ.
  EXPECT_NE(g, jac<P>::from_affine(-aff<P>::generator()));
}

TYPED_TEST(points_test, xyzz_agrees_with_jacobian) {
  using P = TypeParam;
  for (int i = 0; i < n_random; ++i) {
    const aff<P> a = random_curve_point<P>();
    const aff<P> b = random_curve_point<P>();
    const jac<P> ja = rescale(jac<P>::from_affine(a), P::field_t::random(test::rng()));
    const jac<P> jb = rescale(jac<P>::from_affine(b), P::field_t::random(test::rng()));
    const xyzz<P> xa = xyzz<P>::from_jacobian(ja);
    const xyzz<P> xb = xyzz<P>::from_jacobian(jb);
    EXPECT_EQ(xa.to_affine(), a);
    EXPECT_EQ(xa.to_jacobian(), ja);
    EXPECT_EQ(xa.add(xb).to_jacobian(), ja.add(jb));
    EXPECT_EQ(xa.add_mixed(b).to_jacobian(), ja.add_mixed(b));
    EXPECT_EQ(xa.dbl().to_jacobian(), ja.dbl());
    EXPECT_EQ(xa.add(xa).to_jacobian(), ja.dbl());                                      // P == Q through add
    EXPECT_EQ(xyzz<P>::from_affine(a).add_mixed(a).to_affine(), ja.dbl().to_affine());  // mdbl
    EXPECT_EQ(xa.add_mixed(a).to_jacobian(), ja.dbl());                                 // P == Q through add_mixed
    EXPECT_TRUE(xa.add(xa.neg()).is_infinity());
    EXPECT_TRUE(xa.add_mixed(-a).is_infinity());
    EXPECT_EQ(xa.add(xyzz<P>::infinity()), xa);
    EXPECT_EQ(xyzz<P>::infinity().add(xa), xa);
    EXPECT_EQ(xyzz<P>::infinity().add_mixed(a), xa);
    EXPECT_EQ(xa.add_mixed(aff<P>::infinity()), xa);
    EXPECT_TRUE(xyzz<P>::infinity().dbl().is_infinity());
  }
}

TYPED_TEST(points_test, xyzz_bucket_accumulation) {
  using P = TypeParam;
  // A bucket summing the same point k times equals [k] P.
  const aff<P> a = random_subgroup_point<P>();
  xyzz<P> bucket = xyzz<P>::infinity();
  jac<P> ref = jac<P>::infinity();
  for (int k = 1; k <= 20; ++k) {
    bucket += a;
    ref += a;
    ASSERT_EQ(bucket.to_jacobian(), ref) << "k = " << k;
  }
  EXPECT_EQ(bucket.to_jacobian(), mul_u64(a, 20));
}

TYPED_TEST(points_test, batch_to_affine) {
  using P = TypeParam;
  std::vector<jac<P>> in;
  for (int i = 0; i < 9; ++i) {
    if (i % 4 == 0)
      in.push_back(jac<P>::infinity());
    else
      in.push_back(rescale(jac<P>::from_affine(random_curve_point<P>()), P::field_t::random(test::rng())));
  }
  std::vector<aff<P>> out(in.size());
  jac<P>::batch_to_affine(in, out);
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out[i], in[i].to_affine()) << "i = " << i;

  // Empty and single-element spans; length mismatch is an error.
  jac<P>::batch_to_affine(std::span<const jac<P>>(), std::span<aff<P>>());
  std::vector<aff<P>> one(1);
  jac<P>::batch_to_affine(std::span<const jac<P>>(in.data() + 1, 1), one);
  EXPECT_EQ(one[0], in[1].to_affine());
  std::vector<aff<P>> short_out(in.size() - 1);
  EXPECT_THROW(jac<P>::batch_to_affine(in, short_out), std::runtime_error);

  // The XYZZ form: the same points, each from its Jacobian form.
  std::vector<xyzz<P>> xin(in.size());
  for (size_t i = 0; i < in.size(); ++i) xin[i] = xyzz<P>::from_jacobian(in[i]);
  std::vector<aff<P>> xout(in.size());
  xyzz<P>::batch_to_affine(xin, xout);
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(xout[i], in[i].to_affine()) << "i = " << i;
  EXPECT_THROW(xyzz<P>::batch_to_affine(xin, short_out), std::runtime_error);
}

}  // namespace
}  // namespace starzk
