// Several streamed MSMs in one call (msm_beside<P>, cuda/msm_streamed.cu):
// query 0 on the caller's stream, the others beside it on a second
// stream. Typed over G1 and G2:
//   - each query's result against the host MSM (msm_pippenger): queries of
//     0, 1, 33, 1000 and 4097 terms in one call, each over bases of its
//     own in page-locked host memory, random, boolean-heavy, all-zero and
//     all-one scalars, pieces of 1, 2, 31, 33, 1000 terms and more than
//     the longest query for query 0 and for the others, the others'
//     stream at the default priority for every other piece pair and at the
//     greatest for the rest (each pair once: the pieces of 1 and 2 terms
//     make thousands of calls), each query under its own tuning (one
//     window per group, no batch-affine levels, default);
//   - at 2^18 (G1: 2^20), one dense query and three boolean-heavy ones, the
//     form of a partition's G1 MSMs under a 16 GB cap, against one
//     msm_pieces call per query, the others' stream at either priority
//     (at the greatest with each piece waited for, STARZK_MSM_PIECE_WAIT);
//   - after a long device-resident MSM on the same stream and scratch with
//     no host wait between (the second stream must wait for it);
//   - the scratch query: query 0's msm_pieces scratch, then the largest of
//     the others', the same at either priority, nothing without terms;
//   - bad arguments refused.
// Every case draws fresh points and scalars from a seeded generator.
#include <cuda_runtime_api.h>

#include <utility>
#include <vector>

#include "cuda/msm_streamed.hpp"
#include "msm/pippenger.hpp"
#include "msm_curve_test_util.hpp"

namespace starzk::gpu::test {
namespace {

template <class P>
class CudaMsmBeside : public ::testing::Test {};
using curves_t = ::testing::Types<g1_params, g2_params>;
TYPED_TEST_SUITE(CudaMsmBeside, curves_t);

template <class T>
device_buffer_t upload(std::span<const T> h) {
  device_buffer_t d(h.size_bytes());
  if (!h.empty()) d.upload(h.data(), h.size_bytes());
  return d;
}
template <class T>
T download_one(const device_buffer_t& d) {
  T r;
  d.download(&r, sizeof r);
  return r;
}

// Queries of the test: host bases page-locked for the object's life,
// scalars and results on the device.
template <class P>
struct queries_t {
  std::vector<std::vector<affine_t<P>>> bases;
  std::vector<std::vector<fr_t>> scalars;
  std::vector<msm_tuning_t> tunes;
  std::vector<device_buffer_t> d_scalars;
  device_buffer_t d_out;
  std::vector<msm_streamed_query_t<P>> q;

  queries_t(std::vector<std::vector<affine_t<P>>> b, std::vector<std::vector<fr_t>> s, std::vector<msm_tuning_t> t)
      : bases(std::move(b)), scalars(std::move(s)), tunes(std::move(t)), d_out(bases.size() * sizeof(jacobian_t<P>)) {
    for (size_t i = 0; i < bases.size(); ++i) {
      if (!bases[i].empty())
        check_cuda(cudaHostRegister(bases[i].data(), bases[i].size() * sizeof(affine_t<P>), cudaHostRegisterDefault),
                   "cudaHostRegister");
      d_scalars.push_back(upload(std::span<const fr_t>(scalars[i])));
      q.push_back(
          {d_out.as<jacobian_t<P>>() + i, bases[i].data(), d_scalars.back().as<fr_t>(), bases[i].size(), tunes[i]});
    }
  }
  ~queries_t() {
    for (auto& b : bases)
      if (!b.empty()) (void)cudaHostUnregister(b.data());
  }
  queries_t(const queries_t&) = delete;
  queries_t& operator=(const queries_t&) = delete;

  std::vector<jacobian_t<P>> results() const {
    std::vector<jacobian_t<P>> out(q.size());
    d_out.download(out.data(), out.size() * sizeof(jacobian_t<P>));
    return out;
  }
  // One msm_beside call (query 0 on the stream, the others beside it).
  std::vector<jacobian_t<P>> run_beside(const msm_beside_form_t& form) {
    const size_t bytes = msm_beside_scratch_bytes<P>(q.data(), q.size(), form);
    device_buffer_t scr(bytes);
    stream_t s;
    check_cuda(msm_beside<P>(q.data(), q.size(), form, scr.get(), bytes, s.get()), "msm_beside");
    s.sync();
    return results();
  }
};

msm_tuning_t narrow_form() {
  msm_tuning_t t;
  t.group_windows = 1;
  return t;
}
msm_tuning_t lean_form() {
  msm_tuning_t t;
  t.affine_levels = 0;
  return t;
}

TYPED_TEST(CudaMsmBeside, EqualsTheHostMsmPerQuery) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const std::vector<size_t> sizes = {4097, 1000, 0, 33, 1};
  const std::vector<mix_t> mixes = {random_mix, boolean_heavy, all_one, all_zero, random_mix};
  std::vector<std::vector<affine_t<P>>> bases;
  std::vector<std::vector<fr_t>> scalars;
  std::vector<jacobian_t<P>> want;
  for (size_t i = 0; i < sizes.size(); ++i) {
    bases.push_back(make_bases<P>(rng, sizes[i], 300, sizes[i] > 100 ? 89 : 0));
    scalars.push_back(make_scalars(rng, sizes[i], mixes[i]));
    want.push_back(msm_pippenger<P>(std::span<const affine_t<P>>(bases[i]), scalars[i]));
  }
  queries_t<P> qs(bases, scalars, {narrow_form(), lean_form(), {}, lean_form(), {}});
  const std::vector<std::pair<size_t, size_t>> pieces = {{31, 33},  {1000, 2}, {5000, 5000},
                                                         {2, 1000}, {1, 31},   {4097, 1}};
  for (size_t k = 0; k < pieces.size(); ++k) {
    const auto [piece0, piece] = pieces[k];
    const bool first = k % 2 == 1;
    const auto got = qs.run_beside({piece0, piece, first});
    for (size_t i = 0; i < sizes.size(); ++i)
      EXPECT_TRUE(same<P>(got[i], want[i])) << P::name << " query " << i << " n=" << sizes[i] << " piece0=" << piece0
                                            << " piece=" << piece << " others_first=" << first;
  }
}

TYPED_TEST(CudaMsmBeside, LargeDenseAndBooleanEqualOneCallPerQuery) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = size_t(1) << (std::is_same_v<P, g1_params> ? 20 : 18);
  std::vector<std::vector<affine_t<P>>> bases;
  std::vector<std::vector<fr_t>> scalars;
  for (int i = 0; i < 4; ++i) {
    bases.push_back(make_bases<P>(rng, n - size_t(i) * 7, 4096));
    scalars.push_back(make_scalars(rng, bases.back().size(), i == 0 ? random_mix : boolean_heavy));
  }
  queries_t<P> qs(bases, scalars, {narrow_form(), lean_form(), lean_form(), {}});
  const size_t piece = n / 4 + 1;
  std::vector<jacobian_t<P>> want;
  for (size_t i = 0; i < 4; ++i)
    want.push_back(msm_pieces_host<P>(bases[i], scalars[i], msm_no_split, msm_pieces_t{piece, false}, qs.tunes[i]));
  for (bool first : {false, true}) {  // the second time each piece's host thread waits too
    const auto got = qs.run_beside({piece, n / 8, first, first});
    for (size_t i = 0; i < 4; ++i)
      EXPECT_TRUE(same<P>(got[i], want[i])) << P::name << " query " << i << " others_first=" << first;
  }
}

// A device-resident MSM enqueued just before on the same stream works in
// the scratch the second stream's staging buffers lie in: the second
// stream must wait for it.
TYPED_TEST(CudaMsmBeside, AfterAResidentMsmOnTheSameScratch) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  const size_t n = size_t(1) << (std::is_same_v<P, g1_params> ? 18 : 16);
  const auto first_bases = make_bases<P>(rng, n, 1024);
  const auto first_scalars = make_scalars(rng, n, random_mix);
  std::vector<std::vector<affine_t<P>>> bases = {make_bases<P>(rng, n / 3, 512), make_bases<P>(rng, n, 1024)};
  std::vector<std::vector<fr_t>> scalars = {make_scalars(rng, n / 3, random_mix), make_scalars(rng, n, boolean_heavy)};
  queries_t<P> qs(bases, scalars, {{}, {}});
  const size_t resident = msm_pieces_scratch_bytes<P>(n, false, msm_pieces_t{}, {});
  const msm_beside_form_t form{n / 7, n / 5, true};
  const size_t streamed = msm_beside_scratch_bytes<P>(qs.q.data(), 2, form);
  device_buffer_t scr(std::max(resident, streamed)), db = upload(std::span<const affine_t<P>>(first_bases)),
                                                     ds = upload(std::span<const fr_t>(first_scalars)),
                                                     dfirst(sizeof(jacobian_t<P>));
  stream_t s;
  check_cuda(msm_pieces<P>(dfirst.as<jacobian_t<P>>(), db.as<affine_t<P>>(), ds.as<fr_t>(), n, msm_no_split,
                           msm_pieces_t{}, scr.get(), resident, s.get(), {}),
             "msm_pieces");
  check_cuda(msm_beside<P>(qs.q.data(), 2, form, scr.get(), streamed, s.get()), "msm_beside");
  s.sync();
  const auto got = qs.results();
  EXPECT_TRUE(same<P>(download_one<jacobian_t<P>>(dfirst), msm_pippenger<P>(std::span(first_bases), first_scalars)));
  for (size_t i = 0; i < 2; ++i)
    EXPECT_TRUE(same<P>(got[i], msm_pippenger<P>(std::span<const affine_t<P>>(bases[i]), scalars[i]))) << i;
}

TYPED_TEST(CudaMsmBeside, ScratchQuery) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  const size_t n = size_t(1) << 20;
  std::vector<msm_streamed_query_t<P>> q(4);
  q[0].n = n;
  q[0].tune = narrow_form();
  q[1].n = n / 2;
  q[2].n = n;
  q[2].tune = lean_form();
  q[3].n = 0;
  const size_t first = msm_pieces_scratch_bytes<P>(n, false, msm_pieces_t{n / 4, true}, narrow_form());
  const size_t rest = std::max(msm_pieces_scratch_bytes<P>(n / 2, false, msm_pieces_t{n / 16, true}, {}),
                               msm_pieces_scratch_bytes<P>(n, false, msm_pieces_t{n / 16, true}, lean_form()));
  const msm_beside_form_t form{n / 4, n / 16, false}, others_first{n / 4, n / 16, true};
  EXPECT_EQ(msm_beside_scratch_bytes<P>(q.data(), 4, form), (first + 255) / 256 * 256 + rest);
  EXPECT_EQ(msm_beside_scratch_bytes<P>(q.data(), 4, others_first), (first + 255) / 256 * 256 + rest);
  EXPECT_EQ(msm_beside_scratch_bytes<P>(q.data(), 1, form), (first + 255) / 256 * 256);
  EXPECT_EQ(msm_beside_scratch_bytes<P>(q.data() + 3, 1, form), 0u);
  EXPECT_EQ(msm_beside_scratch_bytes<P>(q.data(), 0, form), 0u);
}

TYPED_TEST(CudaMsmBeside, RejectsBadArguments) {
  using P = TypeParam;
  SZK_REQUIRE_GPU();
  auto rng = seeded_rng();
  queries_t<P> qs({make_bases<P>(rng, 100, 50), make_bases<P>(rng, 60, 30)},
                  {make_scalars(rng, 100, random_mix), make_scalars(rng, 60, boolean_heavy)}, {{}, {}});
  const size_t need = msm_beside_scratch_bytes<P>(qs.q.data(), 2, {30, 20});
  device_buffer_t scr(need);
  stream_t s;
  EXPECT_EQ(msm_beside<P>(qs.q.data(), 2, {30, 20}, scr.get(), need - 1, s.get()), cudaErrorInvalidValue);
  EXPECT_EQ(msm_beside<P>(qs.q.data(), 2, {30, 20}, nullptr, need, s.get()), cudaErrorInvalidValue);
  msm_streamed_query_t<P> bad[2] = {qs.q[0], qs.q[1]};
  bad[1].host_bases = nullptr;
  EXPECT_EQ(msm_beside<P>(bad, 2, {30, 20}, scr.get(), need, s.get()), cudaErrorInvalidValue);
  bad[1] = qs.q[1];
  bad[0].d_out = nullptr;
  EXPECT_EQ(msm_beside<P>(bad, 2, {30, 20}, scr.get(), need, s.get()), cudaErrorInvalidValue);
  // No terms: O without scratch.
  bad[0] = qs.q[0];
  bad[0].n = 0;
  EXPECT_EQ(msm_beside<P>(bad, 1, {30, 20}, nullptr, 0, s.get()), cudaSuccess);
  s.sync();
  EXPECT_TRUE(qs.results()[0].is_infinity());
}

}  // namespace
}  // namespace starzk::gpu::test
