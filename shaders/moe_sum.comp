// moe_sum (ops/moe_sum.hpp): out[i, t] = sum over j of w[j, t] y[i, j, t].
// One invocation per value of out; a token's row split over
// gl_NumWorkGroups.z workgroups (common.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(binding = 0, scalar) readonly buffer Y { float y[]; };
layout(binding = 1, scalar) readonly buffer W { float w[]; };
layout(binding = 2, scalar) writeonly buffer Out { float o[]; };

layout(push_constant) uniform Push {
    uint d, k, n;
    uint y_first, y_nb1, y_nb2;
    uint w_first, w_nb1;
    uint o_first, o_nb1;
} p;

void main() {
    const uint t = flat_group();
    if (t >= p.n) return;
    const uint yr = p.y_first + t * p.y_nb2, wr = p.w_first + t * p.w_nb1;
    for (uint i = row_part_first(); i < p.d; i += row_part_step()) {
        float sum = 0.0;
        for (uint j = 0; j < p.k; ++j) sum += w[wr + j] * y[yr + j * p.y_nb1 + i];
        o[p.o_first + t * p.o_nb1 + i] = sum;
    }
}
