// A token's experts in topk.comp's order (largest value first, ties lower
// index first) found by one subgroup, for the kernels that read an inlined
// topk (graph/vulkan/kernels/moe_fusion.hpp): each call takes the first
// value after the previous pick, one subgroup max and min per expert, no
// shared memory and no barrier. The values are a router's logits, which
// rank as their softmax does but where two probabilities round equal.
// Included after common.glsl; the includer declares `router[]`.

const uint RANK_NONE = 0xFFFFFFFFu;

struct RankPick {
    float value;
    uint expert;  // RANK_NONE before the first pick
};

// The pick after `prev` among the n values router[first..]; every invocation
// of the subgroup must call it, with the same arguments.
RankPick next_ranked(uint first, uint n, RankPick prev) {
    float best = 0.0;
    uint best_expert = RANK_NONE;
    for (uint e = gl_SubgroupInvocationID; e < n; e += gl_SubgroupSize) {
        const float v = router[first + e];
        const bool after = prev.expert == RANK_NONE || v < prev.value || (v == prev.value && e > prev.expert);
        if (after && (best_expert == RANK_NONE || v > best)) {  // e ascends: a tie keeps the lower
            best = v;
            best_expert = e;
        }
    }
    const float top = subgroupMax(best_expert == RANK_NONE ? uintBitsToFloat(0xFF800000u) : best);
    return RankPick(top, subgroupMin(best_expert != RANK_NONE && best == top ? best_expert : RANK_NONE));
}

// The expert of rank j.
uint ranked_expert(uint first, uint n, uint j) {
    RankPick pick = RankPick(0.0, RANK_NONE);
    for (uint r = 0; r <= j; ++r) pick = next_ranked(first, n, pick);
    return pick.expert;
}
