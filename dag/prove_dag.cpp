// prove_dag.cpp: see prove_dag.hpp.
#include "dag/prove_dag.hpp"

namespace starzk::dag {

proof_t prove_dag(std::shared_ptr<const key_bundle_t> key, std::vector<fr_t> witness,
                  std::optional<blinding_t> fixed_rs, const batch_options_t& options) {
  batch_t batch(options);
  const uint32_t job = batch.open_job(key, key->name());
  batch.submit(job, 0, std::move(witness), key->name() + " #0", fixed_rs);
  batch.close_job(job);
  std::optional<partition_result_t> r = batch.wait_next();
  if (!r) throw std::logic_error("prove_dag: the partition vanished");
  if (!r->ok) throw prove_error(r->error);
  return r->proof;
}

}  // namespace starzk::dag
