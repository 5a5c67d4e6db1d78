// Filecoin's verifying-key files (.vk): bellman's `VerifyingKey::write`
// alone, which is also the first part of every .params file (params.hpp):
//
//   offset  size     field
//   0       96       alpha_g1   G1 uncompressed (zcash encoding)
//   96      96       beta_g1    G1
//   192     192      beta_g2    G2 uncompressed
//   384     192      gamma_g2   G2
//   576     96       delta_g1   G1
//   672     192      delta_g2   G2
//   864     4        n_ic       u32 big-endian
//   868     96·n_ic  ic         G1 (n_public + 1 points)
//
// and nothing after: a PoRep key (12 public inputs, 13 ic points) is
// 868 + 13·96 = 2,116 bytes. A verifier needs only this, not the 47 GiB
// .params. The reader checks the size against n_ic before allocating and
// every point on its curve and in its subgroup (O refused: bellman refuses
// it too); errors are io_error "FILE: problem" with the offset.
#pragma once

#include <cstdint>
#include <filesystem>

#include "groth16/keys.hpp"

namespace starzk {

// The two G1 points a verifier does not use but the format carries.
struct bellman_vk_t {
  verifying_key_t vk;
  g1_affine_t beta_g1, delta_g1;
};

constexpr uint64_t bellman_vk_points_bytes = 864;                         // alpha_g1 .. delta_g2
constexpr uint64_t bellman_vk_fixed_bytes = bellman_vk_points_bytes + 4;  // up to and including n_ic
constexpr uint64_t bellman_vk_bytes(uint64_t n_ic) { return bellman_vk_fixed_bytes + 96 * n_ic; }

// The six points before n_ic, uncompressed in the layout's order:
// bellman_vk_points_bytes at `out`. The .vk and the .params writers
// (params.hpp) both begin with them.
void encode_bellman_vk_points(const key_head_t& k, uint8_t* out);

// Whether the file's size is exactly that of a .vk with the n_ic it states
// (how `info` and `verify` tell a .vk from a .params, which has no magic).
bool looks_like_bellman_vk(const std::filesystem::path& file);

// `leading`: the key at the start of a longer file (a .params), whose
// remaining bytes are not read.
bellman_vk_t read_bellman_vk(const std::filesystem::path& file, bool leading = false);
// Written atomically (io/atomic_file.hpp).
void write_bellman_vk(const std::filesystem::path& file, const bellman_vk_t& key);
// From a full proving key (beta_g1, delta_g1 from its fields).
bellman_vk_t bellman_vk_of(const proving_key_t& pk);

}  // namespace starzk
