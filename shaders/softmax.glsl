// y = softmax(scale * x) per F32 row (ops/softmax.hpp); with CAUSAL (defined
// 0 or 1 by softmax.comp and softmax_causal.comp), row i1 keeps entries
// i0 <= positions[i1] and the rest come out as 0. One workgroup per row:
// each invocation keeps a running max and sum of its entries (an online
// softmax), merged across the workgroup, then the row is written.
#include "common.glsl"
#include "reduce.glsl"

layout(binding = 0, scalar) readonly buffer X { float x[]; };
#if CAUSAL
layout(binding = 1, scalar) readonly buffer Pos { int positions[]; };
layout(binding = 2, scalar) writeonly buffer Y { float y[]; };
#else
layout(binding = 1, scalar) writeonly buffer Y { float y[]; };
#endif

layout(push_constant) uniform Push {
    uint ne0, ne1, ne2, nrows;
    uint x_first, x_nb1, x_nb2, x_nb3;
    uint y_first, y_nb1, y_nb2, y_nb3;
    uint pos_first;
    float scale;
} p;

const float NO_MAX = -1.0e30;  // below any score; finite, so NO_MAX - NO_MAX is 0

void main() {
    const uint r = flat_group();
    if (r >= p.nrows) return;
    const uvec3 i = row_index(r, p.ne1, p.ne2);
    const uint xr = p.x_first + i.x * p.x_nb1 + i.y * p.x_nb2 + i.z * p.x_nb3;
    const uint yr = p.y_first + i.x * p.y_nb1 + i.y * p.y_nb2 + i.z * p.y_nb3;
#if CAUSAL
    const uint n = uint(clamp(positions[p.pos_first + i.x] + 1, 0, int(p.ne0)));
#else
    const uint n = p.ne0;
#endif
    float m = NO_MAX, s = 0.0;
    for (uint k = gl_LocalInvocationID.x; k < n; k += gl_WorkGroupSize.x) softmax_add(m, s, p.scale * x[xr + k]);
    float row_max, inv_sum;
    softmax_row(m, s, row_max, inv_sum);
    for (uint k = gl_LocalInvocationID.x; k < p.ne0; k += gl_WorkGroupSize.x)
        y[yr + k] = k < n ? exp(p.scale * x[xr + k] - row_max) * inv_sum : 0.0;
}
