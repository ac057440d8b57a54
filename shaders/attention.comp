// Fused causal attention with grouped-query heads (ops/attention.hpp),
// flash-attention style: no score matrix in memory, an online softmax over
// tiles of TILE keys.
//
// The query rows (token i, head h) of one kv head g are numbered
// row = i * group + (h - g * group); a workgroup takes ROWS consecutive
// rows, so the group's heads (and, for a prompt, neighbouring tokens)
// share each K/V tile it loads. Per tile:
//   1. the tile's keys -> shared memory (F16 or F32 in, F32 in shared)
//   2. scores of every (row, key) pair, one pair per invocation
//   3. per row (a subgroup each): new running max, rescale factor,
//      probabilities; meanwhile the tile's values -> the same shared memory
//   4. each invocation updates its outputs (row, dim): acc = acc * rescale + P V
// A row's keys past its position take no part.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 1) const uint HEAD_DIM = 128;
layout(constant_id = 2) const uint ROWS = 8;  // query rows per workgroup
layout(constant_id = 3) const uint TILE = 32;  // keys per tile
layout(constant_id = 4) const bool KV_F16 = false;

layout(binding = 0, scalar) readonly buffer Q { float q[]; };
layout(binding = 1, scalar) readonly buffer K32 { float k32[]; };
layout(binding = 1, scalar) readonly buffer K16 { float16_t k16[]; };
layout(binding = 2, scalar) readonly buffer V32 { float v32[]; };
layout(binding = 2, scalar) readonly buffer V16 { float16_t v16[]; };
layout(binding = 3, scalar) readonly buffer Pos { int positions[]; };
layout(binding = 4, scalar) writeonly buffer O { float o[]; };

layout(push_constant) uniform Push {
    uint n_q, n_head, n_head_kv, n_kv;
    uint q_first, q_nb1, q_nb2;  // strides: per head, per token
    uint k_first, k_nb1, k_nb2;  // per position, per kv head
    uint v_first, v_nb1, v_nb2;
    uint o_first, o_nb1, o_nb2;
    uint pos_first;
    float scale;
} p;

// Rows of kv in shared memory are padded by one float: the invocations
// reading different keys in step 2 then hit different banks.
const uint STRIDE = HEAD_DIM + 1;
const uint OUTS = (ROWS * HEAD_DIM + gl_WorkGroupSize.x - 1) / gl_WorkGroupSize.x;  // outputs per invocation
const float NO_MAX = -1.0e30;  // below any score; finite, so NO_MAX - NO_MAX is 0

shared float qs[ROWS * HEAD_DIM];  // the rows' queries, times scale
shared float kv[TILE * STRIDE];    // the tile's keys, then its values
shared float ps[ROWS * TILE];      // scores, then probabilities
shared float row_max[ROWS], row_sum[ROWS], row_rescale[ROWS];
shared uint row_keys[ROWS];  // keys the row sees: 0 for rows past the last
shared uint row_seen[ROWS];  // of them, in the current tile

// Keys from n_keys on may be unwritten cache entries: they load as 0.
void load_tile(uint first_key, uint n_keys, uint kv_head, bool values) {
    for (uint e = gl_LocalInvocationID.x; e < TILE * HEAD_DIM; e += gl_WorkGroupSize.x) {
        const uint t = e / HEAD_DIM, d = e % HEAD_DIM, j = first_key + t;
        float x = 0.0;
        if (j < n_keys) {
            if (values) {
                const uint i = p.v_first + j * p.v_nb1 + kv_head * p.v_nb2 + d;
                x = KV_F16 ? float(v16[i]) : v32[i];
            } else {
                const uint i = p.k_first + j * p.k_nb1 + kv_head * p.k_nb2 + d;
                x = KV_F16 ? float(k16[i]) : k32[i];
            }
        }
        kv[t * STRIDE + d] = x;
    }
}

void main() {
    const uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    const uint group = p.n_head / p.n_head_kv, n_rows = group * p.n_q;
    const uint blocks = (n_rows + ROWS - 1) / ROWS;  // workgroups per kv head
    const uint kv_head = flat_group() / blocks, row0 = (flat_group() % blocks) * ROWS;
    if (kv_head >= p.n_head_kv) return;

    for (uint e = tid; e < ROWS * HEAD_DIM; e += nt) {
        const uint row = row0 + e / HEAD_DIM, head = kv_head * group + row % group;
        qs[e] = row < n_rows ? p.scale * q[p.q_first + head * p.q_nb1 + (row / group) * p.q_nb2 + e % HEAD_DIM] : 0.0;
    }
    if (tid < ROWS) {
        const uint row = row0 + tid;
        row_keys[tid] = row < n_rows ? uint(clamp(positions[p.pos_first + row / group] + 1, 0, int(p.n_kv))) : 0;
        row_max[tid] = NO_MAX;
        row_sum[tid] = 0.0;
    }
    barrier();
    uint n_keys = 0;
    for (uint r = 0; r < ROWS; ++r) n_keys = max(n_keys, row_keys[r]);

    float acc[OUTS];
    for (uint k = 0; k < OUTS; ++k) acc[k] = 0.0;
    for (uint j0 = 0; j0 < n_keys; j0 += TILE) {
        load_tile(j0, n_keys, kv_head, false);
        barrier();
        for (uint e = tid; e < ROWS * TILE; e += nt) {
            const uint r = e / TILE, t = e % TILE;
            float s = 0.0;
            if (j0 + t < row_keys[r])
                for (uint d = 0; d < HEAD_DIM; ++d) s += qs[r * HEAD_DIM + d] * kv[t * STRIDE + d];
            ps[e] = s;
        }
        barrier();
        // One subgroup per row, its invocations striding over the row's keys.
        for (uint r = gl_SubgroupID; r < ROWS; r += gl_NumSubgroups) {
            const uint seen = row_keys[r] > j0 ? min(row_keys[r] - j0, TILE) : 0;  // keys of the tile this row sees
            float m = row_max[r];
            for (uint t = gl_SubgroupInvocationID; t < seen; t += gl_SubgroupSize) m = max(m, ps[r * TILE + t]);
            m = subgroupMax(m);
            float sum = 0.0;
            for (uint t = gl_SubgroupInvocationID; t < seen; t += gl_SubgroupSize) {
                const float pr = exp(ps[r * TILE + t] - m);
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
        load_tile(j0, n_keys, kv_head, true);
        barrier();
        for (uint k = 0; k < OUTS; ++k) {
            const uint e = tid + k * nt, r = e / HEAD_DIM, d = e % HEAD_DIM;
            if (e >= ROWS * HEAD_DIM) break;
            float a = acc[k] * row_rescale[r];
            for (uint t = 0; t < row_seen[r]; ++t) a += ps[r * TILE + t] * kv[t * STRIDE + d];
            acc[k] = a;
        }
        barrier();
    }

    for (uint k = 0; k < OUTS; ++k) {
        const uint e = tid + k * nt, r = e / HEAD_DIM, row = row0 + r;
        if (e >= ROWS * HEAD_DIM || row >= n_rows) break;
        const uint head = kv_head * group + row % group;
        o[p.o_first + head * p.o_nb1 + (row / group) * p.o_nb2 + e % HEAD_DIM] =
            row_sum[r] > 0.0 ? acc[k] / row_sum[r] : 0.0;
    }
}
