// The Groth16 prover's phases and their composition; see prover.hpp.
#include "groth16/prover.hpp"

#include <atomic>
#include <chrono>

#include "ec/scalar_mul.hpp"
#include "groth16/random.hpp"
#include "groth16/verifier.hpp"
#include "msm/pippenger.hpp"
#include "msm/prep_msm.hpp"
#include "ntt/h_phase.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

std::string count_mismatch(const char* what, uint64_t got, uint64_t want) {
  return std::string(what) + " has " + std::to_string(got) + " entries, expected " + std::to_string(want);
}

void check_key_shape(const proving_key_t& pk) {
  const uint64_t n_aux = uint64_t(pk.n_vars) - pk.n_public - 1;
  const uint64_t n_h = pk.convention == root_convention_t::bellman ? pk.domain_size - 1 : pk.domain_size;
  auto bad_key = [](const std::string& why) { return prove_error("key: " + why, prove_input_t::key); };
  if (pk.n_vars < pk.n_public + 1) throw bad_key("fewer wires than public inputs");
  if (pk.a.size() != pk.n_vars) throw bad_key(count_mismatch("A query", pk.a.size(), pk.n_vars));
  if (pk.b_g1.size() != pk.n_vars) throw bad_key(count_mismatch("B_g1 query", pk.b_g1.size(), pk.n_vars));
  if (pk.b_g2.size() != pk.n_vars) throw bad_key(count_mismatch("B_g2 query", pk.b_g2.size(), pk.n_vars));
  if (pk.l.size() != n_aux) throw bad_key(count_mismatch("L query", pk.l.size(), n_aux));
  if (pk.h.size() != n_h) throw bad_key(count_mismatch("H query", pk.h.size(), n_h));
  if (pk.vk.ic.size() != uint64_t(pk.n_public) + 1)
    throw bad_key(count_mismatch("IC", pk.vk.ic.size(), uint64_t(pk.n_public) + 1));
}

// Row i of the circuit holds iff a_i·b_i = c_i: checked on the witness map's
// own output, so the SpMV is not done twice.
void check_rows(const qap_rows_t& q, uint64_t n_constraints, unsigned threads) {
  std::atomic<uint64_t> first{UINT64_MAX};
  parallel_for(n_constraints, threads, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i)
      if (!(q.a[i] * q.b[i] == q.c[i])) {
        uint64_t cur = first.load();
        while (i < cur && !first.compare_exchange_weak(cur, i)) {
        }
        return;
      }
  });
  if (first.load() != UINT64_MAX) throw unsatisfied_error(first.load());
}

// Appends the wall time since the last lap to *out under a step's name
// (nothing when out is null).
class phase_clock_t {
 public:
  explicit phase_clock_t(prove_phases_t* out) : out_(out) {}
  void lap(const char* name) {
    if (!out_) return;
    const auto now = std::chrono::steady_clock::now();
    out_->push_back({name, std::chrono::duration<double>(now - last_).count()});
    last_ = now;
  }

 private:
  prove_phases_t* out_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

prove_error unsatisfied_error(uint64_t row) {
  return prove_error("witness does not satisfy constraint " + std::to_string(row) + " of the circuit",
                     prove_input_t::witness);
}

void check_prover_inputs(const proving_key_t& pk, const r1cs_t* cs, std::span<const fr_t> w, unsigned threads) {
  check_key_shape(pk);
  if (w.size() != pk.n_vars)
    throw prove_error("witness has " + std::to_string(w.size()) + " values, the key expects " +
                      std::to_string(pk.n_vars));
  if (w.empty() || !w[0].is_one()) throw prove_error("witness: w[0] must be 1");
  if (cs == nullptr) {
    if (pk.convention == root_convention_t::bellman)
      throw prove_error("a bellman/Filecoin key needs the circuit (.r1cs or CSR file)", prove_input_t::key);
    return;
  }
  if (cs->n_vars != pk.n_vars || cs->n_public != pk.n_public)
    throw prove_error("circuit (" + std::to_string(cs->n_vars) + " wires, " + std::to_string(cs->n_public) +
                          " public) does not match the key (" + std::to_string(pk.n_vars) + " wires, " +
                          std::to_string(pk.n_public) + " public)",
                      prove_input_t::circuit);
  if (domain_size_for(*cs) > pk.domain_size)
    throw prove_error("circuit needs a domain of " + std::to_string(domain_size_for(*cs)) + " rows, the key has " +
                          std::to_string(pk.domain_size),
                      prove_input_t::circuit);
  // A bellman key's rows come from this circuit's SpMV, which the prover
  // checks as it computes them (see prove_with_blinding); a snarkjs key's
  // rows come from the key, so the circuit is checked here.
  if (pk.convention == root_convention_t::snarkjs) {
    if (auto row = first_unsatisfied_row(*cs, w, threads)) throw unsatisfied_error(*row);
  }
}

qap_rows_t witness_map(const proving_key_t& pk, const r1cs_t* cs, std::span<const fr_t> w, unsigned threads) {
  if (pk.convention == root_convention_t::snarkjs) return witness_map_zkey(pk, w, threads);
  if (cs == nullptr) throw prove_error("a bellman/Filecoin key needs the circuit", prove_input_t::key);
  return witness_map_r1cs(*cs, w, pk.domain_size, threads);
}

std::vector<fr_t> compute_h(const proving_key_t& pk, qap_rows_t&& rows, unsigned threads) {
  std::vector<fr_t> a = std::move(rows.a), b = std::move(rows.b), c = std::move(rows.c);
  if (pk.convention == root_convention_t::bellman) {
    h_phase_bellman(a, b, c, threads);
    a.resize(pk.domain_size - 1);  // deg h ≤ n − 2: the key has n − 1 points
  } else {
    h_phase_snarkjs(a, b, c, threads);
  }
  return a;
}

msm_results_t compute_msms(const proving_key_t& pk, std::span<const fr_t> w, std::span<const fr_t> h, unsigned threads,
                           prove_phases_t* phases) {
  const size_t n_in = size_t(pk.n_public) + 1;  // wire 0 and the public inputs
  std::span<const fr_t> aux = w.subspan(n_in);
  phase_clock_t clock(phases);
  msm_results_t m;
  m.h = msm_pippenger(std::span<const g1_affine_t>(pk.h), h, msm_config_t{.threads = threads});
  clock.lap("msm h");
  // prep_msm: the inputs always go to the tail; aux scalars split 0 / 1 / other.
  const prep_msm_t prep_w = prep_msm(w, n_in, threads);
  const prep_msm_t prep_aux = prep_msm(aux, 0, threads);
  clock.lap("prep_msm");
  m.l = split_msm(std::span<const g1_affine_t>(pk.l), prep_aux, threads);
  clock.lap("msm l");
  m.a = split_msm(std::span<const g1_affine_t>(pk.a), prep_w, threads);
  clock.lap("msm a");
  m.b_g1 = split_msm(std::span<const g1_affine_t>(pk.b_g1), prep_w, threads);
  clock.lap("msm b_g1");
  m.b_g2 = split_msm(std::span<const g2_affine_t>(pk.b_g2), prep_w, threads);
  clock.lap("msm b_g2");
  return m;
}

proof_t assemble(const proving_key_t& pk, const msm_results_t& m, const blinding_t& rs) {
  // A = α + Σ w·A + r·δ₁
  g1_jacobian_t a = m.a.add_mixed(pk.alpha_g1).add(mul(pk.delta_g1, rs.r));
  // B = β₂ + Σ w·B2 + s·δ₂ ; B1 = β₁ + Σ w·B1 + s·δ₁
  g2_jacobian_t b = m.b_g2.add_mixed(pk.beta_g2).add(mul(pk.delta_g2, rs.s));
  g1_jacobian_t b1 = m.b_g1.add_mixed(pk.beta_g1).add(mul(pk.delta_g1, rs.s));
  // C = L + H + s·A + r·B1 − r·s·δ₁
  const g1_affine_t a_aff = a.to_affine(), b1_aff = b1.to_affine();
  g1_jacobian_t c = m.l.add(m.h).add(mul(a_aff, rs.s)).add(mul(b1_aff, rs.r)).add(mul(pk.delta_g1, rs.r * rs.s).neg());
  return proof_t{a_aff, b.to_affine(), c.to_affine()};
}

std::vector<fr_t> public_inputs(const proving_key_t& pk, std::span<const fr_t> w) {
  if (w.size() < size_t(pk.n_public) + 1) throw prove_error("witness shorter than the public inputs");
  return std::vector<fr_t>(w.begin() + 1, w.begin() + 1 + pk.n_public);
}

proof_t prove_with_blinding(const proving_key_t& pk, const r1cs_t* cs, std::span<const fr_t> w, const blinding_t& rs,
                            unsigned threads, prove_phases_t* phases) {
  phase_clock_t clock(phases);
  check_prover_inputs(pk, cs, w, threads);
  clock.lap("check");
  qap_rows_t rows = witness_map(pk, cs, w, threads);
  if (pk.convention == root_convention_t::bellman) check_rows(rows, cs->n_constraints, threads);
  clock.lap("witness map");
  std::vector<fr_t> h = compute_h(pk, std::move(rows), threads);
  clock.lap("h");
  const msm_results_t m = compute_msms(pk, w, h, threads, phases);
  clock = phase_clock_t(phases);
  proof_t proof = assemble(pk, m, rs);
  clock.lap("assemble");
  const bool ok = verify(pk.vk, public_inputs(pk, w), proof);
  clock.lap("verify");
  if (!ok)
    throw cs ? prove_error(proof_fails_with_circuit, prove_input_t::key)
             : prove_error(proof_fails_without_circuit, prove_input_t::witness);
  return proof;
}

proof_t prove(const proving_key_t& pk, const r1cs_t* cs, std::span<const fr_t> w, unsigned threads,
              prove_phases_t* phases) {
  return prove_with_blinding(pk, cs, w, blinding_t{random_fr(), random_fr()}, threads, phases);
}

}  // namespace starzk
