// The compact witness file (.szwt) and the one entry point that reads a
// witness in either format.
//
// A Filecoin-shaped witness is ~99% zeros and ones (bit decompositions), so
// a 2^27-wire .wtns of 4.3 GB, read once per partition, asks more of a disk
// than the GPU needs to prove it (2.5 GB/s at 1.7 s per partition). The
// compact file keeps two bitmaps and the other values only: ~75 MB at 2^27.
// It is a page container (page_container.hpp), magic "szwt", version 1:
//
//   metadata (16 bytes): u64le n_values, u64le n_other
//   section 0 "ones"   u64le words, ceil(n_values / 64): bit i of word
//                      i / 64 (from the low bit) set <=> value i is 1
//   section 1 "other"  u64le words, as many: set <=> value i is neither 0
//                      nor 1
//   section 2 "values" n_other values of 32 bytes, standard form
//                      little-endian (as .wtns), in wire order
//
// A value with neither bit is 0. The reader checks the checksums, that no
// value is marked twice, no bit past n_values is set, the other bitmap
// marks n_other values, each stored value is canonical (< r) and neither 0
// nor 1 (one file per witness), and that value 0 (the constant wire) is 1.
// Decoding runs on every core, a block of 65536 values per task.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "ff/fr.hpp"

namespace starzk {

void write_compact_witness(const std::filesystem::path& file, std::span<const fr_t> witness, unsigned threads = 0);
// Into caller-owned memory: the count must equal out.size(); on an error
// `out` holds garbage.
void read_compact_witness_into(const std::filesystem::path& file, std::span<fr_t> out, unsigned threads = 0);
// The whole witness, however many values the file holds.
std::vector<fr_t> read_compact_witness(const std::filesystem::path& file, unsigned threads = 0);
// The values neither 0 nor 1 (the ones the file stores in full), and the
// file's size for n values of which n_other are such.
uint64_t other_values(std::span<const fr_t> w);
uint64_t compact_witness_bytes(uint64_t n, uint64_t n_other);

// A witness in either format (.wtns or .szwt, told apart by the magic).
bool is_compact_witness(const std::filesystem::path& file);
void read_witness_into(const std::filesystem::path& file, std::span<fr_t> out);
// The count must equal the circuit's n_vars.
std::vector<fr_t> read_witness(const std::filesystem::path& file, uint32_t expected_n_vars);

}  // namespace starzk
