// Device witness map (cuda/spmv.cu) against the host reference of
// src/groth16: spmv() for one matrix, witness_map_r1cs() for the bellman
// form (the same rule as codelets/witness_map_into: input rows
// a[n_constraints + s] = w[s], zero padding), and spmv + a∘b for snarkjs.
// Inputs are fresh each run (seed printed; STARZK_SEED replays): random CSR
// matrices with empty rows, rows of 1..3 terms, some of 9..200 and a few of
// 100..5000, duplicate columns, coefficients ±1 / small / random and a
// witness mostly 0/1; sizes 0, 1, 2, 2^k, 2^k + 1, n_out > n_rows; every
// tier of the kernel forced through the tuning. Two oracles that share
// nothing with spmv(): all-one coefficients and witness give the row length,
// and a Filecoin-shaped circuit (src/gen) with a satisfying witness must give
// a∘b = c on every row. Outputs carry a poisoned guard past their end.
// Coded matrices (src/groth16/r1cs.hpp: u16 codes into a dictionary) go
// through the same checks, mixed with plain ones in one launch, plus a full
// dictionary of 65536 entries (codes up to 65535). Argument checks run
// without a GPU too.
#include <array>
#include <vector>

#include "gen/filecoin_shape.hpp"
#include "gpu_test_util.hpp"
#include "groth16/witness_map.hpp"
#include "spmv_test_util.hpp"

namespace starzk::gpu::test {
namespace {

constexpr size_t guard = 3;       // entries past the end that must stay untouched
constexpr uint8_t poison = 0xA5;  // byte pattern of outputs before a launch

// ---- device buffers ----
// A matrix in device memory, in its own form: val, or code and dict.
struct dev_csr_t {
  device_buffer_t rp, col, val, code, dict;
  csr_view_t view{};
  explicit dev_csr_t(const sparse_matrix_t& m)
      : rp(m.row_ptr.size() * sizeof(uint64_t)),
        col(m.col.size() * sizeof(uint32_t)),
        val(m.val.size() * sizeof(fr_t)),
        code(m.code.size() * sizeof(uint16_t)),
        dict(m.dict.size() * sizeof(fr_t)) {
    rp.upload(m.row_ptr.data(), rp.size());
    col.upload(m.col.data(), col.size());
    val.upload(m.val.data(), val.size());
    code.upload(m.code.data(), code.size());
    dict.upload(m.dict.data(), dict.size());
    view = {rp.as<const uint64_t>(), col.as<const uint32_t>(), val.as<const fr_t>(), m.n_rows};
    if (m.coded()) {
      view.val = nullptr;
      view.code = code.as<const uint16_t>();
      view.dict = dict.as<const fr_t>();
    }
  }
};

struct dev_vec_t {
  device_buffer_t buf;
  explicit dev_vec_t(const std::vector<fr_t>& h) : buf(h.size() * sizeof(fr_t)) { buf.upload(h.data(), buf.size()); }
  const fr_t* get() const { return buf.as<const fr_t>(); }
};

// n outputs plus a guard, all poisoned; read() checks the guard.
struct dev_out_t {
  size_t n;
  device_buffer_t buf;
  explicit dev_out_t(size_t n) : n(n), buf((n + guard) * sizeof(fr_t)) {
    const std::vector<uint8_t> p(buf.size(), poison);
    buf.upload(p.data(), p.size());
  }
  fr_t* get() const { return buf.as<fr_t>(); }
  std::vector<fr_t> read() const {
    std::vector<fr_t> h(n + guard);
    buf.download(h.data(), buf.size());
    const auto* bytes = reinterpret_cast<const uint8_t*>(h.data() + n);
    for (size_t k = 0; k < guard * sizeof(fr_t); ++k)
      if (bytes[k] != poison) {
        ADD_FAILURE() << "write past the end (n = " << n << ")";
        break;
      }
    h.resize(n);
    return h;
  }
};

const spmv_tuning_t tunings[] = {
    {},                    // defaults: thread <= 8 < warp <= 1024 < block
    {0, 1u << 30},         // every non-empty row by a warp
    {2, 16},               // the block tier from 17 terms on
    {1u << 30, 1u << 30},  // every row by one thread
};

std::vector<fr_t> ref_spmv(const sparse_matrix_t& m, const std::vector<fr_t>& w, size_t n_out) {
  std::vector<fr_t> y(n_out, fr_t::zero());
  spmv(m, w, y, 1);
  return y;
}

// m (either form) against the host reference under every tuning.
void check_spmv_of(const sparse_matrix_t& m, const std::vector<fr_t>& w, size_t n_out, const std::vector<fr_t>& want) {
  dev_csr_t dm(m);
  dev_vec_t dw(w);
  stream_t s;
  for (const auto& tune : tunings) {
    dev_out_t out(n_out);
    ASSERT_EQ(spmv_fr(out.get(), n_out, dm.view, dw.get(), s.get(), tune), cudaSuccess);
    s.sync();
    EXPECT_EQ(mismatches(out.read(), want, m.coded() ? "spmv_fr coded" : "spmv_fr"), 0u)
        << "rows=" << m.n_rows << " n_out=" << n_out << " short_max=" << tune.short_max
        << " warp_max=" << tune.warp_max;
  }
}

// A fresh random matrix, plain and coded; the reference from the plain form.
void check_spmv(std::mt19937_64& rng, uint64_t rows, size_t n_out, size_t n_long) {
  const uint64_t cols = 1 + rng() % 3000;
  const sparse_matrix_t m = random_matrix(rng, rows, cols, n_long);
  const std::vector<fr_t> w = random_witness(rng, cols);
  const std::vector<fr_t> want = ref_spmv(m, w, n_out);
  check_spmv_of(m, w, n_out, want);
  check_spmv_of(coded(m), w, n_out, want);
}

TEST(CudaSpmv, RandomMatricesAllTiers) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const std::pair<uint64_t, size_t> shapes[] = {{0, 0},       {0, 1},       {0, 7},           {1, 1},
                                                {1, 2},       {2, 2},       {1024, 1024},     {1025, 2048},
                                                {4097, 4097}, {3000, 5000}, {20000, 1u << 15}};
  for (auto [rows, n_out] : shapes) check_spmv(rng, rows, n_out, rows >= 1000 ? 4 : 0);
}

// A dictionary of 65536 entries (1 and −1 among them, so the shortcuts
// apply) and codes drawn over all of it, 65535 included: rows of every tier.
TEST(CudaSpmv, FullDictionary) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  sparse_matrix_t m = random_matrix(rng, 20000, 2500, 6);
  m.dict.resize(max_dict_size);
  for (auto& v : m.dict) v = fr_t::random(rng);
  m.dict[rng() % max_dict_size] = fr_t::one();
  m.dict[rng() % max_dict_size] = -fr_t::one();
  m.code.resize(m.nnz());
  for (auto& c : m.code) c = uint16_t(rng() % 4 == 0 ? max_dict_size - 1 - rng() % 4 : rng() % max_dict_size);
  m.val.clear();
  ASSERT_TRUE(m.coded());
  const std::vector<fr_t> w = random_witness(rng, m.n_cols);
  std::vector<fr_t> want(20001, fr_t::zero());
  spmv(m, w, want, 2);  // the host reference reads the coded form itself
  sparse_matrix_t plain = m;
  expand_matrix(plain);
  EXPECT_EQ(ref_spmv(plain, w, want.size()), want);  // and agrees with the plain form
  check_spmv_of(m, w, want.size(), want);
}

TEST(CudaSpmv, LongRowsOnly) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  check_spmv(rng, 7, 9, 7);       // each row (likely) 100..5000 terms, in one tile
  check_spmv(rng, 300, 300, 40);  // long rows in two tiles, next to short ones
}

// Independent oracle: coefficients all c = ±1 and a witness of ones give
// out[i] = c·len(i); a zero witness gives zero everywhere. Plain, and coded
// with a one-entry dictionary.
void check_unit_coefficients(const sparse_matrix_t& m, const fr_t& c) {
  const size_t n_out = 2048;
  dev_csr_t dm(m);
  stream_t s;
  for (const bool ones : {true, false}) {
    dev_vec_t dw(std::vector<fr_t>(500, ones ? fr_t::one() : fr_t::zero()));
    std::vector<fr_t> want(n_out, fr_t::zero());
    if (ones)
      for (uint64_t i = 0; i < m.n_rows; ++i) want[i] = c * fr_t::from_u64(m.row_ptr[i + 1] - m.row_ptr[i]);
    for (const auto& tune : tunings) {
      dev_out_t out(n_out);
      ASSERT_EQ(spmv_fr(out.get(), n_out, dm.view, dw.get(), s.get(), tune), cudaSuccess);
      s.sync();
      EXPECT_EQ(mismatches(out.read(), want, ones ? "ones" : "zero witness"), 0u) << "coded " << m.coded();
    }
  }
}

TEST(CudaSpmv, UnitCoefficientsCountTerms) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (const fr_t c : {fr_t::one(), -fr_t::one()}) {
    sparse_matrix_t m = random_matrix(rng, 2000, 500, 6);
    for (auto& v : m.val) v = c;
    check_unit_coefficients(m, c);
    check_unit_coefficients(coded(m), c);
  }
}

// ---- the two witness maps ----
// Device bellman map of cs at domain size n; returns {a, b, c}.
std::array<std::vector<fr_t>, 3> device_bellman(const r1cs_t& cs, const std::vector<fr_t>& w, size_t n,
                                                const spmv_tuning_t& tune = {}) {
  dev_csr_t A(cs.a), B(cs.b), C(cs.c);
  dev_vec_t dw(w);
  dev_out_t a(n), b(n), c(n);
  stream_t s;
  EXPECT_EQ(qap_rows_bellman(a.get(), b.get(), c.get(), n, A.view, B.view, C.view, cs.n_constraints, cs.n_public,
                             dw.get(), s.get(), tune),
            cudaSuccess);
  s.sync();
  return {a.read(), b.read(), c.read()};
}

TEST(CudaSpmv, BellmanMatchesHostWitnessMap) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  // (constraints, publics, n): n exactly full, padded, 1-row domains, big.
  const std::array<uint64_t, 3> cases[] = {{0, 0, 1},        {0, 0, 4},      {1, 0, 2},        {5, 2, 8},
                                           {1000, 23, 1024}, {990, 5, 1024}, {3000, 10, 4096}, {20000, 328, 1u << 15}};
  for (auto [nc, np, n] : cases) {
    const random_circuit_t rc = random_circuit(rng, uint32_t(nc), uint32_t(np));
    const qap_rows_t want = witness_map_r1cs(rc.cs, rc.w, n, 1);
    // Plain, all coded, and the forms mixed in one launch (A, C coded).
    r1cs_t all_coded = rc.cs, mixed = rc.cs;
    all_coded.a = coded(rc.cs.a), all_coded.b = coded(rc.cs.b), all_coded.c = coded(rc.cs.c);
    mixed.a = all_coded.a, mixed.c = all_coded.c;
    for (const r1cs_t* cs : std::initializer_list<const r1cs_t*>{&rc.cs, &all_coded, &mixed}) {
      const char* form = cs == &rc.cs ? "plain" : cs == &mixed ? "mixed" : "coded";
      for (const auto& tune : {tunings[0], tunings[2]}) {
        const auto got = device_bellman(*cs, rc.w, n, tune);
        EXPECT_EQ(mismatches(got[0], want.a, "bellman a"), 0u) << form << " constraints=" << nc << " n=" << n;
        EXPECT_EQ(mismatches(got[1], want.b, "bellman b"), 0u) << form << " constraints=" << nc << " n=" << n;
        EXPECT_EQ(mismatches(got[2], want.c, "bellman c"), 0u) << form << " constraints=" << nc << " n=" << n;
      }
    }
  }
}

TEST(CudaSpmv, SnarkjsMatchesHostWitnessMap) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  // (rows of A, rows of B, n)
  const std::array<uint64_t, 3> cases[] = {{0, 0, 1}, {1, 0, 1},          {0, 1, 1},         {1, 1, 1},
                                           {3, 2, 4}, {1024, 1024, 1024}, {1000, 700, 1024}, {4097, 4000, 8192}};
  stream_t s;
  for (auto [ra, rb, n] : cases) {
    const uint64_t cols = 1 + rng() % 2000;
    const sparse_matrix_t A = random_matrix(rng, ra, cols, ra >= 1000 ? 3 : 0);
    const sparse_matrix_t B = random_matrix(rng, rb, cols, rb >= 1000 ? 3 : 0);
    const std::vector<fr_t> w = random_witness(rng, cols);
    const std::vector<fr_t> a = ref_spmv(A, w, n), b = ref_spmv(B, w, n);
    std::vector<fr_t> c(n);
    for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
    dev_vec_t dw(w);
    // Plain; A coded; B coded.
    for (int form = 0; form < 3; ++form) {
      dev_csr_t dA(form == 1 ? coded(A) : A), dB(form == 2 ? coded(B) : B);
      dev_out_t oa(n), ob(n), oc(n);
      ASSERT_EQ(qap_rows_snarkjs(oa.get(), ob.get(), oc.get(), n, dA.view, dB.view, dw.get(), s.get()), cudaSuccess);
      s.sync();
      EXPECT_EQ(mismatches(oa.read(), a, "snarkjs a"), 0u)
          << "form " << form << " rows " << ra << "/" << rb << " n=" << n;
      EXPECT_EQ(mismatches(ob.read(), b, "snarkjs b"), 0u)
          << "form " << form << " rows " << ra << "/" << rb << " n=" << n;
      EXPECT_EQ(mismatches(oc.read(), c, "snarkjs c"), 0u)
          << "form " << form << " rows " << ra << "/" << rb << " n=" << n;
    }
  }
}

// A Filecoin-shaped circuit (src/gen, coded) and a satisfying witness: the
// device map equals the host one and the device map of the plain form, and
// a∘b = c on every row of the domain (the constraints hold; input rows are
// w[s]·0 = 0; padding 0·0 = 0).
TEST(CudaSpmv, FilecoinShapedCircuitIsSatisfied) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  for (unsigned k : {10u, 13u, 16u}) {
    const gen_params_t params{k, 328, rng()};
    const r1cs_t cs = generate_circuit(params);
    const std::vector<fr_t> w = generate_witness(params, cs, rng() % 10);
    const uint64_t n = domain_size_for(cs);
    ASSERT_EQ(n, uint64_t(1) << k);
    const qap_rows_t want = witness_map_r1cs(cs, w, n);
    ASSERT_TRUE(cs.a.coded() && cs.b.coded() && cs.c.coded());
    const auto got = device_bellman(cs, w, n);
    r1cs_t plain = cs;
    expand_circuit(plain);
    const auto got_plain = device_bellman(plain, w, n);
    for (int r = 0; r < 3; ++r) EXPECT_EQ(mismatches(got_plain[r], got[r], "filecoin plain vs coded"), 0u) << k;
    EXPECT_EQ(mismatches(got[0], want.a, "filecoin a"), 0u) << "k=" << k;
    EXPECT_EQ(mismatches(got[1], want.b, "filecoin b"), 0u) << "k=" << k;
    EXPECT_EQ(mismatches(got[2], want.c, "filecoin c"), 0u) << "k=" << k;
    size_t unsat = 0, nonzero_c = 0;
    for (uint64_t i = 0; i < n; ++i) {
      unsat += got[0][i] * got[1][i] != got[2][i];
      nonzero_c += !got[2][i].is_zero();
    }
    EXPECT_EQ(unsat, 0u) << "k=" << k;
    EXPECT_GT(nonzero_c, n / 10) << "k=" << k << ": c is suspiciously empty (~18% expected)";
    for (uint64_t s = 0; s <= cs.n_public; ++s) EXPECT_EQ(got[0][cs.n_constraints + s], w[s]) << "input row " << s;
  }
}

// Argument checks return before any device work: no GPU needed. The fake
// pointers below are never dereferenced.
TEST(CudaSpmv, RejectsBadArguments) {
  auto* out = reinterpret_cast<fr_t*>(uintptr_t(0x10000));
  auto* odd = reinterpret_cast<fr_t*>(uintptr_t(0x10008));  // 8- but not 16-byte aligned
  const auto* w = reinterpret_cast<const fr_t*>(uintptr_t(0x20000));
  const auto* rp = reinterpret_cast<const uint64_t*>(uintptr_t(0x30000));
  const auto* col = reinterpret_cast<const uint32_t*>(uintptr_t(0x40000));
  const auto* val = reinterpret_cast<const fr_t*>(uintptr_t(0x50000));
  const csr_view_t m10{rp, col, val, 10};
  const csr_view_t empty{nullptr, nullptr, nullptr, 0};
  const cudaError_t bad = cudaErrorInvalidValue;
  // spmv_fr: more rows than outputs, null or misaligned pointers.
  EXPECT_EQ(spmv_fr(out, 9, m10, w, nullptr), bad);
  EXPECT_EQ(spmv_fr(nullptr, 10, m10, w, nullptr), bad);
  EXPECT_EQ(spmv_fr(odd, 10, m10, w, nullptr), bad);
  EXPECT_EQ(spmv_fr(out, 10, m10, nullptr, nullptr), bad);
  EXPECT_EQ(spmv_fr(out, 10, csr_view_t{nullptr, col, val, 10}, w, nullptr), bad);
  EXPECT_EQ(spmv_fr(out, 10, csr_view_t{rp, col, odd, 10}, w, nullptr), bad);
  // Coded: a 16-byte aligned dictionary and 2-byte aligned codes (val unused).
  const auto* code = reinterpret_cast<const uint16_t*>(uintptr_t(0x60000));
  const auto* odd_code = reinterpret_cast<const uint16_t*>(uintptr_t(0x60001));
  EXPECT_EQ(spmv_fr(out, 10, csr_view_t{rp, col, odd, 10, code, odd}, w, nullptr), bad);
  EXPECT_EQ(spmv_fr(out, 10, csr_view_t{rp, col, nullptr, 10, odd_code, val}, w, nullptr), bad);
  EXPECT_EQ(spmv_fr(out, 9, csr_view_t{rp, col, nullptr, 10, code, val}, w, nullptr), bad);
  EXPECT_EQ(spmv_fr(nullptr, 0, empty, nullptr, nullptr), cudaSuccess);  // nothing to do
  // bellman: constraints + publics + 1 must fit in n (and no overflow).
  EXPECT_EQ(qap_rows_bellman(out, out + 16, out + 32, 16, m10, m10, m10, 10, 6, w, nullptr), bad);
  EXPECT_EQ(qap_rows_bellman(out, out + 16, out + 32, 16, m10, m10, m10, 17, 0, w, nullptr), bad);
  EXPECT_EQ(qap_rows_bellman(out, out + 16, out + 32, 16, m10, m10, m10, 10, ~uint64_t(0), w, nullptr), bad);
  EXPECT_EQ(qap_rows_bellman(out, out + 16, out + 32, 0, empty, empty, empty, 0, 0, w, nullptr), bad);
  EXPECT_EQ(qap_rows_bellman(out, out + 16, out + 32, 16, m10, csr_view_t{rp, col, val, 17}, m10, 10, 5, w, nullptr),
            bad);
  EXPECT_EQ(qap_rows_bellman(out, out + 16, out + 32, 16, m10, m10, m10, 10, 5, nullptr, nullptr), bad);
  EXPECT_EQ(qap_rows_bellman(out, odd, out + 32, 16, m10, m10, m10, 10, 5, w, nullptr), bad);
  // snarkjs: matrices of at most n rows.
  EXPECT_EQ(qap_rows_snarkjs(out, out + 8, out + 16, 8, m10, empty, w, nullptr), bad);
  EXPECT_EQ(qap_rows_snarkjs(out, out + 8, out + 16, 8, empty, m10, w, nullptr), bad);
  EXPECT_EQ(qap_rows_snarkjs(out, out + 16, nullptr, 16, m10, m10, w, nullptr), bad);
  EXPECT_EQ(qap_rows_snarkjs(nullptr, nullptr, nullptr, 0, empty, empty, nullptr, nullptr), cudaSuccess);
}

}  // namespace
}  // namespace starzk::gpu::test
