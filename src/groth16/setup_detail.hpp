// Internal to starzk_groth16: the pieces setup() (setup.cpp) and its
// streaming form setup_to() (setup_stream.cpp) share. The scalar phase
// computes, on the CPU, every scalar the key's points are multiples of
// (setup.hpp gives the math); the fixed-base products then run on the CPU
// (groth16/fixed_base.hpp) or a GPU (setup_gpu.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "groth16/setup.hpp"

namespace starzk::setup_detail {

// u_j = A_j(τ), v_j = B_j(τ) for every wire; the ic, l and h scalars.
struct scalars_t {
  uint64_t n = 0;  // domain size
  std::vector<fr_t> u, v, l, h, ic;
};

scalars_t compute_scalars(const r1cs_t& cs, root_convention_t convention, const toxic_waste_t& tw, unsigned threads);

// Resolves auto_ / gpu to a yes or no; gpu without a device throws.
bool want_gpu(setup_device_t d);

// The six single points: α·G1, β·G1, δ·G1, β·G2, δ·G2, γ·G2.
key_head_t head_points(const toxic_waste_t& tw);

}  // namespace starzk::setup_detail
