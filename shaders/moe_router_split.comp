// A MoE layer's router in its o projection's level, for routers of many
// experts (graph/vulkan/kernels/moe_router_split.hpp): the logits are linear
// in h' = h + W_o a, so before the norm's scale they are
//   z_e = sum_j K[e][j] [h; a]_j,  K = [W_r diag(g) | W_r diag(g) W_o]
// (K computed once from the weights, on the host), which this dispatch
// computes from h and a while the o projection computes h' beside it. The
// norm's scale s = 1 / rms(h') is positive, so ranking z ranks the router's
// softmax: the last workgroup to finish a token's logits ranks them
// (topk_rank.glsl) into the topk's ids. z is stored for the down matvec's
// last workgroups, which weigh the slots with softmax(scale * s * z) once h'
// is known (shaders/matvec_moe.glsl's WEIGHTS_OF_LOGITS).
//
// One workgroup per expert: its invocations split the row of K, each
// token's dot product summed over the workgroup.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "reduce.glsl"

layout(binding = 0, scalar) readonly buffer K { float kw[]; };
layout(binding = 1, scalar) readonly buffer H { float h[]; };
layout(binding = 2, scalar) readonly buffer A { float a[]; };
layout(binding = 3, scalar) coherent buffer Z { float z[]; };
layout(binding = 4, scalar) writeonly buffer Ids { int ids[]; };
layout(binding = 5) coherent buffer Counters { uint counters[]; };

layout(push_constant) uniform Push {
    uint experts, n_h, n_a, tokens, chosen;  // chosen: the topk's k
    uint k_first;
    uint h_first, h_nb1;
    uint a_first, a_nb1;
    uint z_first, z_nb1;
    uint ids_first, ids_nb1;
} p;

const uint MAX_EXPERTS = 1024;  // graph/vulkan/kernels/moe_fusion.hpp's kMaxExperts
shared float logits[MAX_EXPERTS];

float topk_value(uint e) { return logits[e]; }
uint ids_row;  // where the ranked token's ids start: set before topk_rank
void topk_store(uint rank, uint e) { ids[ids_row + rank] = int(e); }

#include "topk_rank.glsl"
#include "last_to_finish.glsl"

void main() {
    const uint e = flat_group();
    if (e >= p.experts) return;  // uniform over the workgroup: the grid is one workgroup per expert
    const uint row = p.k_first + e * (p.n_h + p.n_a);
    for (uint t = 0; t < p.tokens; ++t) {
        float acc = 0.0;
        for (uint j = gl_LocalInvocationID.x; j < p.n_h; j += gl_WorkGroupSize.x)
            acc += kw[row + j] * h[p.h_first + t * p.h_nb1 + j];
        for (uint j = gl_LocalInvocationID.x; j < p.n_a; j += gl_WorkGroupSize.x)
            acc += kw[row + p.n_h + j] * a[p.a_first + t * p.a_nb1 + j];
        acc = group_sum(acc);
        if (gl_LocalInvocationID.x == 0) z[p.z_first + t * p.z_nb1 + e] = acc;
    }
    if (!last_to_finish(0, p.experts)) return;
    for (uint t = 0; t < p.tokens; ++t) {
        for (uint i = gl_LocalInvocationID.x; i < p.experts; i += gl_WorkGroupSize.x)
            logits[i] = z[p.z_first + t * p.z_nb1 + i];
        barrier();
        ids_row = p.ids_first + t * p.ids_nb1;
        topk_rank(p.experts, p.chosen);
        barrier();  // logits free for the next token
    }
}
