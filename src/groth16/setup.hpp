// Development keys: a Groth16 setup from fresh toxic waste for one circuit.
//
// NOT A CEREMONY. The secrets τ, α, β, γ, δ are drawn from the OS CSPRNG,
// used, and dropped, but whoever runs this could keep them and forge proofs.
// Use these keys for development, testing and benchmarks only; production
// keys come from a multi-party ceremony (snarkjs phase 2, Filecoin's
// published .params).
//
// The math (Groth 2016, with the QAP of witness_map.hpp): n is the domain
// size, ω its root of unity in the key's convention, L_i the Lagrange basis
// on ⟨ω⟩, and for wire j
//   u_j = A_j(τ) = Σ_i A[i][j]·L_i(τ),  v_j = B_j(τ),  w_j = C_j(τ)
// (rows i include the n_public + 1 input rows). The queries are
//   a_j = u_j·G1, b_g1_j = v_j·G1, b_g2_j = v_j·G2,
//   ic_i = (β·u_i + α·v_i + w_i)/γ·G1 (i ≤ n_public),
//   l_j = (β·u_j + α·v_j + w_j)/δ·G1 (aux j),
//   h_i = τ^i·Z(τ)/δ·G1 (i < n − 1, bellman) or L'_{2i+1}(τ)/δ·G1 (i < n,
//   snarkjs; L' the Lagrange basis of the 2n-th roots), Z(τ) = τ^n − 1.
// Lagrange values come from L_i(τ) = ω^i·Z(τ) / (n·(τ − ω^i)), with one
// batch inversion.
//
// Where the work goes: the scalars above are computed on the CPU; the 5n
// G1 and n G2 fixed-base products (the bulk at 2^24..2^27 constraints) run
// on the CPU (8-bit comb, setup.cpp) or on a CUDA device (cuda/fixed_base.cu,
// streamed in chunks, setup_gpu.cpp). Both give byte-identical keys for the
// same toxic waste: affine coordinates are unique.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace starzk {

struct toxic_waste_t {
  fr_t tau, alpha, beta, gamma, delta;
};

// Fresh toxic waste from the OS CSPRNG (non-zero, τ outside the domain).
toxic_waste_t random_toxic_waste();

// Where the fixed-base products run. auto_: a CUDA device when this build
// has CUDA and one is present, else the CPU. gpu: a CUDA device or a
// std::runtime_error saying why there is none. cpu: the CPU.
enum class setup_device_t { auto_, cpu, gpu };

// What a setup did (filled when setup_options_t::info is set).
struct setup_info_t {
  bool used_gpu = false;
  std::string device;          // "CPU (16 threads)" or "GPU 0: NVIDIA H200"
  double fixed_base_s = 0;     // seconds in the fixed-base products
  double total_s = 0;          // seconds in setup() overall
};

struct setup_options_t {
  setup_device_t device = setup_device_t::auto_;
  unsigned threads = 0;           // CPU threads (0: all cores)
  uint64_t gpu_chunk = 0;         // scalars per device piece (0: 2^22); device memory 2 x 512 B x chunk (4 GiB at 2^22)
  setup_info_t* info = nullptr;   // out, optional
};

proving_key_t setup(const r1cs_t& cs, h_convention_t convention, const toxic_waste_t& tw,
                    const setup_options_t& options);
proving_key_t setup(const r1cs_t& cs, h_convention_t convention, const setup_options_t& options);
// The historical signatures: the CPU path (setup_device_t::cpu) with `threads`.
proving_key_t setup(const r1cs_t& cs, h_convention_t convention, const toxic_waste_t& tw, unsigned threads = 0);
proving_key_t setup(const r1cs_t& cs, h_convention_t convention, unsigned threads = 0);

// Whether setup_device_t::auto_ would use a GPU; when not, *why (if given)
// gets the reason ("built without CUDA", "no CUDA device: ...").
bool setup_gpu_available(std::string* why = nullptr);

// "auto" | "on" | "off" (the CLI's --gpu; also "gpu", "cpu") -> the device;
// anything else: std::invalid_argument naming the value.
setup_device_t parse_setup_device(std::string_view s);

// The domain generator each convention uses for an n = 2^log2n domain:
// snarkjs 5^((r−1)/n), bellman 7^((r−1)/n) (see ff/fr.hpp).
fr_t domain_root(h_convention_t convention, unsigned log2n);

}  // namespace starzk
