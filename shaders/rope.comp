// Rotary position embedding of F32 x [head_dim, n_head, n_tokens]
// (ops/rope.hpp). One invocation per pair of dims of a head: pair k < n_rot/2
// rotates (2k, 2k+1) (NEOX: (k, k + n_rot/2)) by pos * freq_scale *
// freq_base^(-2k/n_rot), divided by factors[k] with FACTORS, and scales the
// pair by attn_factor (cos and sin times it); the others copy the dims past
// n_rot, two each, unscaled.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "rope.glsl"

layout(constant_id = 1) const bool NEOX = false;
layout(constant_id = 2) const bool FACTORS = false;  // per-pair frequency divisors (rope_freqs)

layout(binding = 0, scalar) readonly buffer X { float x[]; };
layout(binding = 1, scalar) readonly buffer Pos { int positions[]; };
layout(binding = 2, scalar) readonly buffer Factors { float factors[]; };  // FACTORS; else x again
layout(binding = 3, scalar) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Push {
    uint head_dim, n_head, n_rot, pairs;  // pairs = (head_dim + 1) / 2 per head
    uint total;                           // pairs of all heads of all tokens
    uint x_first, x_nb1, x_nb2;
    uint y_first, y_nb1, y_nb2;
    uint pos_first, factors_first;
    float freq_scale;
    float log2_rate;  // -2 log2(freq_base) / n_rot: pair k turns at freq_base^(-2k/n_rot) = exp2(k * log2_rate)
    float attn_factor;
} p;

void main() {
    const uint id = flat_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (id >= p.total) return;
    const uint k = id % p.pairs, head = (id / p.pairs) % p.n_head, token = id / (p.pairs * p.n_head);
    const uint xr = p.x_first + head * p.x_nb1 + token * p.x_nb2;
    const uint yr = p.y_first + head * p.y_nb1 + token * p.y_nb2;
    const uint half_rot = p.n_rot / 2;
    if (k < half_rot) {
        const uint a = NEOX ? k : 2 * k, b = NEOX ? k + half_rot : 2 * k + 1;
        const float divisor = FACTORS ? factors[p.factors_first + k] : 1.0;
        const vec2 r = rope_pair(x[xr + a], x[xr + b], positions[p.pos_first + token], k, p.freq_scale, p.log2_rate,
                                 divisor);
        y[yr + a] = p.attn_factor * r.x;
        y[yr + b] = p.attn_factor * r.y;
    } else {
        const uint d = p.n_rot + 2 * (k - half_rot);
        y[yr + d] = x[xr + d];
        if (d + 1 < p.head_dim) y[yr + d + 1] = x[xr + d + 1];
    }
}
