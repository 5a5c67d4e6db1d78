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
// streamed in chunks, through the GPU backend of gpu_backend.hpp). Both
// give byte-identical keys for the same toxic waste: affine coordinates are
// unique.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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
  std::string device;       // "CPU (16 threads)" or "GPU 0: NVIDIA H200"
  double scalars_s = 0;     // seconds in the scalar phase (QAP at τ, CPU)
  double fixed_base_s = 0;  // seconds in the fixed-base products
  double total_s = 0;       // seconds in setup() overall
};

struct setup_options_t {
  setup_device_t device = setup_device_t::auto_;
  unsigned threads = 0;          // CPU threads (0: all cores)
  uint64_t gpu_chunk = 0;        // scalars per device piece (0: 2^22); device memory 2 x 512 B x chunk (4 GiB at 2^22)
  setup_info_t* info = nullptr;  // out, optional
};

proving_key_t setup(const r1cs_t& cs, root_convention_t convention, const toxic_waste_t& tw,
                    const setup_options_t& options);
proving_key_t setup(const r1cs_t& cs, root_convention_t convention, const setup_options_t& options);
// The historical signatures: the CPU path (setup_device_t::cpu) with `threads`.
proving_key_t setup(const r1cs_t& cs, root_convention_t convention, const toxic_waste_t& tw, unsigned threads = 0);
proving_key_t setup(const r1cs_t& cs, root_convention_t convention, unsigned threads = 0);

// Streaming form, for keys too large to hold twice (2^27: ~77 GB as
// in-memory points). The sink receives the key's layout first, then every
// point exactly once, in pieces, from any thread (disjoint ranges), and may
// write them anywhere (src/gen writes them compressed into a packed key).
// The A, B_g1 and B_g2 queries come dense: the k-th point of each belongs
// to the k-th wire whose bit is set in a_density / b_density (wire j is
// dense when A_j(τ) ≠ 0, resp. B_j(τ) ≠ 0), and only those points are
// computed at all.
struct key_layout_t {
  root_convention_t convention = root_convention_t::bellman;
  uint32_t n_vars = 0, n_public = 0;
  uint64_t domain_size = 0;
  std::vector<uint64_t> a_density, b_density;  // ⌈n_vars/64⌉ words
  uint64_t n_a = 0, n_b = 0;                   // their popcounts
  uint64_t h_count = 0;                        // n − 1 (bellman) or n
  key_head_t head;
};

class key_sink_t {
 public:
  virtual ~key_sink_t() = default;
  virtual void begin(const key_layout_t& layout) = 0;
  virtual void put(key_query_t q, uint64_t first, std::span<const g1_affine_t> pts) = 0;
  virtual void put(key_query_t q, uint64_t first, std::span<const g2_affine_t> pts) = 0;
};

void setup_to(const r1cs_t& cs, root_convention_t convention, const toxic_waste_t& tw, const setup_options_t& options,
              key_sink_t& sink);
void setup_to(const r1cs_t& cs, root_convention_t convention, const setup_options_t& options, key_sink_t& sink);

// The snarkjs convention's QAP rows (keys.hpp zkey_a, zkey_b) for a domain
// of n rows: the circuit's A and B rows, then A[n_c + s][s] = 1 for the
// n_public + 1 input rows, then empty rows. What a .zkey stores, and what a
// snarkjs-convention key read without its matrices takes from its circuit.
void zkey_matrices(const r1cs_t& cs, uint64_t n, sparse_matrix_t& a, sparse_matrix_t& b);

// Whether setup_device_t::auto_ would use a GPU; when not, *why (if given)
// gets the reason ("built without CUDA", "no CUDA device: ...").
bool setup_gpu_available(std::string* why = nullptr);

// "auto" | "on" | "off" (the CLI's --gpu; also "gpu", "cpu") -> the device;
// anything else: std::invalid_argument naming the value.
setup_device_t parse_setup_device(std::string_view s);

}  // namespace starzk
