// Fused causal attention with grouped-query heads (ops/attention.hpp),
// flash-attention style: no score matrix in memory, an online softmax over
// tiles of TILE keys.
//
// The query rows (token i, head h) of one kv head g of one sequence are
// numbered row = i * group + (h - g * group); a workgroup takes ROWS
// consecutive rows, so the group's heads (and, for a prompt, neighbouring tokens)
// share each K/V tile it loads. Per tile:
//   1. the tile's keys -> shared memory (F16 or F32 in, F32 in shared)
//   2. scores: each invocation a block of 4 rows by 2 keys
//   3. per row (a subgroup each): new running max, rescale factor,
//      probabilities; meanwhile the tile's values -> the same shared memory
//   4. each invocation updates its outputs, OUT_ROWS rows by 4 dims at a
//      time: acc = acc * rescale + P V
// The tiles walk the positions the workgroup's rows see together (the union
// of their spans: a window and a few tokens for a sliding-window layer),
// reading position j from cache row j mod n_kv; a row's scores outside its
// own span take no part. Scores are soft-capped before the softmax where
// softcap > 0 (attention_span.glsl). Queries, keys and values sit
// in shared memory as vec4s of dims, rows padded with zeros to whole vec4s:
// the blocks of steps 2 and 4 read one vec4 per 4 to 8 multiply-adds where
// two floats per multiply-add were read before, which with 32 rows per
// workgroup instead of 8 made prompts' attention faster
// (docs/measured-choices.md#prompt-attention).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "attention_span.glsl"
#include "attention_push.glsl"

layout(constant_id = 1) const uint HEAD_DIM = 128;
layout(constant_id = 2) const uint ROWS = 8;      // query rows per workgroup, a multiple of 4
layout(constant_id = 3) const uint TILE = 32;     // keys per tile, even
layout(constant_id = 4) const bool KV_F16 = false;
layout(constant_id = 5) const uint OUT_ROWS = 4;  // rows per output block, 4 or 8 dividing ROWS
layout(constant_id = 6) const bool HALF_COPY = false;  // O in fp16 too, dense (O is contiguous)

layout(binding = 0, scalar) readonly buffer Q { float q[]; };
layout(binding = 1, scalar) readonly buffer K32 { float k32[]; };
layout(binding = 1, scalar) readonly buffer K16 { float16_t k16[]; };
layout(binding = 2, scalar) readonly buffer V32 { float v32[]; };
layout(binding = 2, scalar) readonly buffer V16 { float16_t v16[]; };
layout(binding = 3, scalar) readonly buffer Pos { int positions[]; };
layout(binding = 4, scalar) writeonly buffer O { float o[]; };
layout(binding = 5, scalar) writeonly buffer O16 { float16_t o16[]; };  // O again when not HALF_COPY


const uint NT = gl_WorkGroupSize.x;
const uint D4 = (HEAD_DIM + 3) / 4;  // vec4s per row
// Rows of kv are padded by one vec4, so that the keys one subgroup reads in
// step 2 start in different banks.
const uint KV_STRIDE = D4 + 1;
const uint SCORE_BLOCKS = (ROWS / 4) * (TILE / 2);
const uint OUT_BLOCKS = (ROWS / OUT_ROWS) * D4;
const uint OUTS = (OUT_BLOCKS + NT - 1) / NT;  // output blocks per invocation
const float NO_MAX = -1.0e30;  // below any score; finite, so NO_MAX - NO_MAX is 0

shared vec4 qs[ROWS * D4];       // the rows' queries, times scale
shared vec4 kv[TILE * KV_STRIDE];  // the tile's keys, then its values
shared float ps[ROWS * TILE];    // scores, then probabilities
shared float row_max[ROWS], row_sum[ROWS], row_rescale[ROWS];
shared uint row_begin[ROWS], row_end[ROWS];  // the positions the row sees: none for rows past the last
shared uint row_seen[ROWS];  // the end of its keys in the current tile (those before its begin have P 0)
SeqFirsts at;  // where this workgroup's sequence starts in each tensor (set first thing in main)

float kv_value(bool values, uint i) {
    if (values) return KV_F16 ? float(v16[i]) : v32[i];
    return KV_F16 ? float(k16[i]) : k32[i];
}

// Positions from `end` on may be unwritten cache entries: they load as 0 (a
// probability of 0 times a NaN would not be 0).
void load_tile(uint first_key, uint end, uint kv_head, bool values) {
    for (uint e = gl_LocalInvocationID.x; e < TILE * D4; e += NT) {
        const uint t = e / D4, d = e % D4 * 4, j = first_key + t;
        vec4 x = vec4(0.0);
        if (j < end) {
            const uint row = j % p.n_kv;
            const uint from = values ? at.v + row * p.v_nb1 + kv_head * p.v_nb2 + d
                                     : at.k + row * p.k_nb1 + kv_head * p.k_nb2 + d;
            for (uint c = 0; c < 4; ++c)
                if (d + c < HEAD_DIM) x[c] = kv_value(values, from + c);
        }
        kv[t * KV_STRIDE + e % D4] = x;
    }
}

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint group = p.n_head / p.n_head_kv, n_rows = group * p.n_q;
    const uint blocks = (n_rows + ROWS - 1) / ROWS;  // workgroups per kv head
    // Workgroups of one sequence together: blocks of each kv head in turn.
    const uint seq = flat_group() / (p.n_head_kv * blocks), in_seq = flat_group() % (p.n_head_kv * blocks);
    const uint kv_head = in_seq / blocks, row0 = (in_seq % blocks) * ROWS;
    if (seq >= p.n_seq) return;
    at = seq_firsts(seq);

    for (uint e = tid; e < ROWS * D4; e += NT) {
        const uint r = e / D4, row = row0 + r, d = e % D4 * 4, head = kv_head * group + row % group;
        vec4 x = vec4(0.0);
        if (row < n_rows) {
            const uint from = at.q + head * p.q_nb1 + (row / group) * p.q_nb2 + d;
            for (uint c = 0; c < 4; ++c)
                if (d + c < HEAD_DIM) x[c] = p.scale * q[from + c];
        }
        qs[e] = x;
    }
    if (tid < ROWS) {
        const uint row = row0 + tid;
        const uvec2 span = row < n_rows ? attention_span(positions[at.pos + row / group], p.n_kv, p.window) : uvec2(0);
        row_begin[tid] = span.x;
        row_end[tid] = span.y;
        row_max[tid] = NO_MAX;
        row_sum[tid] = 0.0;
    }
    barrier();
    uint first = 0xFFFFFFFFu, end = 0;  // the positions some row sees
    for (uint r = 0; r < ROWS; ++r)
        if (row_begin[r] < row_end[r]) {
            first = min(first, row_begin[r]);
            end = max(end, row_end[r]);
        }

    vec4 acc[OUTS * OUT_ROWS];
    [[unroll]] for (uint k = 0; k < OUTS * OUT_ROWS; ++k) acc[k] = vec4(0.0);
    for (uint j0 = first; j0 < end; j0 += TILE) {
        load_tile(j0, end, kv_head, false);
        barrier();
        for (uint b = tid; b < SCORE_BLOCKS; b += NT) {
            const uint r0 = b / (TILE / 2) * 4, t0 = b % (TILE / 2) * 2;
            vec4 s0 = vec4(0.0), s1 = vec4(0.0);  // rows r0..r0+3 with keys t0 and t0 + 1
            for (uint d = 0; d < D4; ++d) {
                const vec4 k0 = kv[t0 * KV_STRIDE + d], k1 = kv[(t0 + 1) * KV_STRIDE + d];
                [[unroll]] for (uint i = 0; i < 4; ++i) {
                    const vec4 qv = qs[(r0 + i) * D4 + d];
                    s0[i] += dot(qv, k0);
                    s1[i] += dot(qv, k1);
                }
            }
            [[unroll]] for (uint i = 0; i < 4; ++i) {
                const uint begin = row_begin[r0 + i], row_stop = row_end[r0 + i], j = j0 + t0;
                ps[(r0 + i) * TILE + t0] = j >= begin && j < row_stop ? capped_score(s0[i], p.softcap) : 0.0;
                ps[(r0 + i) * TILE + t0 + 1] = j + 1 >= begin && j + 1 < row_stop ? capped_score(s1[i], p.softcap) : 0.0;
            }
        }
        barrier();
        // One subgroup per row, its invocations striding over the row's keys.
        for (uint r = gl_SubgroupID; r < ROWS; r += gl_NumSubgroups) {
            // Keys from..seen - 1 of the tile are this row's.
            const uint seen = row_end[r] > j0 ? min(row_end[r] - j0, TILE) : 0;
            const uint from = min(row_begin[r] > j0 ? row_begin[r] - j0 : 0, seen);
            float m = row_max[r];
            for (uint t = from + gl_SubgroupInvocationID; t < seen; t += gl_SubgroupSize) m = max(m, ps[r * TILE + t]);
            m = subgroupMax(m);
            float sum = 0.0;
            for (uint t = gl_SubgroupInvocationID; t < TILE; t += gl_SubgroupSize) {
                const float pr = t >= from && t < seen ? exp(ps[r * TILE + t] - m) : 0.0;  // 0: no part in step 4
                ps[r * TILE + t] = pr;
                sum += pr;
            }
            sum = subgroupAdd(sum);
            if (subgroupElect()) {
                const float rescale = exp(row_max[r] - m);
                row_max[r] = m;
                row_sum[r] = row_sum[r] * rescale + sum;
                row_rescale[r] = rescale;
                row_seen[r] = seen;
            }
        }
        load_tile(j0, end, kv_head, true);
        barrier();
        // acc is indexed by constants only once these loops are unrolled:
        // registers, not local memory.
        [[unroll]] for (uint k = 0; k < OUTS; ++k) {
            const uint b = tid + k * NT, r0 = b / D4 * OUT_ROWS, d = b % D4;
            if (b < OUT_BLOCKS) {
                uint seen = 0;
                [[unroll]] for (uint i = 0; i < OUT_ROWS; ++i) {
                    acc[k * OUT_ROWS + i] *= row_rescale[r0 + i];
                    seen = max(seen, row_seen[r0 + i]);
                }
                for (uint t = 0; t < seen; ++t) {
                    const vec4 v = kv[t * KV_STRIDE + d];
                    [[unroll]] for (uint i = 0; i < OUT_ROWS; ++i) acc[k * OUT_ROWS + i] += ps[(r0 + i) * TILE + t] * v;
                }
            }
        }
        barrier();
    }

    [[unroll]] for (uint k = 0; k < OUTS; ++k) {
        const uint b = tid + k * NT, r0 = b / D4 * OUT_ROWS, d = b % D4 * 4;
        [[unroll]] for (uint i = 0; i < OUT_ROWS; ++i) {
            const uint r = r0 + i, row = row0 + r;
            if (b < OUT_BLOCKS && row < n_rows) {
                const uint head = kv_head * group + row % group;
                const uint to = at.o + head * p.o_nb1 + (row / group) * p.o_nb2 + d;
                const vec4 out_v = row_sum[r] > 0.0 ? acc[k * OUT_ROWS + i] / row_sum[r] : vec4(0.0);
                [[unroll]] for (uint c = 0; c < 4; ++c)
                    if (d + c < HEAD_DIM) {
                        o[to + c] = out_v[c];
                        if (HALF_COPY) o16[to + c - p.o_first] = float16_t(out_v[c]);
                    }
            }
        }
    }
}
