// The staged matvec's ATTENTION prologue (shaders/matvec_staged.glsl): x is
// one token's attention output over an F16 cache (ops/attention.hpp), which
// each workgroup computes into shared memory before staging it, so that the
// o projection needs no level of its own after attention's
// (graph/vulkan/kernels/matvec_fusion.hpp). Worth it only where a workgroup's
// share is small: few kv heads and a short context (the host checks).
//
// x (binding 1) is q [head_dim, heads], K (binding 3) and V (binding 5) the
// cache views [head_dim, n_kv, kv heads] as 8 fp16 values per load, the
// position at pos_first; x2_first / x2_nb1 are K's first value and row
// stride, ids_first V's first value, dst_ne1 n_kv (all in fp16 values).
// A subgroup takes one head at a time: its lanes score one key each, then
// the head's keys are split over slices of lanes, each lane holding 8 dims.

layout(constant_id = 10) const uint ATT_HEADS = 1;
layout(constant_id = 11) const uint ATT_KV_HEADS = 1;
layout(constant_id = 12) const uint ATT_HEAD_DIM = 8;  // a multiple of 8, at most 8 x the subgroup size
layout(constant_id = 13) const uint ATT_K_NB2 = 0;     // fp16 values between kv heads of K
layout(constant_id = 14) const uint ATT_V_NB1 = 0;     // between rows of V
layout(constant_id = 15) const uint ATT_V_NB2 = 0;     // between kv heads of V
layout(constant_id = 16) const float ATT_SCALE = 1.0;
layout(constant_id = 17) const uint ATT_MAX_KEYS = 1;  // n_kv at most
layout(constant_id = 18) const uint ATT_SUBGROUPS = 1;  // the workgroup's

layout(binding = 3, scalar) readonly buffer KCache { uvec4 k8[]; };
layout(binding = 5, scalar) readonly buffer VCache { uvec4 v8[]; };

const bool ATTENDS = PROLOGUE == ATTENTION;
// Each head's query (times scale), then its output; each subgroup's head's
// scores, then probabilities.
shared float att_x[ATTENDS ? ATT_HEADS * ATT_HEAD_DIM : 1];
shared float att_p[ATTENDS ? ATT_SUBGROUPS * ATT_MAX_KEYS : 1];

const float NO_MAX = -1.0e30;

vec4[2] halves8(uvec4 u) {
    return vec4[2](vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)), vec4(unpackHalf2x16(u.z), unpackHalf2x16(u.w)));
}

vec4 att_x4(uint at) { return vec4(att_x[at], att_x[at + 1], att_x[at + 2], att_x[at + 3]); }

void attend() {
    const uint sg = gl_SubgroupSize, lane = gl_SubgroupInvocationID, d8 = ATT_HEAD_DIM / 8;
    const uint n_keys = uint(clamp(positions[p.pos_first] + 1, 0, int(min(p.dst_ne1, ATT_MAX_KEYS))));
    const uint k_row = p.x2_nb1 / 8;
    for (uint h = gl_SubgroupID; h < ATT_HEADS; h += gl_NumSubgroups) {
        const uint kv = h / (ATT_HEADS / ATT_KV_HEADS), q0 = h * ATT_HEAD_DIM, s0 = gl_SubgroupID * ATT_MAX_KEYS;
        const uint kb = (p.x2_first + kv * ATT_K_NB2) / 8, vb = (p.ids_first + kv * ATT_V_NB2) / 8;
        for (uint d = lane; d < ATT_HEAD_DIM; d += sg) att_x[q0 + d] = ATT_SCALE * x[xcol[0] + q0 + d];
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        float m = NO_MAX;
        for (uint t = lane; t < n_keys; t += sg) {
            float s = 0.0;
            for (uint j = 0; j < d8; ++j) {
                const vec4[2] k = halves8(k8[kb + t * k_row + j]);
                s += dot(k[0], att_x4(q0 + 8 * j)) + dot(k[1], att_x4(q0 + 8 * j + 4));
            }
            att_p[s0 + t] = s;
            m = max(m, s);
        }
        m = subgroupMax(m);
        float sum = 0.0;
        for (uint t = lane; t < n_keys; t += sg) {
            const float e = exp(att_p[s0 + t] - m);
            att_p[s0 + t] = e;
            sum += e;
        }
        sum = subgroupAdd(sum);
        subgroupMemoryBarrierShared();
        subgroupBarrier();  // every lane's scores read, every probability written
        const uint piece = lane % d8, slice = lane / d8, slices = sg / d8;
        vec4 lo = vec4(0.0), hi = vec4(0.0);
        for (uint t = slice; t < n_keys; t += slices) {
            const vec4[2] v = halves8(v8[vb + t * (ATT_V_NB1 / 8) + piece]);
            const float pt = att_p[s0 + t];
            lo += pt * v[0];
            hi += pt * v[1];
        }
        for (uint d = d8; d < sg; d *= 2) {
            lo += subgroupShuffleXor(lo, d);
            hi += subgroupShuffleXor(hi, d);
        }
        if (slice == 0) {
            const float inv = sum > 0.0 ? 1.0 / sum : 0.0;
            for (uint i = 0; i < 4; ++i) {
                att_x[q0 + 8 * piece + i] = lo[i] * inv;
                att_x[q0 + 8 * piece + 4 + i] = hi[i] * inv;
            }
        }
    }
    barrier();
}
