// placement.cpp: restricting where each codelet may run (see codelets.hpp,
// set_placement). A codelet's `where` mask is what StarPU consults when it
// decides which workers can execute a task, so setting it before tasks are
// submitted pins a phase to the CPUs or to the GPUs; "any" gives the mask
// of every body the codelet has. Researchers use it to compare placements
// (`starzk prove --place spmv=cpu,b_g2_msm=cuda`), tests to check that
// mixed placements give the same proofs.
#include <starpu.h>

#include <sstream>
#include <stdexcept>
#include <string>

#include "codelets/codelets.hpp"

namespace starzk::codelets {

namespace {

uint32_t bodies_of(const starpu_codelet* cl) {
  uint32_t m = 0;
  if (cl->cpu_funcs[0]) m |= STARPU_CPU;
  if (cl->cuda_funcs[0]) m |= STARPU_CUDA;
  return m;
}

}  // namespace

void set_placement(const std::string& spec) {
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("placement '" + item + "': expected CODELET=cpu|cuda|any");
    const std::string name = item.substr(0, eq), where = item.substr(eq + 1);
    starpu_codelet* cl = nullptr;
    for (starpu_codelet* c : all_codelets())
      if (name == c->name) cl = c;
    if (cl == nullptr)
      throw std::invalid_argument(
          "placement '" + item +
          "': unknown codelet (spmv, spmv_passes, spmv_dev, ntt_h, ntt_h_passes, prep_msm, msm, b_g2_msm, "
          "assemble, free)");
    uint32_t mask = 0;
    if (where == "cpu")
      mask = STARPU_CPU;
    else if (where == "cuda")
      mask = STARPU_CUDA;
    else if (where == "any")
      mask = bodies_of(cl);
    else
      throw std::invalid_argument("placement '" + item + "': expected cpu, cuda or any after '='");
    if ((bodies_of(cl) & mask) != mask)
      throw std::invalid_argument("placement '" + item + "': codelet " + name + " has no " + where +
                                  " body in this build");
    cl->where = mask;
  }
}

uint32_t codelet_where(const starpu_codelet* cl) { return cl->where ? cl->where : bodies_of(cl); }

std::string placement() {
  std::string out;
  for (starpu_codelet* c : all_codelets()) {
    const uint32_t m = codelet_where(c);
    const char* w = (m & STARPU_CPU) && (m & STARPU_CUDA) ? "any" : (m & STARPU_CUDA) ? "cuda" : "cpu";
    out += std::string(out.empty() ? "" : ",") + c->name + "=" + w;
  }
  return out;
}

}  // namespace starzk::codelets
