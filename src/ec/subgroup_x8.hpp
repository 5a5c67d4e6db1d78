// The subgroup checks of subgroup.hpp, eight points at a time on AVX-512
// IFMA (ff/fp_x8_ifma.hpp): the scan of one block of first_outside_subgroup.
// Call only where ff_path::wide() (the CPU has AVX-512 IFMA and
// STARZK_FF_IFMA and STARZK_FF_PORTABLE do not turn it off); subgroup.cpp
// does.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "ec/affine.hpp"

namespace starzk {

// The lowest index in [begin, end) of a point of v outside the order-r
// subgroup (off the curve included; O passes), or end when there is none
// or once `known` (a failure found elsewhere) is at or below the index
// reached. The same answer as testing is_in_subgroup() in index order.
size_t first_failure_x8(std::span<const g1_affine_t> v, size_t begin, size_t end, const std::atomic<uint64_t>& known);
size_t first_failure_x8(std::span<const g2_affine_t> v, size_t begin, size_t end, const std::atomic<uint64_t>& known);

// The eight-lane test alone: bit j of the result is set when p[j] is
// outside the subgroup. Every p[j] must be on the curve and not O. For tests
// and benchmarks.
unsigned outside_x8(const g1_affine_t* p);
unsigned outside_x8(const g2_affine_t* p);

}  // namespace starzk
