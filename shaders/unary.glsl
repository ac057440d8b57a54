// y = f(x) for F32 rows: the body of scale.comp, silu.comp and softcap.comp,
// which define OP (0 scale, 1 silu, 2 softcap: s * tanh(x / s)) first. Each
// row split over gl_NumWorkGroups.z workgroups.
#include "common.glsl"
#include "tanh.glsl"

layout(binding = 0, scalar) readonly buffer X { float x[]; };
layout(binding = 1, scalar) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Push {
    uint ne0, ne1, ne2, nrows;
    uint x_first, x_nb1, x_nb2, x_nb3;
    uint y_first, y_nb1, y_nb2, y_nb3;
    float s;
} p;

void main() {
    const uint r = flat_group();
    if (r >= p.nrows) return;
    const uvec3 i = row_index(r, p.ne1, p.ne2);
    const uint xr = p.x_first + i.x * p.x_nb1 + i.y * p.x_nb2 + i.z * p.x_nb3;
    const uint yr = p.y_first + i.x * p.y_nb1 + i.y * p.y_nb2 + i.z * p.y_nb3;
    for (uint k = row_part_first(); k < p.ne0; k += row_part_step()) {
        const float v = x[xr + k];
        y[yr + k] = OP == 0 ? p.s * v : OP == 1 ? v / (1.0 + exp(-v)) : soft_cap(v, p.s);
    }
}
