// Reading and writing iden3 .wtns witness files.
//
// Format (v2; v1 has the same two sections): section 1 = u32 n8 (= 32),
// the prime r, u32 nWitness; section 2 = nWitness × 32 bytes, each value in
// standard form (< r), little-endian. Value 0 must be 1 (wire 0 is the
// constant one); the reader checks it, as a witness whose first value is
// not 1 cannot belong to any circuit.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "ff/fr.hpp"
#include "io/io_error.hpp"

namespace starzk {

std::vector<fr_t> read_wtns(const std::filesystem::path& file);
// The same, and the count must equal the circuit's n_vars.
std::vector<fr_t> read_wtns(const std::filesystem::path& file, uint32_t expected_n_vars);
// Into caller-owned memory (e.g. a page-locked buffer reused across
// witnesses): the count must equal out.size(). On an error `out` holds
// garbage.
void read_wtns_into(const std::filesystem::path& file, std::span<fr_t> out);
void write_wtns(const std::filesystem::path& file, std::span<const fr_t> witness);
// The error both witness readers give for a count other than the key's.
io_error witness_count_error(const std::filesystem::path& file, uint64_t n, uint64_t expected);

}  // namespace starzk
