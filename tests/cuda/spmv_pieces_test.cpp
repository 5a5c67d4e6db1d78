// The witness map with the matrices and a, b, c in host memory
// (cuda/spmv_pieces.cu, gpu::witness_map_pieces) against the host map of
// src/groth16 (witness_map_r1cs; spmv + a∘b for snarkjs) and the host's
// first unsatisfied constraint row. Fresh random circuits each run (seed
// printed; STARZK_SEED replays), plain, coded and mixed, with pieces of 1
// row up to more than the domain, pieces that cut the input rows of a and
// the long rows, matrices shorter than the domain, and a Filecoin-shaped
// circuit (src/gen) that holds, then breaks at a known row; each case
// again with the rows mapped into device vectors (out_on_device), all three
// and a alone, which must give the same rows. Outputs carry a poisoned
// guard past their end. Argument checks run without a GPU too.
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "gen/filecoin_shape.hpp"
#include "gpu_test_util.hpp"
#include "groth16/witness_map.hpp"
#include "spmv_test_util.hpp"

namespace starzk::gpu::test {
namespace {

constexpr size_t guard = 3;
constexpr uint8_t poison = 0x5A;

csr_view_t host_view(const sparse_matrix_t& m) {
  csr_view_t v{m.row_ptr.data(), m.col.data(), nullptr, m.n_rows};
  if (m.coded()) {
    v.code = m.code.data();
    v.dict = m.dict.data();
    v.dict_size = m.dict.size();
  } else {
    v.val = m.val.data();
  }
  return v;
}

struct mapped_t {
  std::array<std::vector<fr_t>, 3> rows;
  uint64_t first = 0;
};

// Runs the job (its outputs set) with exactly the scratch it asks for,
// after checking that one byte less is refused; w is uploaded first. The
// scratch's size.
size_t map_in_scratch(const witness_map_host_t& job, const std::vector<fr_t>& w, uint64_t& first) {
  const size_t bytes = witness_map_pieces_scratch_bytes(job);
  EXPECT_GT(bytes, 0u);
  device_buffer_t scratch(bytes), dw(std::max<size_t>(1, w.size()) * sizeof(fr_t));
  dw.upload(w.data(), w.size() * sizeof(fr_t));
  stream_t s;
  EXPECT_EQ(witness_map_pieces(job, dw.as<const fr_t>(), scratch.as<void>(), bytes - 1, s.get(), &first),
            cudaErrorInvalidValue);
  EXPECT_EQ(witness_map_pieces(job, dw.as<const fr_t>(), scratch.as<void>(), bytes, s.get(), &first), cudaSuccess);
  return bytes;
}

// The map with rows on the device (out_on_device[i]: device vectors of n
// entries plus a poisoned guard, which must stay untouched; the others
// host vectors likewise guarded); the scratch it asks for is smaller than
// the host form's (no output pieces for those rows).
mapped_t run_into_device(witness_map_host_t job, const std::vector<fr_t>& w, uint64_t piece, size_t host_bytes,
                         std::array<bool, 3> on_device) {
  mapped_t r;
  job.piece_rows = piece;
  std::array<device_buffer_t, 3> rows;
  std::array<std::vector<uint8_t>, 3> host;
  const size_t row_bytes = (job.n + guard) * sizeof(fr_t);
  const std::vector<uint8_t> poisoned(row_bytes, poison);
  for (int i = 0; i < 3; ++i) {
    job.out_on_device[i] = on_device[i];
    if (on_device[i]) {
      rows[i] = device_buffer_t(row_bytes);
      rows[i].upload(poisoned.data(), row_bytes);
      job.out[i] = rows[i].as<fr_t>();
    } else {
      host[i] = poisoned;
      job.out[i] = reinterpret_cast<fr_t*>(host[i].data());
    }
  }
  EXPECT_LT(map_in_scratch(job, w, r.first), host_bytes) << "the device form keeps no output pieces";
  for (int i = 0; i < 3; ++i) {
    std::vector<uint8_t> back = host[i];
    if (on_device[i]) {
      back.resize(row_bytes);
      rows[i].download(back.data(), row_bytes);
    }
    if (!std::equal(back.begin() + std::ptrdiff_t(job.n * sizeof(fr_t)), back.end(), poisoned.begin()))
      ADD_FAILURE() << "write past the end of row " << i << " (n = " << job.n << ", piece " << piece << ")";
    r.rows[i].resize(job.n);
    std::memcpy(static_cast<void*>(r.rows[i].data()), back.data(), job.n * sizeof(fr_t));
  }
  return r;
}

// Runs the map on the device; the rows are host vectors of n entries plus
// a poisoned guard, which must stay untouched. The same job with the rows
// on the device must give the same rows and the same first failing row.
mapped_t run(witness_map_host_t job, const std::vector<fr_t>& w, uint64_t piece) {
  mapped_t r;
  std::array<std::vector<fr_t>, 3> host;
  for (int i = 0; i < 3; ++i) {
    host[i].resize(job.n + guard);
    std::memset(static_cast<void*>(host[i].data()), poison, host[i].size() * sizeof(fr_t));
    job.out[i] = host[i].data();
  }
  job.piece_rows = piece;
  const size_t bytes = map_in_scratch(job, w, r.first);
  for (int i = 0; i < 3; ++i) {
    const auto* tail = reinterpret_cast<const uint8_t*>(host[i].data() + job.n);
    for (size_t k = 0; k < guard * sizeof(fr_t); ++k)
      if (tail[k] != poison) {
        ADD_FAILURE() << "write past the end of row vector " << i << " (n = " << job.n << ", piece " << piece << ")";
        break;
      }
    host[i].resize(job.n);
    r.rows[i] = std::move(host[i]);
  }
  for (const std::array<bool, 3> on :
       {std::array<bool, 3>{true, true, true}, std::array<bool, 3>{true, false, false}}) {
    const mapped_t d = run_into_device(job, w, piece, bytes, on);
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(mismatches(d.rows[i], r.rows[i], "device rows"), 0u)
          << "row vector " << i << ", piece " << piece << ", b and c on the device: " << on[1];
    EXPECT_EQ(d.first, r.first) << "piece " << piece;
  }
  return r;
}

uint64_t host_first_unsatisfied(const qap_rows_t& q, uint64_t n_constraints) {
  for (uint64_t i = 0; i < n_constraints; ++i)
    if (q.a[i] * q.b[i] != q.c[i]) return i;
  return UINT64_MAX;
}

void expect_rows(const mapped_t& got, const qap_rows_t& want, const std::string& what) {
  EXPECT_EQ(mismatches(got.rows[0], want.a, "a"), 0u) << what;
  EXPECT_EQ(mismatches(got.rows[1], want.b, "b"), 0u) << what;
  EXPECT_EQ(mismatches(got.rows[2], want.c, "c"), 0u) << what;
}

witness_map_host_t bellman_job(const r1cs_t& cs, uint64_t n) {
  witness_map_host_t job;
  job.conv = root_convention_t::bellman;
  job.m[0] = host_view(cs.a), job.m[1] = host_view(cs.b), job.m[2] = host_view(cs.c);
  job.n = n;
  job.n_constraints = cs.n_constraints;
  job.n_public = cs.n_public;
  return job;
}

TEST(CudaSpmvPieces, BellmanMatchesHostWitnessMap) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  // (constraints, publics, n): full, padded, one row, input rows cut by pieces.
  const std::array<uint64_t, 3> cases[] = {{0, 0, 1}, {1, 0, 2}, {5, 2, 8}, {990, 5, 1024}, {3000, 10, 4096}};
  for (auto [nc, np, n] : cases) {
    const random_circuit_t rc = random_circuit(rng, uint32_t(nc), uint32_t(np));
    const qap_rows_t want = witness_map_r1cs(rc.cs, rc.w, n, 1);
    const uint64_t want_first = host_first_unsatisfied(want, nc);
    r1cs_t all_coded = rc.cs, mixed = rc.cs;
    all_coded.a = coded(rc.cs.a), all_coded.b = coded(rc.cs.b), all_coded.c = coded(rc.cs.c);
    mixed.b = all_coded.b;
    for (const r1cs_t* cs : std::initializer_list<const r1cs_t*>{&rc.cs, &all_coded, &mixed})
      for (const uint64_t piece : {uint64_t(1), uint64_t(3), uint64_t(100), nc > 3 ? nc - 2 : uint64_t(1), n, n + 7}) {
        const std::string what = std::string(cs == &rc.cs   ? "plain"
                                             : cs == &mixed ? "mixed"
                                                            : "coded") +
                                 " constraints=" + std::to_string(nc) + " n=" + std::to_string(n) +
                                 " piece=" + std::to_string(piece);
        const mapped_t got = run(bellman_job(*cs, n), rc.w, piece);
        expect_rows(got, want, what);
        EXPECT_EQ(got.first, want_first) << what;
      }
  }
}

TEST(CudaSpmvPieces, SnarkjsMatchesHostWitnessMap) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  // (rows of A, rows of B, n): B shorter than A, both shorter than n.
  const std::array<uint64_t, 3> cases[] = {{1, 1, 1}, {3, 2, 4}, {1000, 700, 1024}, {4097, 4000, 8192}};
  for (auto [ra, rb, n] : cases) {
    const uint64_t cols = 1 + rng() % 2000;
    const sparse_matrix_t A = random_matrix(rng, ra, cols, ra >= 1000 ? 3 : 0);
    const sparse_matrix_t B = random_matrix(rng, rb, cols, rb >= 1000 ? 3 : 0);
    const std::vector<fr_t> w = random_witness(rng, cols);
    qap_rows_t want;
    want.a.assign(n, fr_t::zero()), want.b.assign(n, fr_t::zero()), want.c.resize(n);
    spmv(A, w, want.a, 1);
    spmv(B, w, want.b, 1);
    for (size_t i = 0; i < n; ++i) want.c[i] = want.a[i] * want.b[i];
    for (int form = 0; form < 2; ++form) {
      const sparse_matrix_t fa = form ? coded(A) : A;
      witness_map_host_t job;
      job.conv = root_convention_t::snarkjs;
      job.m[0] = host_view(fa), job.m[1] = host_view(B);
      job.n = n;
      for (const uint64_t piece : {uint64_t(1), uint64_t(5), uint64_t(999), n}) {
        const mapped_t got = run(job, w, piece);
        const std::string what = "form " + std::to_string(form) + " rows " + std::to_string(ra) + "/" +
                                 std::to_string(rb) + " n=" + std::to_string(n) + " piece=" + std::to_string(piece);
        expect_rows(got, want, what);
        EXPECT_EQ(got.first, UINT64_MAX) << what;
      }
    }
  }
}

// A Filecoin-shaped circuit (coded, as src/gen writes it) with a satisfying
// witness: every row holds. Then one wire changed: the map still equals the
// host's, and the first failing row is the host's.
TEST(CudaSpmvPieces, FilecoinShapedCircuitHoldsThenBreaks) {
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const gen_params_t params{14, 328, rng()};
  const r1cs_t cs = generate_circuit(params);
  std::vector<fr_t> w = generate_witness(params, cs, rng() % 10);
  const uint64_t n = domain_size_for(cs);
  for (const uint64_t piece : {uint64_t(1) << 10, (uint64_t(1) << 12) + 1}) {
    const mapped_t got = run(bellman_job(cs, n), w, piece);
    expect_rows(got, witness_map_r1cs(cs, w, n), "satisfied, piece " + std::to_string(piece));
    EXPECT_EQ(got.first, UINT64_MAX) << piece;
  }
  w[cs.n_public + 1 + rng() % (cs.n_vars - cs.n_public - 1)] += fr_t::from_u64(2);
  const qap_rows_t want = witness_map_r1cs(cs, w, n);
  const uint64_t want_first = host_first_unsatisfied(want, cs.n_constraints);
  const mapped_t got = run(bellman_job(cs, n), w, 3001);
  expect_rows(got, want, "broken");
  EXPECT_EQ(got.first, want_first);
}

// Argument checks return before any device work: no GPU needed. The fake
// device pointers below are never dereferenced.
TEST(CudaSpmvPieces, RejectsBadArguments) {
  std::mt19937_64 rng(7);
  const random_circuit_t rc = random_circuit(rng, 10, 2);
  std::vector<fr_t> a(16), b(16), c(16);
  witness_map_host_t good = bellman_job(rc.cs, 16);
  good.out[0] = a.data(), good.out[1] = b.data(), good.out[2] = c.data();
  good.piece_rows = 4;
  ASSERT_GT(witness_map_pieces_scratch_bytes(good), 0u);
  const auto* w = reinterpret_cast<const fr_t*>(uintptr_t(0x20000));
  void* scratch = reinterpret_cast<void*>(uintptr_t(0x40000));
  uint64_t first = 0;
  auto refused = [&](witness_map_host_t job, const char* what) {
    EXPECT_EQ(witness_map_pieces_scratch_bytes(job), 0u) << what;
    EXPECT_EQ(witness_map_pieces(job, w, scratch, SIZE_MAX, nullptr, &first), cudaErrorInvalidValue) << what;
  };
  witness_map_host_t j = good;
  j.n_constraints = 14;  // 14 + 2 + 1 > 16
  refused(j, "constraints and input rows beyond n");
  j = good, j.n = 9;  // matrices of 10 rows
  refused(j, "matrix longer than n");
  j = good, j.piece_rows = 0;
  refused(j, "no piece size");
  j = good, j.out[1] = nullptr;
  refused(j, "no b");
  sparse_matrix_t cm = coded(rc.cs.a);
  if (cm.coded() && cm.nnz() > 0) {
    j = good, j.m[0] = host_view(cm), j.m[0].dict_size = 0;
    refused(j, "coded without a dictionary size");
  }
  std::vector<uint64_t> bad_rp = rc.cs.b.row_ptr;
  bad_rp[4] = bad_rp[8] + 1;  // decreases at a piece's end
  j = good, j.m[1].row_ptr = bad_rp.data();
  refused(j, "row_ptr decreasing at a piece end");
  // Matrices without terms need neither col nor values (empty vectors may
  // give null pointers), plain or coded.
  r1cs_t empty = rc.cs;
  for (sparse_matrix_t* m : {&empty.a, &empty.b, &empty.c}) *m = sparse_matrix_t::empty(m->n_rows, m->n_cols);
  witness_map_host_t no_terms = bellman_job(empty, 16);
  no_terms.out[0] = a.data(), no_terms.out[1] = b.data(), no_terms.out[2] = c.data();
  no_terms.piece_rows = 4;
  for (csr_view_t& v : no_terms.m) v.col = nullptr, v.val = nullptr;
  EXPECT_GT(witness_map_pieces_scratch_bytes(no_terms), 0u);
  no_terms.m[1].dict = b.data();  // coded form, no dictionary needed either
  EXPECT_GT(witness_map_pieces_scratch_bytes(no_terms), 0u);
  EXPECT_EQ(witness_map_pieces(good, w, scratch, SIZE_MAX, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(witness_map_pieces(good, nullptr, scratch, SIZE_MAX, nullptr, &first), cudaErrorInvalidValue);
  EXPECT_EQ(witness_map_pieces(good, w, nullptr, SIZE_MAX, nullptr, &first), cudaErrorInvalidValue);
  EXPECT_EQ(witness_map_pieces(good, w, scratch, witness_map_pieces_scratch_bytes(good) - 1, nullptr, &first),
            cudaErrorInvalidValue);
}

}  // namespace
}  // namespace starzk::gpu::test
