// partition_pair.cpp: two partitions, one task per witness MSM (see
// partition_pair.hpp).
#include "dag/partition_pair.hpp"

#include <stdexcept>

namespace starzk::dag {

bool pairs_for(const key_bundle_t& key, const submit_context_t& ctx) {
  const codelets::key_view_t& v = key.view();
  return (v.b_g2_pairs || v.g1_pairs) && !v.g1_msms_together && !ctx.prep_task && ctx.only == 0;
}

void submit_pair(partition_t& first, const submit_context_t& first_ctx, partition_t& second,
                 const submit_context_t& second_ctx) {
  if (&first.key() != &second.key())
    throw std::logic_error(first.state().label + ", " + second.state().label + ": a pair shares one key");
  const codelets::key_view_t& v = first.key().view();
  // The second's proof waits for the first's chain too (its witness MSMs
  // are the first's tasks): the first's chain end tells it (chain_step).
  second.chains_open.fetch_add(1, std::memory_order_acq_rel);
  second.pending_callbacks.fetch_add(1, std::memory_order_acq_rel);
  first.chain_partner = &second;
  submit_tail(first, first_ctx, pair_role_t{&second, false, v.b_g2_pairs, v.g1_pairs});        // tasks for both
  submit_partition(second, second_ctx, pair_role_t{nullptr, true, v.b_g2_pairs, v.g1_pairs});  // none of those
}

}  // namespace starzk::dag
