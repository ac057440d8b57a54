// topk (ops/topk.hpp): the indices of a row's k largest values, largest
// first, ties lower index first. One workgroup per row; each invocation
// ranks its values by counting those that come before them in that order
// (O(n^2) compares per row: meant for a router's experts, tens to hundreds),
// and a value ranked below k writes its index at its rank. No sort, no
// barrier, and every value's rank is distinct.
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

void main() {
    const uint r = flat_group();
    if (r >= p.nrows) return;
    const uvec3 i = row_index(r, p.ne1, p.ne2);
    const uint xr = p.x_first + i.x * p.x_nb1 + i.y * p.x_nb2 + i.z * p.x_nb3;
    const uint yr = p.y_first + i.x * p.y_nb1 + i.y * p.y_nb2 + i.z * p.y_nb3;
    if (ROUTER_SOFTMAX) {
        const RouterRow row = router_row(xr, p.n, p.scale);
        for (uint a = gl_LocalInvocationID.x; a < p.n; a += gl_WorkGroupSize.x) probs[a] = router_prob(row, a);
        barrier();
    }
    for (uint a = gl_LocalInvocationID.x; a < p.n; a += gl_WorkGroupSize.x) {
        const float v = ROUTER_SOFTMAX ? probs[a] : router[xr + a];
        uint rank = 0;
        for (uint b = 0; b < p.n && rank < p.ne0; ++b) {
            const float u = ROUTER_SOFTMAX ? probs[b] : router[xr + b];
            rank += uint(u > v || (u == v && b < a));
        }
        if (rank < p.ne0) y[yr + rank] = int(a);
    }
}
