// y = x / sqrt(mean(x^2) + eps) per F32 row, times the weight row w when
// WEIGHTED (ops/norm.hpp), and an fp16 copy of y when HALF_COPY
// (graph/vulkan/kernels/half_copy.hpp). One workgroup per row.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "reduce.glsl"

layout(constant_id = 1) const bool WEIGHTED = false;
layout(constant_id = 2) const bool HALF_COPY = false;  // y in fp16 too, dense (y is contiguous)

layout(binding = 0, scalar) readonly buffer X { float x[]; };
layout(binding = 1, scalar) readonly buffer W { float w[]; };  // x again when not WEIGHTED
layout(binding = 2, scalar) writeonly buffer Y { float y[]; };
layout(binding = 3, scalar) writeonly buffer Y16 { float16_t y16[]; };  // y again when not HALF_COPY

layout(push_constant) uniform Push {
    uint ne0, ne1, ne2, nrows;
    uint x_first, x_nb1, x_nb2, x_nb3;
    uint y_first, y_nb1, y_nb2, y_nb3;
    uint w_first;
    float eps;
} p;

void main() {
    const uint r = flat_group();
    if (r >= p.nrows) return;
    const uvec3 i = row_index(r, p.ne1, p.ne2);
    const uint xr = p.x_first + i.x * p.x_nb1 + i.y * p.x_nb2 + i.z * p.x_nb3;
    const uint yr = p.y_first + i.x * p.y_nb1 + i.y * p.y_nb2 + i.z * p.y_nb3;
    float sum = 0.0;
    for (uint k = gl_LocalInvocationID.x; k < p.ne0; k += gl_WorkGroupSize.x) sum += x[xr + k] * x[xr + k];
    const float s = inversesqrt(group_sum(sum) / float(p.ne0) + p.eps);
    for (uint k = gl_LocalInvocationID.x; k < p.ne0; k += gl_WorkGroupSize.x) {
        const float v = WEIGHTED ? s * x[xr + k] * w[p.w_first + k] : s * x[xr + k];
        y[yr + k] = v;
        if (HALF_COPY) y16[yr + k - p.y_first] = float16_t(v);
    }
}
