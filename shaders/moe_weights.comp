// moe_weights (ops/moe_weights.hpp): w[j, t] = probs[ids[j, t], t], with
// NORMALIZE divided by max(sum over j, SUM_FLOOR) (moe_weight_scale.glsl,
// which matvec_moe.glsl and moe_sum.comp share). One invocation per token
// (k is a handful of experts); with ROUTER_SOFTMAX (moe_router.glsl: probs
// is an inlined softmax of the router's logits) one workgroup per token,
// which computes the softmax's row maximum and sum, and whose first
// invocation writes the weights.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "reduce.glsl"

layout(constant_id = 1) const bool NORMALIZE = false;
layout(constant_id = 2) const float SUM_FLOOR = 6.103515625e-5;  // kMoeWeightSumFloor

layout(binding = 0, scalar) readonly buffer Probs { float router[]; };
layout(binding = 1, scalar) readonly buffer Ids { int ids[]; };
layout(binding = 2, scalar) writeonly buffer W { float w[]; };

#include "moe_router.glsl"

layout(push_constant) uniform Push {
    uint k, n;
    uint probs_first, probs_nb1;
    uint ids_first, ids_nb1;
    uint w_first, w_nb1;
    uint n_expert;  // ROUTER_SOFTMAX: values per row of the logits
    float scale;    // ROUTER_SOFTMAX: the softmax's
} p;

// This invocation's token's router row and where its ids start in ids[]:
// main sets them for moe_weight, which moe_weight_scale calls.
RouterRow token_row;
uint token_ids;

// Slot j's weight before normalization (moe_weight_scale.glsl): its
// expert's probability.
float moe_weight(uint j) { return router_prob(token_row, ids[token_ids + j]); }

#include "moe_weight_scale.glsl"

void main() {
    const uint t = ROUTER_SOFTMAX ? flat_group() : flat_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (t >= p.n) return;
    token_ids = p.ids_first + t * p.ids_nb1;
    token_row = router_row(p.probs_first + t * p.probs_nb1, p.n_expert, p.scale);
    if (ROUTER_SOFTMAX && gl_LocalInvocationID.x != 0) return;
    const float scale = NORMALIZE ? moe_weight_scale(p.k, SUM_FLOOR) : 1.0;
    for (uint j = 0; j < p.k; ++j) w[p.w_first + t * p.w_nb1 + j] = moe_weight(j) * scale;
}
