// Causal attention for a few query tokens (token generation), the same op
// as attention.comp (ops/attention.hpp) cut for a short critical path: one
// query row (token i, head h) has a whole workgroup, and within a chunk of
// CHUNK keys no invocation waits on another's loads.
//
// Per chunk:
//   1. scores: each invocation takes whole keys, reading each key row with
//      4-value loads (keys past the row's position take no part)
//   2. the chunk's max and the probabilities, and the running max and sum
//      rescaled (online softmax over the chunks)
//   3. P V: the invocations are HEAD_DIM / 4 dims of 4 times SLICES slices
//      of the keys; each accumulates its dims over its slice's keys
// The slices' sums meet in shared memory at the end.
//
// graph/vulkan/kernels/attention.cpp picks this shader for a few tokens and
// a head_dim that is a multiple of 4 and at most 4 per invocation.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "reduce.glsl"

layout(constant_id = 1) const uint HEAD_DIM = 128;
layout(constant_id = 2) const uint CHUNK = 256;  // keys per chunk
layout(constant_id = 3) const bool KV_F16 = false;

layout(binding = 0, scalar) readonly buffer Q { float q[]; };
layout(binding = 1, scalar) readonly buffer K32 { vec4 k32[]; };
layout(binding = 1, scalar) readonly buffer K16 { f16vec4 k16[]; };
layout(binding = 2, scalar) readonly buffer V32 { vec4 v32[]; };
layout(binding = 2, scalar) readonly buffer V16 { f16vec4 v16[]; };
layout(binding = 3, scalar) readonly buffer Pos { int positions[]; };
layout(binding = 4, scalar) writeonly buffer O { vec4 o[]; };

// As attention.comp's; here K, V and O are counted in 4-value pieces
// (graph/vulkan/kernels/attention.cpp divides their offsets and strides).
layout(push_constant) uniform Push {
    uint n_q, n_head, n_head_kv, n_kv;
    uint q_first, q_nb1, q_nb2;
    uint k_first, k_nb1, k_nb2;
    uint v_first, v_nb1, v_nb2;
    uint o_first, o_nb1, o_nb2;
    uint pos_first;
    float scale;
} p;

const uint D4 = HEAD_DIM / 4;                   // 4-value pieces of a row
const uint SLICES = gl_WorkGroupSize.x / D4;    // key slices of step 3
const float NO_MAX = -1.0e30;  // below any score; finite, so NO_MAX - NO_MAX is 0

shared vec4 qs[D4];          // the query, times scale
shared float ps[CHUNK];      // the chunk's scores, then probabilities
shared vec4 sums[gl_WorkGroupSize.x];  // each invocation's P V at the end

vec4 key(uint at) { return KV_F16 ? vec4(k16[at]) : k32[at]; }
vec4 value(uint at) { return KV_F16 ? vec4(v16[at]) : v32[at]; }

void main() {
    const uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    const uint group = p.n_head / p.n_head_kv, row = flat_group();
    if (row >= group * p.n_q * p.n_head_kv) return;
    // Rows numbered as in attention.comp with one row per workgroup.
    const uint per_kv_head = group * p.n_q, kv_head = row / per_kv_head, r = row % per_kv_head;
    const uint token = r / group, head = kv_head * group + r % group;
    const uint n_keys = uint(clamp(positions[p.pos_first + token] + 1, 0, int(p.n_kv)));

    const uint q0 = p.q_first + head * p.q_nb1 + token * p.q_nb2;
    for (uint d = tid; d < D4; d += nt)
        qs[d] = p.scale * vec4(q[q0 + 4 * d], q[q0 + 4 * d + 1], q[q0 + 4 * d + 2], q[q0 + 4 * d + 3]);
    barrier();

    const uint k0 = p.k_first + kv_head * p.k_nb2, v0 = p.v_first + kv_head * p.v_nb2;
    const uint dim = tid % D4, slice = tid / D4;  // step 3's piece of the output and slice of the keys
    float run_max = NO_MAX, run_sum = 0.0;
    vec4 acc = vec4(0.0);
    for (uint c0 = 0; c0 < n_keys; c0 += CHUNK) {
        const uint seen = min(CHUNK, n_keys - c0);
        float m = NO_MAX;
        for (uint t = tid; t < seen; t += nt) {
            const uint at = k0 + (c0 + t) * p.k_nb1;
            float s = 0.0;
            for (uint d = 0; d < D4; ++d) s += dot(qs[d], key(at + d));
            ps[t] = s;
            m = max(m, s);
        }
        const float new_max = max(run_max, group_max(m));  // its barriers publish ps
        float sum = 0.0;
        for (uint t = tid; t < seen; t += nt) {
            const float pr = exp(ps[t] - new_max);
            ps[t] = pr;
            sum += pr;
        }
        const float rescale = exp(run_max - new_max);
        run_sum = run_sum * rescale + group_sum(sum);
        run_max = new_max;
        if (slice < SLICES) {
            acc *= rescale;
            for (uint t = slice; t < seen; t += SLICES) acc += ps[t] * value(v0 + (c0 + t) * p.v_nb1 + dim);
        }
        barrier();  // ps is read before the next chunk writes it
    }

    sums[tid] = acc;
    barrier();
    if (tid < D4) {
        vec4 total = vec4(0.0);
        for (uint s = 0; s < SLICES; ++s) total += sums[s * D4 + tid];
        o[p.o_first + head * p.o_nb1 + token * p.o_nb2 + tid] = run_sum > 0.0 ? total / run_sum : vec4(0.0);
    }
}
