// topk (ops/topk.hpp): the indices of a row's k largest values, largest
// first, ties lower index first. One workgroup per row, ranked by counting
// (topk_rank.glsl, which matvec_moe.glsl's router_topk shares).
//
// ROUTER_SOFTMAX (moe_router.glsl): the row is a router's logits whose
// softmax (an inlined node) is ranked; the probabilities are computed once
// into shared memory (rows of at most MAX_N values) and ranked from there.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "reduce.glsl"

layout(binding = 0, scalar) readonly buffer X { float router[]; };
layout(binding = 1, scalar) writeonly buffer Y { int y[]; };

#include "moe_router.glsl"

layout(push_constant) uniform Push {
    uint ne0, ne1, ne2, nrows;  // of y: ne0 = k
    uint n;                     // values per row of x
    uint x_first, x_nb1, x_nb2, x_nb3;
    uint y_first, y_nb1, y_nb2, y_nb3;
    float scale;  // ROUTER_SOFTMAX: the softmax's
} p;

const uint MAX_N = 1024;  // graph/vulkan/kernels/moe_fusion.cpp's kMaxExperts
shared float probs[MAX_N];

// The row of x and of y this workgroup ranks: main sets them for the
// functions topk_rank calls.
uint x_row, y_row;

float topk_value(uint i) { return ROUTER_SOFTMAX ? probs[i] : router[x_row + i]; }
void topk_store(uint rank, uint i) { y[y_row + rank] = int(i); }

#include "topk_rank.glsl"

void main() {
    const uint r = flat_group();
    if (r >= p.nrows) return;
    const uvec3 i = row_index(r, p.ne1, p.ne2);
    x_row = p.x_first + i.x * p.x_nb1 + i.y * p.x_nb2 + i.z * p.x_nb3;
    y_row = p.y_first + i.x * p.y_nb1 + i.y * p.y_nb2 + i.z * p.y_nb3;
    if (ROUTER_SOFTMAX) {
        const RouterRow row = router_row(x_row, p.n, p.scale);
        for (uint a = gl_LocalInvocationID.x; a < p.n; a += gl_WorkGroupSize.x) probs[a] = router_prob(row, a);
        barrier();
    }
    topk_rank(p.n, p.ne0);
}
