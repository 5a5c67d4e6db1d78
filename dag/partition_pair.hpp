// partition_pair.hpp: two partitions of one key proved with one b_g2_msm
// task for both (a pair).
//
// Why: where the memory plan streams B_g2 from host memory (a 16 GB card
// at 2^27: 25.6 GB of bases per partition), b_g2_msm is bound by PCIe:
// its bases cross in about three times what its arithmetic takes. The
// partitions of a sector share their key, so one staging of each piece of
// B_g2 can serve two witnesses (gpu::msm_pieces_sets): the bases cross
// once per pair instead of once per partition.
//
// The DAG: the first partition (the lower chain id) submits its DAG with
// a b_g2_msm that also reads the second's w and prep and writes the
// second's result, after the first's msm_h, so that the second's w takes
// the place of the first's h on the device (the memory plan counts the
// MSM phase as w + h + scratch; n_vars ≤ domain size, so w fits where h
// was). The second submits its DAG without a b_g2_msm of its own, and its
// chain's end does not wait for its B_g2 result (partition_t::
// b_g2_by_partner): no chain waits on another, so the GPU lock cannot hold
// the first's chain out while the second's waits for it. Only the
// second's assemble reads the result; its free task comes after the
// pair's task by submission order, so its w lives until the pair has
// read it.
//
// Pairs are made (pairs_b_g2) where the key asks for them
// (key_view_t::b_g2_pairs, STARZK_MSM_PAIRS), the G1 MSMs are tasks of
// their own (the pair follows msm_h), no prep_msm task is submitted (the
// pair reads the second's prep before a prep_msm of the second, submitted
// after it, would have written it; the CPU body computes the split itself)
// and the partitions are not a retry on the CPUs. The batch decides which
// partitions pair (dag/batch_pairs.cpp).
#pragma once

#include "dag/partition_dag.hpp"

namespace starzk::dag {

// Whether partitions of `key` submitted with `ctx` may be paired.
bool pairs_b_g2(const key_bundle_t& key, const submit_context_t& ctx);

// Submits both DAGs, the pair's b_g2_msm in the first's (file comment).
// The partitions share a key; `first` has the lower chain id. Throws as
// submit_partition does.
void submit_pair(partition_t& first, const submit_context_t& first_ctx, partition_t& second,
                 const submit_context_t& second_ctx);

}  // namespace starzk::dag
