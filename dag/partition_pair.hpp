// partition_pair.hpp: two partitions of one key proved with one task per
// witness MSM for both (a pair): b_g2_msm, and msm_l, msm_a, msm_b1.
//
// Why: where the memory plan streams a query's bases from host memory (a
// 16 GB card at 2^27: 12.8 GB for each of L, A and B_g1 and 25.6 GB for
// B_g2 per partition), its MSM over the witness (mostly 0 and 1) is bound
// by PCIe: the bases cross in several times what the arithmetic takes.
// The partitions of a sector share their key, so one staging of each
// piece of the bases can serve two witnesses (gpu::msm_pieces_sets): the
// bases cross once per pair instead of once per partition.
//
// The DAG: the first partition's DAG (its head, submit_head, goes to
// StarPU before its partner is known: dag/batch_pairs.cpp) has tasks in
// its tail that also read the second's w and prep and write the second's
// results (b_g2_msm where key_view_t::b_g2_pairs, msm_l, msm_a and msm_b1
// where g1_pairs), each after the first's msm_h, so that the second's w
// takes the place of the first's h on the device (the memory plan counts
// the MSM phase as w + h + scratch; n_vars ≤ domain size, so w fits where
// h was). The second submits its DAG without those tasks; with G1 pairs
// its msm_h ends its chain. Its chain's end does not wait for the pair's
// results (partition_t::b_g2_by_partner, g1_by_partner): no chain waits on
// another, so the GPU lock cannot hold the first's chain out while the
// second's waits for it. Only the second's assemble reads them; its free
// task comes after the pair's tasks by submission order, so its w lives
// until they have read it.
//
// Pairs are made (pairs_for) where the key asks for them (STARZK_MSM_PAIRS),
// the G1 MSMs are tasks of their own (not msm_g1), no prep_msm task is
// submitted (a pair's task reads the second's prep before a prep_msm of
// the second, submitted after it, would have written it; the CPU bodies
// compute the split themselves) and the partitions are not a retry on the
// CPUs. The batch decides which partitions pair (dag/batch_pairs.cpp).
#pragma once

#include "dag/partition_dag.hpp"

namespace starzk::dag {

// Whether partitions of `key` submitted with `ctx` may be paired.
bool pairs_for(const key_bundle_t& key, const submit_context_t& ctx);

// Submits the first's tail, with the pair's tasks (file comment; its head
// is in: submit_head), and the second's whole DAG. The partitions share a
// key. Throws as submit_partition does.
void submit_pair(partition_t& first, const submit_context_t& first_ctx, partition_t& second,
                 const submit_context_t& second_ctx);

}  // namespace starzk::dag
