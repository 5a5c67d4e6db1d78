// The fuzz targets: one function per reader, found by name.
//
// Each target takes one input (bytes a libFuzzer mutation made), hands it
// to its reader the way the CLI does (a file written with write_scratch,
// the same read options and follow-up checks: validation, unpacking,
// conversion), and rejects it cleanly or not at all (fuzz_input.hpp says
// which exceptions count as clean). The targets are grouped by family:
//   fuzz_iden3.cpp   zkey, r1cs, wtns, params, params_vk (the verifying
//                    key at the head of a .params, `verify --params`)
//   fuzz_mapped.cpp  szkc, szcs, szpk (with the multiplier circuit),
//                    proofs_bin, journal, record
//   fuzz_text.cpp    proof_json, public_json, vkey_json, manifest
// One executable per target (fuzz_main.cpp, CMake: fuzz_<name>) keeps each
// corpus and coverage map to one format; fuzz_seeds.cpp writes every
// target's seed corpus from tests/fixtures.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace starzk::fuzz {

using target_fn = void (*)(std::span<const uint8_t>);

struct target_t {
  const char* name;
  target_fn run;
};

std::span<const target_t> iden3_targets();
std::span<const target_t> mapped_targets();
std::span<const target_t> text_targets();

// The target of this name, or nullptr.
const target_t* find_target(std::string_view name);

}  // namespace starzk::fuzz
