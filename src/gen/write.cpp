// write_generated(); see write.hpp.
#include "gen/write.hpp"

#include <stdexcept>
#include <system_error>

#include "io/r1cs.hpp"
#include "io/wtns.hpp"

namespace starzk {

std::string generated_witness_name(uint64_t partition) {
  return "witness-" + std::to_string(partition) + ".wtns";
}

void write_generated(const gen_params_t& params, const std::filesystem::path& dir, uint32_t partitions,
                     unsigned threads, const gen_progress_fn& progress) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw std::runtime_error(dir.string() + ": cannot create the output directory" +
                             (ec ? ": " + ec.message() : std::string()));
  const r1cs_t cs = generate_circuit(params, threads);
  const std::filesystem::path circuit = dir / "circuit.r1cs";
  write_r1cs(circuit, cs);
  if (progress) progress(circuit);
  for (uint32_t i = 0; i < partitions; ++i) {
    const std::filesystem::path file = dir / generated_witness_name(i);
    write_wtns(file, generate_witness(params, cs, i, threads));
    if (progress) progress(file);
  }
}

}  // namespace starzk
