// The codelets' CPU bodies, called directly (no StarPU running) with
// hand-made vector interfaces as their buffers, phase by phase against the
// reference prover: spmv = witness_map, ntt_h = compute_h, prep_msm =
// prep_msm, msm / b_g2_msm = compute_msms, assemble = prove_with_blinding.
// Then the failure paths: an unsatisfied witness fails at assemble (the
// proof does not verify), a witness buffer that is not the home object
// fails at spmv, later phases skip, and free still releases the memory;
// nothing throws out of a body. The rows a, b, c are StarPU's own buffers
// in a real run: here the bench's vectors stand for them.
#include <gtest/gtest.h>
#include <starpu.h>

#include <memory>

#include "codelets/codelets.hpp"
#include "codelets/witness_map_into.hpp"
#include "groth16/prover.hpp"
#include "groth16/witness_map.hpp"
#include "msm/prep_msm.hpp"
#include "test_inputs.hpp"

namespace starzk {
namespace {

using codelets::msm_query_t;
using codelets::partition_state_t;

// A vector interface standing for a StarPU buffer of the given memory.
struct fake_buffer_t {
  starpu_vector_interface iface{};
  fake_buffer_t(const void* p, size_t n, size_t elem) {
    iface.id = STARPU_VECTOR_INTERFACE_ID;
    iface.ptr = reinterpret_cast<uintptr_t>(p);
    iface.nx = uint32_t(n);
    iface.elemsize = elem;
  }
};

// Runs a codelet's CPU body on fake buffers.
void run_body(starpu_codelet* cl, std::vector<fake_buffer_t> bufs, void* arg) {
  std::vector<void*> ptrs;
  for (fake_buffer_t& b : bufs) ptrs.push_back(&b.iface);
  ASSERT_NE(cl->cpu_funcs[0], nullptr);
  cl->cpu_funcs[0](ptrs.data(), arg);
}

fake_buffer_t vec(std::vector<fr_t>& v) { return fake_buffer_t(v.data(), v.size(), sizeof(fr_t)); }
fake_buffer_t dummy() {
  static uint64_t x = 0;
  return fake_buffer_t(&x, 1, sizeof(x));
}

unsigned log2u(uint64_t n) {
  unsigned k = 0;
  while ((uint64_t(1) << k) < n) ++k;
  return k;
}

// A partition state over a case's key, with its own domain.
struct bench_t {
  const test::prove_case_t& c;
  domain_t domain;
  std::unique_ptr<partition_state_t> p = std::make_unique<partition_state_t>();
  std::vector<fr_t> ra, rb, rc;  // the rows a, b, c: StarPU's buffers in a real run
  explicit bench_t(const test::prove_case_t& pc, const std::vector<fr_t>& w)
      : c(pc), domain(log2u(pc.pk->domain_size), pc.pk->convention, 1) {
    p->key = codelets::key_view_t{c.pk.get(), c.cs.get(), &domain};
    p->label = c.name + "#0";
    p->w = w;
    p->publics = public_inputs(*c.pk, w);
    ra.assign(c.pk->domain_size, fr_t::zero());
    rb = ra;
    rc = ra;
  }
  void spmv() { run_body(codelets::spmv_codelet(), {vec(p->w), vec(ra), vec(rb), vec(rc)}, p.get()); }
  void ntt_h() { run_body(codelets::ntt_h_codelet(), {vec(ra), vec(rb), vec(rc), dummy(), dummy()}, p.get()); }
  void prep() { run_body(codelets::prep_msm_codelet(), {vec(p->w), dummy()}, p.get()); }
  void msm(msm_query_t q) {
    if (q == msm_query_t::h)
      run_body(codelets::msm_codelet(), {dummy(), vec(ra), dummy()}, &p->msm_args[int(q)]);
    else
      run_body(codelets::msm_codelet(), {dummy(), vec(p->w), dummy(), dummy()}, &p->msm_args[int(q)]);
  }
  void b_g2() { run_body(codelets::b_g2_msm_codelet(), {dummy(), vec(p->w), dummy(), dummy()}, &p->b_g2_arg); }
  void assemble() {
    run_body(codelets::assemble_codelet(), {dummy(), dummy(), dummy(), dummy(), dummy(), dummy()}, p.get());
  }
  void free() { run_body(codelets::free_codelet(), {vec(p->w), dummy()}, &p->free_rest); }
  void all() {
    spmv();
    prep();
    ntt_h();
    for (int q = 0; q < codelets::msm_query_count; ++q) msm(msm_query_t(q));
    b_g2();
    assemble();
  }
};

class codelet_bodies : public ::testing::TestWithParam<std::string> {};
class codelet_bodies_light : public ::testing::TestWithParam<std::string> {};  // "bits" (slow to load) left out

TEST_P(codelet_bodies, each_phase_matches_the_reference_prover) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  const std::vector<fr_t>& w = c.witnesses.front();
  const proving_key_t& pk = *c.pk;
  bench_t b(c, w);

  b.spmv();
  ASSERT_FALSE(b.p->failed()) << b.p->error();
  qap_rows_t rows = witness_map(pk, c.cs.get(), w, 1);
  EXPECT_EQ(b.ra, rows.a);
  EXPECT_EQ(b.rb, rows.b);
  EXPECT_EQ(b.rc, rows.c);

  b.ntt_h();
  const std::vector<fr_t> h = compute_h(pk, std::move(rows), 1);
  ASSERT_EQ(h.size(), b.p->h_len());
  EXPECT_TRUE(std::equal(h.begin(), h.end(), b.ra.begin()));

  b.prep();
  const prep_msm_t ref_w = prep_msm(w, pk.n_public + 1, 1);
  EXPECT_EQ(b.p->prep.w.tail_index, ref_w.tail_index);
  EXPECT_EQ(b.p->prep.w.ones, ref_w.ones);
  EXPECT_EQ(b.p->prep_bytes, codelets::prep_msm_bytes(b.p->prep.w) + codelets::prep_msm_bytes(b.p->prep.aux));
  EXPECT_LE(b.p->prep_bytes, codelets::prep_msm_max_bytes(pk.n_vars, pk.n_public));

  for (int q = 0; q < codelets::msm_query_count; ++q) b.msm(msm_query_t(q));
  b.b_g2();
  const msm_results_t ref = compute_msms(pk, w, h, 1);
  EXPECT_EQ(b.p->msm.h.to_affine(), ref.h.to_affine());
  EXPECT_EQ(b.p->msm.l.to_affine(), ref.l.to_affine());
  EXPECT_EQ(b.p->msm.a.to_affine(), ref.a.to_affine());
  EXPECT_EQ(b.p->msm.b_g1.to_affine(), ref.b_g1.to_affine());
  EXPECT_EQ(b.p->msm.b_g2.to_affine(), ref.b_g2.to_affine());

  const blinding_t rs = test::test_blinding(7);
  b.p->fixed_rs = rs;
  b.assemble();
  ASSERT_FALSE(b.p->failed()) << b.p->error();
  EXPECT_EQ(b.p->proof, prove_with_blinding(pk, c.cs.get(), w, rs, 1));

  b.free();
  EXPECT_TRUE(b.p->w.empty());
  EXPECT_TRUE(b.p->prep.w.tail_scalars.empty() && b.p->prep.aux.ones.empty());
}

TEST_P(codelet_bodies_light, witness_map_into_matches_witness_map) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  const std::vector<fr_t>& w = c.witnesses.back();
  const uint64_t n = c.pk->domain_size;
  std::vector<fr_t> a(n, fr_t::one()), b(n, fr_t::one()), cc(n, fr_t::one());  // stale values must go
  codelets::witness_map_into(*c.pk, c.cs.get(), w, a, b, cc, 2);
  const qap_rows_t rows = witness_map(*c.pk, c.cs.get(), w, 1);
  EXPECT_EQ(a, rows.a);
  EXPECT_EQ(b, rows.b);
  EXPECT_EQ(cc, rows.c);
  std::vector<fr_t> short_row(n - 1);
  EXPECT_THROW(codelets::witness_map_into(*c.pk, c.cs.get(), w, a, b, short_row), std::invalid_argument);
  EXPECT_THROW(codelets::witness_map_into(*c.pk, c.cs.get(), std::span<const fr_t>(w).first(w.size() - 1), a, b, cc),
               std::invalid_argument);
  // A witness that breaks a constraint: refused by the witness map of a
  // bellman key (the circuit's C is there to check against), naming the
  // first broken constraint.
  if (c.pk->convention == root_convention_t::bellman) {
    std::vector<fr_t> bad = w;
    bad.back() += fr_t::one();
    const std::optional<uint64_t> row = first_unsatisfied_row(*c.cs, bad);
    ASSERT_TRUE(row.has_value()) << "the last wire is in no constraint";
    try {
      codelets::witness_map_into(*c.pk, c.cs.get(), bad, a, b, cc, 2);
      ADD_FAILURE() << "a witness that breaks constraint " << *row << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("does not satisfy constraint " + std::to_string(*row) + " "),
                std::string::npos)
          << e.what();
    }
  }
}

// The cases' circuits (and the .zkey matrices of keys made from them) are
// coded (groth16/r1cs.hpp); their plain forms give the same rows.
TEST_P(codelet_bodies_light, witness_map_into_same_for_coded_and_plain_matrices) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  const std::vector<fr_t>& w = c.witnesses.front();
  ASSERT_TRUE(c.cs->a.coded());
  r1cs_t cs = *c.cs;
  expand_circuit(cs, 2);
  proving_key_t pk = *c.pk;
  expand_matrix(pk.zkey_a, 2);
  expand_matrix(pk.zkey_b, 2);
  const uint64_t n = c.pk->domain_size;
  std::vector<fr_t> a(n), b(n), cc(n), pa(n), pb(n), pc(n);
  codelets::witness_map_into(*c.pk, c.cs.get(), w, a, b, cc, 2);
  codelets::witness_map_into(pk, &cs, w, pa, pb, pc, 2);
  EXPECT_EQ(a, pa);
  EXPECT_EQ(b, pb);
  EXPECT_EQ(cc, pc);
  if (pk.convention == root_convention_t::bellman) {
    for (uint64_t s = 0; s <= cs.n_public; ++s) EXPECT_EQ(a[cs.n_constraints + s], w[s]) << "input row " << s;
  }
}

// spmv_passes and spmv_dev (the witness map of a small GPU's plan,
// codelets/spmv_passes.cpp) on the CPUs: the same rows as spmv from w, a,
// b, c alone (no matrix buffers), over stale row values; a bellman witness
// that breaks a constraint fails its partition there, naming the
// constraint.
TEST_P(codelet_bodies_light, spmv_passes_cpu_body_gives_spmv_rows) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  const std::vector<fr_t>& w = c.witnesses.back();
  for (starpu_codelet* cl : {codelets::spmv_passes_codelet(), codelets::spmv_dev_codelet()}) {
    SCOPED_TRACE(cl->name);
    bench_t b(c, w);
    for (std::vector<fr_t>* r : {&b.ra, &b.rb, &b.rc}) r->assign(r->size(), fr_t::one());
    run_body(cl, {vec(b.p->w), vec(b.ra), vec(b.rb), vec(b.rc)}, b.p.get());
    ASSERT_FALSE(b.p->failed()) << b.p->error();
    const qap_rows_t rows = witness_map(*c.pk, c.cs.get(), w, 1);
    EXPECT_EQ(b.ra, rows.a);
    EXPECT_EQ(b.rb, rows.b);
    EXPECT_EQ(b.rc, rows.c);
    if (c.pk->convention != root_convention_t::bellman) continue;
    std::vector<fr_t> bad = w;
    bad.back() += fr_t::one();
    const std::optional<uint64_t> row = first_unsatisfied_row(*c.cs, bad);
    ASSERT_TRUE(row.has_value()) << "the last wire is in no constraint";
    bench_t broken(c, bad);
    run_body(cl, {vec(broken.p->w), vec(broken.ra), vec(broken.rb), vec(broken.rc)}, broken.p.get());
    ASSERT_TRUE(broken.p->failed());
    EXPECT_NE(broken.p->error().find("spmv_passes: "), std::string::npos) << broken.p->error();
    EXPECT_NE(broken.p->error().find("does not satisfy constraint " + std::to_string(*row) + " "), std::string::npos)
        << broken.p->error();
  }
}

// A bellman key's witness map checks the constraints (the circuit's C is
// there), so the partition fails at its first task; a snarkjs key has no
// C, and the proof's own check at assemble refuses it.
TEST_P(codelet_bodies_light, unsatisfied_witness_fails_its_partition_and_names_it) {
  const test::prove_case_t& c = test::prove_case(GetParam());
  std::vector<fr_t> w = c.witnesses.front();
  w.back() += fr_t::one();  // the last aux wire: some constraint breaks
  bench_t b(c, w);
  b.all();
  ASSERT_TRUE(b.p->failed());
  const bool bellman = c.pk->convention == root_convention_t::bellman;
  EXPECT_NE(b.p->error().find("partition " + c.name + "#0: " + (bellman ? "spmv:" : "assemble:")), std::string::npos)
      << b.p->error();
  EXPECT_NE(b.p->error().find(bellman ? "does not satisfy constraint" : "does not verify"), std::string::npos)
      << b.p->error();
  b.free();
  EXPECT_TRUE(b.p->w.empty());
}

// Rows in host memory go by two free tasks before the last one: each task
// releases what its argument names (into the pool when there is one) and
// nothing else.
TEST(codelet_free, each_task_releases_what_it_names) {
  const test::prove_case_t& c = test::prove_case("mimc");
  bench_t b(c, c.witnesses.front());
  partition_state_t& p = *b.p;
  for (std::vector<fr_t>& r : p.rows) r.assign(c.pk->domain_size, fr_t::one());
  std::vector<const fr_t*> pooled;
  p.recycle = [&](std::vector<fr_t>&& v) {
    pooled.push_back(v.data());
    std::vector<fr_t>().swap(v);
  };
  const fr_t* row_data[3] = {p.rows[0].data(), p.rows[1].data(), p.rows[2].data()};
  const fr_t* w_data = p.w.data();
  b.prep();
  ASSERT_FALSE(p.prep.w.ones.empty());

  run_body(codelets::free_codelet(), {vec(p.rows[1]), vec(p.rows[2])}, &p.free_rows_bc);
  EXPECT_FALSE(p.rows[0].empty());
  EXPECT_TRUE(p.rows[1].empty() && p.rows[2].empty());
  EXPECT_FALSE(p.w.empty());
  EXPECT_FALSE(p.prep.w.ones.empty());
  EXPECT_EQ(pooled, (std::vector<const fr_t*>{row_data[1], row_data[2]}));

  run_body(codelets::free_codelet(), {vec(p.rows[0])}, &p.free_row_a);
  EXPECT_TRUE(p.rows[0].empty());
  EXPECT_FALSE(p.w.empty());
  ASSERT_EQ(pooled.size(), 3u);
  EXPECT_EQ(pooled[2], row_data[0]);

  b.free();
  EXPECT_TRUE(p.w.empty());
  EXPECT_TRUE(p.prep.w.ones.empty() && p.prep.aux.tail_scalars.empty());
  ASSERT_EQ(pooled.size(), 4u);
  EXPECT_EQ(pooled[3], w_data);
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(cases, codelet_bodies, ::testing::ValuesIn(test::prove_case_names()), case_name);
INSTANTIATE_TEST_SUITE_P(cases, codelet_bodies_light,
                         ::testing::Values("multiplier", "mimc", "gen-bellman", "gen-snarkjs"), case_name);

TEST(codelet_failures, foreign_buffer_fails_spmv_then_later_phases_skip) {
  const test::prove_case_t& c = test::prove_case("multiplier");
  bench_t b(c, c.witnesses.front());
  std::vector<fr_t> elsewhere = b.p->w;  // a copy of w, not the home object
  run_body(codelets::spmv_codelet(), {vec(elsewhere), vec(b.ra), vec(b.rb), vec(b.rc)}, b.p.get());
  ASSERT_TRUE(b.p->failed());
  EXPECT_NE(b.p->error().find("spmv"), std::string::npos);
  EXPECT_NE(b.p->error().find("main-RAM home"), std::string::npos);
  const std::string first = b.p->error();
  b.ra[0] = fr_t::one();
  b.ntt_h();  // skipped: a untouched, the first error kept
  EXPECT_TRUE(b.ra[0].is_one());
  b.assemble();
  EXPECT_EQ(b.p->error(), first);
  b.free();  // runs anyway
  EXPECT_TRUE(b.p->w.empty());
}

TEST(codelet_failures, wrong_witness_length_is_caught_inside_the_body) {
  const test::prove_case_t& c = test::prove_case("mimc");
  bench_t b(c, c.witnesses.front());
  b.p->w.pop_back();
  b.spmv();
  ASSERT_TRUE(b.p->failed());
  EXPECT_NE(b.p->error().find("witness has"), std::string::npos) << b.p->error();
}

}  // namespace
}  // namespace starzk
