// Causal attention for a few query tokens (token generation), the same op
// as attention.comp (ops/attention.hpp) cut for a short critical path: one
// query row (sequence b, token i, head h) has a whole workgroup, or with
// SPLIT_KEYS one per split of its keys, and within a chunk of CHUNK keys no
// invocation waits on another's loads.
//
// Per chunk:
//   1. scores: KEY_LANES invocations share a key, each with a 16-byte piece
//      of its row, so that a subgroup's loads read whole rows
//      (attention_decode_lanes.comp); or each invocation takes whole keys in
//      4-value loads (attention_decode.comp, for devices without subgroup
//      shuffles). The row's keys are the positions of its span, key t at
//      cache row (begin + t) mod n_kv (attention_span.glsl), their scores
//      soft-capped where softcap > 0.
//   2. the chunk's max and the probabilities, and the running max and sum
//      rescaled (online softmax over the chunks)
//   3. P V: the invocations are HEAD_DIM / (4 V_PIECES) pieces of a value
//      row (one load each) times SLICES slices of the keys; each accumulates
//      its piece over its slice's keys
// The slices' sums meet in shared memory at the end.
//
// With Q_NORM_ROPE, q holds the query's rows as its matvec left them, before
// a per-head rms_norm and the rope (Qwen3's and Gemma 3's q norm), which the
// workgroup applies to its row while staging it, as head_norm_rope.comp
// does (graph/vulkan/kernels/head_norm_rope.hpp): the head norm takes no
// level of its own.
//
// graph/vulkan/kernels/attention.cpp picks this shader for a few tokens and
// a head_dim that is a multiple of 4 and at most 4 per invocation.
#include "common.glsl"
#include "reduce.glsl"
#include "attention_span.glsl"
#include "rope.glsl"

layout(constant_id = 1) const uint HEAD_DIM = 128;
layout(constant_id = 2) const uint CHUNK = 256;  // keys per chunk
layout(constant_id = 3) const bool KV_F16 = false;
// Keys per workgroup, or 0: all of a row's keys. With SPLIT_KEYS, a row's
// keys are split over gl_NumWorkGroups.z workgroups, and each stores its
// max, sum and P V as partials for attention_decode_join.comp
// (flash-decoding: long contexts take more than a workgroup per row).
layout(constant_id = 5) const uint SPLIT_KEYS = 0;
// 4-value pieces of V per load in step 3: 2 (16 bytes) for an F16 V whose
// rows start 16-byte aligned, else 1.
layout(constant_id = 6) const uint V_PIECES = 1;
#ifdef KEY_LANES_BY_SHUFFLE
// Invocations per key in step 1: HEAD_DIM over the values of 16 bytes, a
// power of 2 up to the subgroup size (graph/vulkan/kernels/attention.cpp).
layout(constant_id = 4) const uint KEY_LANES = 8;
#endif
layout(constant_id = 7) const bool Q_NORM_ROPE = false;  // head_dim at most CHUNK then
layout(constant_id = 8) const bool Q_NEOX = false;       // else pairs of neighbouring dims
layout(constant_id = 9) const bool Q_FACTORS = false;    // per-pair frequency divisors (rope_freqs)
layout(constant_id = 10) const bool Q_GAIN = false;      // the norm's weight row

layout(binding = 0, scalar) readonly buffer Q { float q[]; };
layout(binding = 1, scalar) readonly buffer K32 { vec4 k32[]; };
layout(binding = 1, scalar) readonly buffer K16 { f16vec4 k16[]; };
layout(binding = 1, scalar) readonly buffer K16x8 { uvec4 k16x8[]; };  // 8 values; with KEY_LANES, rows start 16-byte aligned
layout(binding = 2, scalar) readonly buffer V32 { vec4 v32[]; };
layout(binding = 2, scalar) readonly buffer V16 { f16vec4 v16[]; };
layout(binding = 2, scalar) readonly buffer V16x8 { uvec4 v16x8[]; };  // with V_PIECES 2
layout(binding = 3, scalar) readonly buffer Pos { int positions[]; };
layout(binding = 4, scalar) readonly buffer QGain { float q_gain[]; };        // Q_GAIN; else q again
layout(binding = 5, scalar) readonly buffer QFactors { float q_factors[]; };  // Q_FACTORS; else q again
layout(binding = 6, scalar) writeonly buffer O { vec4 o[]; };
layout(binding = 6, scalar) writeonly buffer Partials { float partials[]; };  // with SPLIT_KEYS

#include "attention_decode_rows.glsl"

const uint D4 = HEAD_DIM / 4;                   // 4-value pieces of a row
const uint DV = D4 / V_PIECES;                  // loads of a value row in step 3
const uint SLICES = gl_WorkGroupSize.x / DV;    // key slices of step 3

shared vec4 qs[D4];          // the query, times scale
shared float ps[CHUNK];      // the chunk's scores, then probabilities
shared vec4 sums[gl_WorkGroupSize.x * V_PIECES];  // each invocation's P V at the end

vec4 key(uint at) { return KV_F16 ? vec4(k16[at]) : k32[at]; }
// The 8 fp16 values of one 16-byte load.
vec4[2] halves8(uvec4 u) {
    return vec4[2](vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)), vec4(unpackHalf2x16(u.z), unpackHalf2x16(u.w)));
}
// Load j of the value row starting at piece row_at: its V_PIECES pieces.
vec4[2] value_load(uint row_at, uint j) {
    if (V_PIECES == 1) return vec4[2](KV_F16 ? vec4(v16[row_at + j]) : v32[row_at + j], vec4(0.0));
    return halves8(v16x8[row_at / 2 + j]);
}

#ifdef KEY_LANES_BY_SHUFFLE
// Step 1 with KEY_LANES invocations per key: invocation j of a key's lanes
// takes values 4 PIECES j .. + 4 PIECES - 1; the lanes' sums meet through
// shuffles. UNROLL passes of the workgroup over keys load before any sums.
const uint PIECES = KV_F16 ? 2 : 1;  // 4-value pieces per 16 bytes
const uint KEYS_PER_PASS = gl_WorkGroupSize.x / KEY_LANES, UNROLL = 4;

vec4[2] key_piece(uint row_at, uint j) { return KV_F16 ? halves8(k16x8[row_at / 2 + j]) : vec4[2](k32[row_at + j], vec4(0.0)); }

// The chunk's scores into ps; returns this invocation's max of them.
// Key t of the span is at cache row ring_row(first_row, t).
float scores(uint c0, uint seen, uint k0, uint first_row) {
    const uint tid = gl_LocalInvocationID.x, j = tid % KEY_LANES, first = tid / KEY_LANES;
    const vec4 q_lo = qs[PIECES * j], q_hi = KV_F16 ? qs[PIECES * j + 1] : vec4(0.0);
    float m = NO_MAX;
    for (uint base = 0; base < seen; base += UNROLL * KEYS_PER_PASS) {
        vec4 k[UNROLL][2];
        for (uint i = 0; i < UNROLL; ++i) {
            const uint t = min(base + first + i * KEYS_PER_PASS, seen - 1);
            k[i] = key_piece(k0 + ring_row(first_row, c0 + t, p.n_kv) * p.k_nb1, j);
        }
        for (uint i = 0; i < UNROLL; ++i) {
            float s = dot(q_lo, k[i][0]) + dot(q_hi, k[i][1]);
            for (uint lanes = KEY_LANES / 2; lanes > 0; lanes /= 2) s += subgroupShuffleXor(s, lanes);
            s = capped_score(s, p.softcap);
            const uint t = base + first + i * KEYS_PER_PASS;
            if (j == 0 && t < seen) {
                ps[t] = s;
                m = max(m, s);
            }
        }
    }
    return m;
}
#endif

// Value d of the raw query row (staged in ps), normalized.
float q_normed(uint d, float inv_rms) {
    const float v = inv_rms * ps[d];
    return Q_GAIN ? v * q_gain[p.q_gain_first + d] : v;
}

// The query row at q0 into qs, times scale; with Q_NORM_ROPE normalized and
// rotated for position pos first (the raw row staged in ps, free until the
// first chunk's scores).
void stage_query(uint q0, int pos) {
    const uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    if (!Q_NORM_ROPE) {
        for (uint d = tid; d < D4; d += nt)
            qs[d] = p.scale * vec4(q[q0 + 4 * d], q[q0 + 4 * d + 1], q[q0 + 4 * d + 2], q[q0 + 4 * d + 3]);
        barrier();
        return;
    }
    float sum = 0.0;
    for (uint d = tid; d < HEAD_DIM; d += nt) {
        const float v = q[q0 + d];
        ps[d] = v;
        sum += v * v;
    }
    const float inv_rms = inversesqrt(group_sum(sum) / float(HEAD_DIM) + p.q_eps);  // its barriers publish ps
    for (uint k = tid; k < HEAD_DIM / 2; k += nt) {
        const uvec2 d = rope_pair_dims(k, p.q_rot, Q_NEOX);
        vec2 v = vec2(q_normed(d.x, inv_rms), q_normed(d.y, inv_rms));
        if (k < p.q_rot / 2) {
            const float divisor = Q_FACTORS ? q_factors[p.q_factors_first + k] : 1.0;
            v = rope_pair(v.x, v.y, pos, k, p.q_freq_scale, p.q_log2_rate, divisor);
        }
        qs[d.x / 4][d.x % 4] = p.scale * v.x;
        qs[d.y / 4][d.y % 4] = p.scale * v.y;
    }
    barrier();  // qs complete, ps free
}

void main() {
    const uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x, row = flat_group();
    if (row >= decode_rows()) return;
    const DecodeRow query = decode_row(row);
    const uint token = query.token, head = query.head, kv_head = query.kv_head;
    const SeqFirsts at = seq_firsts(query.seq);
    const uvec2 span = attention_span(positions[at.pos + token], p.n_kv, p.window);
    const uint n_keys = span.y - span.x, first_row = span.x % p.n_kv;
    const uint key_begin = SPLIT_KEYS == 0 ? 0 : min(gl_WorkGroupID.z * SPLIT_KEYS, n_keys);
    const uint key_end = SPLIT_KEYS == 0 ? n_keys : min(key_begin + SPLIT_KEYS, n_keys);

    stage_query(at.q + head * p.q_nb1 + token * p.q_nb2, positions[at.pos + token]);

    const uint k0 = at.k + kv_head * p.k_nb2, v0 = at.v + kv_head * p.v_nb2;
    const uint load = tid % DV, slice = tid / DV;  // step 3's load of a value row and slice of the keys
    float run_max = NO_MAX, run_sum = 0.0;
    vec4 acc[2] = vec4[2](vec4(0.0), vec4(0.0));
    for (uint c0 = key_begin; c0 < key_end; c0 += CHUNK) {
        const uint seen = min(CHUNK, key_end - c0);
#ifdef KEY_LANES_BY_SHUFFLE
        const float m = scores(c0, seen, k0, first_row);
#else
        float m = NO_MAX;
        for (uint t = tid; t < seen; t += nt) {
            const uint at = k0 + ring_row(first_row, c0 + t, p.n_kv) * p.k_nb1;
            float s = 0.0;
            for (uint d = 0; d < D4; ++d) s += dot(qs[d], key(at + d));
            s = capped_score(s, p.softcap);
            ps[t] = s;
            m = max(m, s);
        }
#endif
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
            for (uint h = 0; h < V_PIECES; ++h) acc[h] *= rescale;
            for (uint t = slice; t < seen; t += SLICES) {
                const vec4[2] v = value_load(v0 + ring_row(first_row, c0 + t, p.n_kv) * p.v_nb1, load);
                for (uint h = 0; h < V_PIECES; ++h) acc[h] += ps[t] * v[h];
            }
        }
        barrier();  // ps is read before the next chunk writes it
    }

    for (uint h = 0; h < V_PIECES; ++h) sums[V_PIECES * tid + h] = acc[h];  // piece slice * D4 + load * V_PIECES + h
    barrier();
    if (tid < D4) {
        vec4 total = vec4(0.0);
        for (uint s = 0; s < SLICES; ++s) total += sums[s * D4 + tid];
        if (SPLIT_KEYS == 0) {
            o[at.o + head * p.o_nb1 + token * p.o_nb2 + tid] = run_sum > 0.0 ? total / run_sum : vec4(0.0);
        } else {
            const uint first = partial_first(row, gl_WorkGroupID.z, gl_NumWorkGroups.z, HEAD_DIM);
            if (tid == 0) {
                partials[first] = run_max;
                partials[first + 1] = run_sum;
            }
            for (uint i = 0; i < 4; ++i) partials[first + 2 + 4 * tid + i] = total[i];
        }
    }
}
