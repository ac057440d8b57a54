// y = a (op) b for F32 rows, b's rows repeated over a's: the body of
// add.comp, mul.comp, swiglu.comp (silu(a) * b) and geglu.comp
// (gelu_tanh(a) * b), which define OP (0 add, 1 mul, 2 swiglu, 3 geglu)
// first; an fp16 copy of y too when HALF_COPY
// (graph/vulkan/kernels/half_copy.hpp). Each row of y split over
// gl_NumWorkGroups.z workgroups.
#include "common.glsl"
#include "tanh.glsl"

layout(constant_id = 1) const bool HALF_COPY = false;  // y in fp16 too, dense (y is contiguous)

layout(binding = 0, scalar) readonly buffer A { float a[]; };
layout(binding = 1, scalar) readonly buffer B { float b[]; };
layout(binding = 2, scalar) writeonly buffer Y { float y[]; };
layout(binding = 3, scalar) writeonly buffer Y16 { float16_t y16[]; };  // y again when not HALF_COPY

layout(push_constant) uniform Push {
    uint ne0, ne1, ne2, nrows;  // of y (and a)
    uint a_first, a_nb1, a_nb2, a_nb3;
    uint b_first, b_nb1, b_nb2, b_nb3, b_ne1, b_ne2, b_ne3;
    uint y_first, y_nb1, y_nb2, y_nb3;
} p;

void main() {
    const uint r = flat_group();
    if (r >= p.nrows) return;
    const uvec3 i = row_index(r, p.ne1, p.ne2);
    const uint ar = p.a_first + i.x * p.a_nb1 + i.y * p.a_nb2 + i.z * p.a_nb3;
    const uint br = p.b_first + (i.x % p.b_ne1) * p.b_nb1 + (i.y % p.b_ne2) * p.b_nb2 + (i.z % p.b_ne3) * p.b_nb3;
    const uint yr = p.y_first + i.x * p.y_nb1 + i.y * p.y_nb2 + i.z * p.y_nb3;
    for (uint k = row_part_first(); k < p.ne0; k += row_part_step()) {
        const float x = a[ar + k], w = b[br + k];
        float v;
        if (OP == 0) v = x + w;
        else if (OP == 1) v = x * w;
        else if (OP == 2) v = x / (1.0 + exp(-x)) * w;
        else v = gelu_tanh(x) * w;
        y[yr + k] = v;
        if (HALF_COPY) y16[yr + k - p.y_first] = float16_t(v);
    }
}
