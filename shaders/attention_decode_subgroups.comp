// Causal attention for a few query tokens (token generation), the same op
// as attention.comp (ops/attention.hpp) cut for the shortest chain: one
// query row (token i, head h) has a workgroup, or with SPLIT_KEYS one per
// split of its keys, and only the final join waits on a barrier.
//
// KEY_LANES invocations share a key, each with a 16-byte piece of its row
// and of its value row, so that a subgroup's loads read whole rows. The
// workgroup's key slots (gl_WorkGroupSize.x / KEY_LANES) walk the keys in
// batches of UNROLL keys whose key and value loads are all issued before
// any is used: values do not wait for the scores. Each slot keeps its own
// online softmax (running max, sum and P V of its value piece); the slots
// of a subgroup meet through shuffles, the subgroups through shared memory.
//
// graph/vulkan/kernels/attention.cpp picks this shader for a few tokens on
// a device with subgroup shuffles, where K's and V's rows start 16-byte
// aligned and KEY_LANES divides the subgroup size; attention_decode.comp
// otherwise.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "common.glsl"

layout(constant_id = 1) const uint HEAD_DIM = 128;
layout(constant_id = 2) const bool KV_F16 = false;
// Invocations per key: HEAD_DIM over the values of 16 bytes, a power of 2
// up to the subgroup size.
layout(constant_id = 3) const uint KEY_LANES = 8;
// Keys per workgroup, or 0: all of a row's keys. With SPLIT_KEYS, a row's
// keys are split over gl_NumWorkGroups.z workgroups, and each stores its
// max, sum and P V as partials for attention_decode_join.comp
// (flash-decoding: long contexts take more than a workgroup per row).
layout(constant_id = 4) const uint SPLIT_KEYS = 0;

layout(binding = 0, scalar) readonly buffer Q { float q[]; };
layout(binding = 1, scalar) readonly buffer K32 { vec4 k32[]; };
layout(binding = 1, scalar) readonly buffer K16x8 { uvec4 k16x8[]; };
layout(binding = 2, scalar) readonly buffer V32 { vec4 v32[]; };
layout(binding = 2, scalar) readonly buffer V16x8 { uvec4 v16x8[]; };
layout(binding = 3, scalar) readonly buffer Pos { int positions[]; };
layout(binding = 4, scalar) writeonly buffer O { vec4 o[]; };
layout(binding = 4, scalar) writeonly buffer Partials { float partials[]; };  // with SPLIT_KEYS

#include "attention_decode_rows.glsl"

const uint PIECES = KV_F16 ? 2 : 1;  // 4-value pieces per 16 bytes
const uint SLOTS = gl_WorkGroupSize.x / KEY_LANES, UNROLL = 4;

// Each subgroup's first slot's max, sum and P V, for the join.
shared float slot_max[gl_WorkGroupSize.x], slot_sum[gl_WorkGroupSize.x];
shared vec4 slot_acc[gl_WorkGroupSize.x][2];

// The 16-byte piece j of the row starting at 4-value piece row_at.
vec4[2] piece(bool key, uint row_at, uint j) {
    if (!KV_F16) return vec4[2](key ? k32[row_at + j] : v32[row_at + j], vec4(0.0));
    const uvec4 u = key ? k16x8[row_at / 2 + j] : v16x8[row_at / 2 + j];
    return vec4[2](vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)), vec4(unpackHalf2x16(u.z), unpackHalf2x16(u.w)));
}

// An online softmax state: running max, sum of probabilities, and P V.
struct State {
    float m, l;
    vec4 acc[2];
};

// Two states over disjoint keys as one.
State joined(State a, State b) {
    const float m = max(a.m, b.m), wa = exp(a.m - m), wb = exp(b.m - m);
    return State(m, a.l * wa + b.l * wb, vec4[2](a.acc[0] * wa + b.acc[0] * wb, a.acc[1] * wa + b.acc[1] * wb));
}

State shuffled(State s, uint mask) {
    return State(subgroupShuffleXor(s.m, mask), subgroupShuffleXor(s.l, mask),
                 vec4[2](subgroupShuffleXor(s.acc[0], mask), subgroupShuffleXor(s.acc[1], mask)));
}

void main() {
    const uint tid = gl_LocalInvocationID.x, row = flat_group();
    if (row >= decode_rows()) return;
    const DecodeRow query = decode_row(row);
    const uint token = query.token, head = query.head, kv_head = query.kv_head;
    const uint n_keys = uint(clamp(positions[p.pos_first + token] + 1, 0, int(p.n_kv)));
    const uint key_begin = SPLIT_KEYS == 0 ? 0 : min(gl_WorkGroupID.z * SPLIT_KEYS, n_keys);
    const uint key_end = SPLIT_KEYS == 0 ? n_keys : min(key_begin + SPLIT_KEYS, n_keys);

    // This invocation's piece j of every key and value row, and its slot.
    const uint j = tid % KEY_LANES, slot = tid / KEY_LANES;
    const uint q0 = p.q_first + head * p.q_nb1 + token * p.q_nb2 + 4 * PIECES * j;
    vec4 qj[2];
    for (uint h = 0; h < 2; ++h)
        qj[h] = h < PIECES ? p.scale * vec4(q[q0 + 4 * h], q[q0 + 4 * h + 1], q[q0 + 4 * h + 2], q[q0 + 4 * h + 3])
                           : vec4(0.0);

    const uint k0 = p.k_first + kv_head * p.k_nb2, v0 = p.v_first + kv_head * p.v_nb2;
    State s = State(NO_MAX, 0.0, vec4[2](vec4(0.0), vec4(0.0)));
    for (uint base = key_begin + slot; base < key_end; base += UNROLL * SLOTS) {
        vec4 k[UNROLL][2], v[UNROLL][2];
        for (uint i = 0; i < UNROLL; ++i) {  // keys past the end repeat the last (not used)
            const uint t = min(base + i * SLOTS, key_end - 1);
            k[i] = piece(true, k0 + t * p.k_nb1, j);
            v[i] = piece(false, v0 + t * p.v_nb1, j);
        }
        float score[UNROLL];
        float m = s.m;
        for (uint i = 0; i < UNROLL; ++i) {
            float d = dot(qj[0], k[i][0]) + dot(qj[1], k[i][1]);
            for (uint lanes = KEY_LANES / 2; lanes > 0; lanes /= 2) d += subgroupShuffleXor(d, lanes);
            score[i] = base + i * SLOTS < key_end ? d : NO_MAX;
            m = max(m, score[i]);
        }
        const float rescale = exp(s.m - m);
        s.m = m;
        s.l *= rescale;
        s.acc[0] *= rescale;
        s.acc[1] *= rescale;
        for (uint i = 0; i < UNROLL; ++i) {
            const float pr = base + i * SLOTS < key_end ? exp(score[i] - m) : 0.0;
            s.l += pr;
            s.acc[0] += pr * v[i][0];
            s.acc[1] += pr * v[i][1];
        }
    }

    // The slots of a subgroup, then the subgroups' first slots.
    for (uint mask = KEY_LANES; mask < gl_SubgroupSize; mask *= 2) s = joined(s, shuffled(s, mask));
    const uint at = gl_SubgroupID * KEY_LANES + j;
    if (gl_SubgroupInvocationID < KEY_LANES) {
        slot_max[at] = s.m;
        slot_sum[at] = s.l;
        slot_acc[at] = s.acc;
    }
    barrier();
    if (tid >= KEY_LANES) return;
    for (uint g = 1; g < gl_NumSubgroups; ++g) {
        const uint other = g * KEY_LANES + j;
        s = joined(s, State(slot_max[other], slot_sum[other], slot_acc[other]));
    }
    if (SPLIT_KEYS == 0) {
        const uint out_at = p.o_first + head * p.o_nb1 + token * p.o_nb2 + PIECES * j;
        for (uint h = 0; h < PIECES; ++h) o[out_at + h] = s.l > 0.0 ? s.acc[h] / s.l : vec4(0.0);
    } else {
        const uint first = partial_first(row, gl_WorkGroupID.z, gl_NumWorkGroups.z, HEAD_DIM);
        if (j == 0) {
            partials[first] = s.m;
            partials[first + 1] = s.l;
        }
        for (uint h = 0; h < PIECES; ++h)
            for (uint i = 0; i < 4; ++i) partials[first + 2 + 4 * (PIECES * j + h) + i] = s.acc[h][i];
    }
}
