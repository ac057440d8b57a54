// y = rope(rms_norm(x) * w) of F32 x [head_dim, n_head, n_tokens] (ops/rms_norm.hpp
// over each head, then ops/rope.hpp: Qwen3's q and k norms), the rope node's
// rows or, with STORE, the rows set_rows puts into rows ids[token] of an F32
// or F16 cache (graph/vulkan/kernels/head_norm_rope.hpp). One workgroup per
// head of a token: the head's sum of squares, then each invocation normalizes
// and rotates pairs of dims as rope.comp does, past n_rot copies them.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "reduce.glsl"
#include "rope.glsl"

layout(constant_id = 1) const bool NEOX = false;
layout(constant_id = 2) const bool FACTORS = false;   // per-pair frequency divisors (rope_freqs)
layout(constant_id = 3) const bool WEIGHTED = false;  // the norm's weight row
layout(constant_id = 4) const bool STORE = false;
layout(constant_id = 5) const bool Y_F16 = false;     // STORE into an F16 cache

layout(binding = 0, scalar) readonly buffer X { float x[]; };
layout(binding = 1, scalar) readonly buffer W { float w[]; };              // WEIGHTED; else x again
layout(binding = 2, scalar) readonly buffer Pos { int positions[]; };
layout(binding = 3, scalar) readonly buffer Factors { float factors[]; };  // FACTORS; else x again
layout(binding = 4, scalar) readonly buffer Ids { int ids[]; };            // STORE; else x again
layout(binding = 5, scalar) writeonly buffer Y { float y[]; };
layout(binding = 5, scalar) writeonly buffer Y16 { float16_t y16[]; };

layout(push_constant) uniform Push {
    uint head_dim, n_head, n_rot, rows;  // rows = n_head * n_tokens
    uint x_first, x_nb1, x_nb2;
    // Where row r (the token, or with STORE ids[token]) of head h starts:
    // y_first + h * y_nb_head + r * y_nb_row; with STORE at most dst_rows rows.
    uint y_first, y_nb_head, y_nb_row, dst_rows;
    uint w_first, pos_first, factors_first, ids_first;
    float eps, freq_scale;
    float log2_rate;  // rope.glsl's
    float attn_factor;
} p;

uint xr;  // the head's first value in x
float inv_rms;

float normed(uint d) { return WEIGHTED ? inv_rms * x[xr + d] * w[p.w_first + d] : inv_rms * x[xr + d]; }

void put(uint at, float v) {
    if (Y_F16) y16[at] = float16_t(v);
    else y[at] = v;
}

void main() {
    const uint r = flat_group();
    if (r >= p.rows) return;
    const uint head = r % p.n_head, token = r / p.n_head;
    xr = p.x_first + head * p.x_nb1 + token * p.x_nb2;
    float sum = 0.0;
    for (uint d = gl_LocalInvocationID.x; d < p.head_dim; d += gl_WorkGroupSize.x) sum += x[xr + d] * x[xr + d];
    inv_rms = inversesqrt(group_sum(sum) / float(p.head_dim) + p.eps);
    const uint row = STORE ? uint(ids[p.ids_first + token]) : token;
    if (STORE && row >= p.dst_rows) return;  // as set_rows: a negative id wraps to a huge one
    const uint yr = p.y_first + head * p.y_nb_head + row * p.y_nb_row;
    const uint pairs = (p.head_dim + 1) / 2;
    for (uint k = gl_LocalInvocationID.x; k < pairs; k += gl_WorkGroupSize.x) {
        const uvec2 d = rope_pair_dims(k, p.n_rot, NEOX);
        if (k < p.n_rot / 2) {
            const float divisor = FACTORS ? factors[p.factors_first + k] : 1.0;
            const vec2 turned = rope_pair(normed(d.x), normed(d.y), positions[p.pos_first + token], k, p.freq_scale,
                                          p.log2_rate, divisor);
            put(yr + d.x, p.attn_factor * turned.x);
            put(yr + d.y, p.attn_factor * turned.y);
        } else {
            put(yr + d.x, normed(d.x));
            if (d.y < p.head_dim) put(yr + d.y, normed(d.y));
        }
    }
}
