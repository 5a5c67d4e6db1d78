// witness_map_into.cpp: see witness_map_into.hpp.
#include "codelets/witness_map_into.hpp"

#include "codelets/partition_state.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "groth16/witness_map.hpp"
#include "util/parallel.hpp"

namespace starzk::codelets {

void witness_map_into(const proving_key_t& pk, const r1cs_t* cs, std::span<const fr_t> w, std::span<fr_t> a,
                      std::span<fr_t> b, std::span<fr_t> c, unsigned threads) {
  const uint64_t n = pk.domain_size;
  if (a.size() != n || b.size() != n || c.size() != n)
    throw std::invalid_argument("witness map: rows must have " + std::to_string(n) + " entries");
  if (w.size() != pk.n_vars)
    throw std::invalid_argument("witness has " + std::to_string(w.size()) + " values, the key expects " +
                                std::to_string(pk.n_vars));
  std::fill(a.begin(), a.end(), fr_t::zero());
  std::fill(b.begin(), b.end(), fr_t::zero());
  std::fill(c.begin(), c.end(), fr_t::zero());
  if (pk.convention == root_convention_t::snarkjs) {
    if (pk.zkey_a.n_rows > n || pk.zkey_b.n_rows > n)
      throw std::invalid_argument("key matrices have more rows than its domain");
    const std::vector<uint8_t> kinds = witness_kinds(w, threads);
    spmv(pk.zkey_a, w, kinds, a, threads);
    spmv(pk.zkey_b, w, kinds, b, threads);
    // c_i = a_i · b_i (1M per row).
    parallel_for(n, threads, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i) c[i] = a[i] * b[i];
    });
    return;
  }
  if (cs == nullptr) throw std::invalid_argument("a bellman/Filecoin key needs the circuit");
  const uint64_t rows = uint64_t(cs->n_constraints) + cs->n_public + 1;
  if (rows > n)
    throw std::invalid_argument("domain of size " + std::to_string(n) + " cannot hold " + std::to_string(rows) +
                                " rows (constraints + public inputs + 1)");
  // A witness that breaks a constraint is refused here, before the H phase
  // and the MSMs (minutes of work at 2^27), not by the proof's final check.
  if (const auto row = spmv_rows_checked(*cs, w, witness_kinds(w, threads), a, b, c, threads)) throw_unsatisfied(*row);
  // Input rows: A = w[s], B = C = 0 (s = 0..n_public).
  for (uint64_t s = 0; s <= cs->n_public; ++s) a[cs->n_constraints + s] = w[s];
}

void throw_unsatisfied(uint64_t row) {
  throw bad_input_error("the witness does not satisfy constraint " + std::to_string(row) +
                        " of the circuit (A·w times B·w differs from C·w there)");
}

}  // namespace starzk::codelets
