// Joins the partial results of a row's splits of keys (attention_decode.glsl
// with SPLIT_KEYS: each split's max m, sum l and P V acc) into the row's
// output: sum(e^(m - M) acc) / sum(e^(m - M) l), M the largest m. A split
// that saw no keys has m = NO_MAX and l = 0, so it weighs nothing.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "attention_decode_rows.glsl"

layout(constant_id = 1) const uint HEAD_DIM = 128;
layout(constant_id = 2) const uint CHUNK = 256;  // keys per split (attention_decode.glsl's SPLIT_KEYS)

layout(binding = 0, scalar) readonly buffer Partials { float partials[]; };
layout(binding = 1, scalar) writeonly buffer O { vec4 o[]; };

void main() {
    const uint row = flat_group();
    if (row >= decode_rows()) return;
    const DecodeRow query = decode_row(row);
    // From the push constants rather than a specialization constant, so that
    // one pipeline joins every cache length (a new one per window would be
    // compiled in the middle of a generation).
    const uint splits = (p.n_kv + CHUNK - 1) / CHUNK;
    float m = NO_MAX;
    for (uint s = 0; s < splits; ++s) m = max(m, partials[partial_first(row, s, splits, HEAD_DIM)]);
    for (uint d = gl_LocalInvocationID.x; d < HEAD_DIM / 4; d += gl_WorkGroupSize.x) {
        float sum = 0.0;
        vec4 acc = vec4(0.0);
        for (uint s = 0; s < splits; ++s) {
            const uint first = partial_first(row, s, splits, HEAD_DIM), v = first + 2 + 4 * d;
            const float weight = exp(partials[first] - m);
            sum += weight * partials[first + 1];
            acc += weight * vec4(partials[v], partials[v + 1], partials[v + 2], partials[v + 3]);
        }
        o[seq_firsts(query.seq).o + query.head * p.o_nb1 + query.token * p.o_nb2 + d] = sum > 0.0 ? acc / sum : vec4(0.0);
    }
}
