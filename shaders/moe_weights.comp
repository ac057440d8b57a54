// moe_weights (ops/moe_weights.hpp): w[j, t] = probs[ids[j, t], t], with
// NORMALIZE divided by max(sum over j, SUM_FLOOR). One invocation per token
// (k is a handful of experts).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 1) const bool NORMALIZE = false;
layout(constant_id = 2) const float SUM_FLOOR = 6.103515625e-5;  // kMoeWeightSumFloor

layout(binding = 0, scalar) readonly buffer Probs { float probs[]; };
layout(binding = 1, scalar) readonly buffer Ids { int ids[]; };
layout(binding = 2, scalar) writeonly buffer W { float w[]; };

layout(push_constant) uniform Push {
    uint k, n;
    uint probs_first, probs_nb1;
    uint ids_first, ids_nb1;
    uint w_first, w_nb1;
} p;

void main() {
    const uint t = flat_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (t >= p.n) return;
    const uint pr = p.probs_first + t * p.probs_nb1, ir = p.ids_first + t * p.ids_nb1;
    float sum = 0.0;
    if (NORMALIZE)
        for (uint j = 0; j < p.k; ++j) sum += probs[pr + ids[ir + j]];
    const float scale = NORMALIZE ? 1.0 / max(sum, SUM_FLOOR) : 1.0;
    for (uint j = 0; j < p.k; ++j) w[p.w_first + t * p.w_nb1 + j] = probs[pr + ids[ir + j]] * scale;
}
