// moe_sum (ops/moe_sum.hpp): out[i, t] = sum over j of w[j, t] y[i, j, t].
// One invocation per value of out; a token's row split over
// gl_NumWorkGroups.z workgroups (common.glsl).
//
// Fused (graph/vulkan/kernels/moe_fusion.hpp): with WEIGHTS, w is an
// inlined moe_weights, which each workgroup computes from the router's
// probabilities (or, ROUTER_SOFTMAX, its logits) and the ids into shared
// memory, as moe_weights.comp does (moe_weight_scale.glsl); with ADDEND,
// out = that sum + a (the residual add that reads it, inlined the other way:
// the add records this).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "reduce.glsl"

layout(constant_id = 1) const bool NORMALIZE = false;
layout(constant_id = 2) const float SUM_FLOOR = 6.103515625e-5;  // kMoeWeightSumFloor
layout(constant_id = 4) const bool WEIGHTS = false;
layout(constant_id = 5) const bool ADDEND = false;

layout(binding = 0, scalar) readonly buffer Y { float y[]; };
layout(binding = 1, scalar) readonly buffer W { float w[]; };  // WEIGHTS: the router's probabilities or logits
layout(binding = 2, scalar) readonly buffer Ids { int ids[]; };  // WEIGHTS; else w again
layout(binding = 3, scalar) readonly buffer A { float a[]; };  // ADDEND; else w again
layout(binding = 4, scalar) writeonly buffer Out { float o[]; };
layout(binding = 1, scalar) readonly buffer Router { float router[]; };

#include "moe_router.glsl"

layout(push_constant) uniform Push {
    uint d, k, n;
    uint y_first, y_nb1, y_nb2;
    uint w_first, w_nb1;
    uint o_first, o_nb1;
    uint a_first, a_nb1;
    uint ids_first, ids_nb1;  // WEIGHTS
    uint n_expert;            // ROUTER_SOFTMAX: values per row of the logits
    float scale;              // ROUTER_SOFTMAX: the softmax's
} p;

const uint MAX_K = 64;  // graph/vulkan/kernels/moe_fusion.cpp's kMaxChosen
shared float weights[MAX_K];

// This invocation's token's router row and where its ids start in ids[]:
// main sets them for moe_weight, which moe_weight_scale calls.
RouterRow token_row;
uint token_ids;

// Slot j's weight before normalization (moe_weight_scale.glsl): its
// expert's probability.
float moe_weight(uint j) { return router_prob(token_row, ids[token_ids + j]); }

#include "moe_weight_scale.glsl"

// Slot j's weight of token t.
float weight(uint t, uint j) { return WEIGHTS ? weights[j] : w[p.w_first + t * p.w_nb1 + j]; }

void main() {
    const uint t = flat_group();
    if (t >= p.n) return;
    if (WEIGHTS) {
        token_ids = p.ids_first + t * p.ids_nb1;
        token_row = router_row(p.w_first + t * p.w_nb1, p.n_expert, p.scale);
        if (gl_LocalInvocationID.x == 0) {  // moe_weights.comp's weights
            const float scale = NORMALIZE ? moe_weight_scale(p.k, SUM_FLOOR) : 1.0;
            for (uint j = 0; j < p.k; ++j) weights[j] = moe_weight(j) * scale;
        }
        barrier();
    }
    const uint yr = p.y_first + t * p.y_nb2;
    for (uint i = row_part_first(); i < p.d; i += row_part_step()) {
        float sum = 0.0;
        for (uint j = 0; j < p.k; ++j) sum += weight(t, j) * y[yr + j * p.y_nb1 + i];
        if (ADDEND) sum += a[p.a_first + t * p.a_nb1 + i];
        o[p.o_first + t * p.o_nb1 + i] = sum;
    }
}
