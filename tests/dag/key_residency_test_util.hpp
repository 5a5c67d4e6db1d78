// key_residency_test_util.hpp: the keys the memory plan's tests size
// (test_key_residency.cpp, test_key_residency_sector.cpp): a small key in
// GiB and a 2^27 Filecoin-shaped partition on a device of a given size.
#pragma once

#include <cstdint>

#include "dag/key_residency.hpp"

namespace starzk::dag::test {

inline constexpr uint64_t GiB = uint64_t(1) << 30;

// A small key in GiB: h, l, a, b_g1 1.5 each, b_g2 3; a partition's w,
// a, b, c 1 GiB (w a quarter), so that the device witness map (the
// domain, one partition and three more witnesses) takes 2.25 GiB.
inline residency_input_t key24(uint64_t device_gib_x10) {
  residency_input_t in;
  in.device = device_gib_x10 * GiB / 10;
  in.key_fixed = GiB / 2;  // NTT domain
  in.partition = GiB;      // w + a, b, c
  in.witness = GiB / 4;    // w
  in.rows = 3 * GiB / 4;   // a, b, c
  in.scratch_floor = 3 * GiB;
  for (int q = 0; q < 4; ++q) in.query[q] = 3 * GiB / 2;
  in.query[int(key_query_t::b_g2)] = 3 * GiB;
  return in;
}

inline uint32_t bit(key_query_t q) { return 1u << int(q); }

// A 2^27 partition of the Filecoin-shaped circuit (n_vars ~ n): a, b, c
// 12 GiB, w 4, the full domain 4 (lean: a few MiB), coded CSR 7.17, the
// floor 3.74, headroom 1/64 of the device.
inline residency_input_t key27(uint64_t device_mib) {
  residency_input_t in;
  const uint64_t MiB = uint64_t(1) << 20;
  in.device = device_mib * MiB;
  in.key_fixed = 4 * GiB;
  in.key_fixed_lean = 6 * MiB;
  in.key_optional = 7342 * MiB;
  in.partition = 16 * GiB;
  in.witness = 4 * GiB;
  in.rows = 12 * GiB;
  in.overlap = 8 * GiB;
  in.scratch_floor = 3830 * MiB;
  in.headroom = in.device / 64;
  for (int q = 0; q < 4; ++q) in.query[q] = 12 * GiB;
  in.query[int(key_query_t::b_g2)] = 24 * GiB;
  return in;
}

}  // namespace starzk::dag::test
