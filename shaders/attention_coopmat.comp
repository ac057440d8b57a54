// Causal attention of a prompt over an F16 cache on the tensor cores
// (GL_NV_cooperative_matrix; built only where glslang compiles it, run only
// on a device with 16 x 16 x 16 fp16 matrices and subgroups of 32 with
// shuffles: graph/vulkan/kernels/attention.cpp).
// The same rows and online softmax as attention.comp, with the two products
// of each tile of keys as cooperative matrices:
//
// A workgroup takes 16 query rows per subgroup (rows numbered as in
// attention.comp: token * group + head within the kv head's group). Its
// queries are rounded to fp16 once and stay in each subgroup's registers as
// HEAD_DIM / 16 matrices. Per tile of TILE keys:
//   1. the tile's keys and values, loaded into registers while the tile
//      before was computed -> shared memory as fp16 (a workgroup barrier
//      before, for the last tile's readers, and one after); then the next
//      tile's loads are issued
//   2. each subgroup: S = Q K^T (fp32) -> its part of shared memory
//   3. the two invocations of each row: its visible scores (scaled, and
//      soft-capped where softcap > 0) into registers, their max, P =
//      exp(S - m) rounded to fp16 -> shared memory, the row's sum of P; in
//      log2 units (exp2 of the scores times log2 e)
//   4. each subgroup: O += P V, O its HEAD_DIM / 16 fp32 accumulators
// Steps 2-4 touch only the subgroup's own rows: subgroup barriers. As in
// attention.comp, the tiles walk the positions some row of the workgroup
// sees, position j at cache row j mod n_kv, and each row sees its own span
// of them (attention_span.glsl).
//
// m, the reference each row's P is taken against, moves only when a tile's
// max exceeds it by more than kSlack: P stays below exp(kSlack), well within
// fp16, and O's rows (opaque inside the accumulators) are rescaled through
// shared memory only on such a tile, which after the first few is rare.
//
// K and V come as fp16; Q and P are rounded to fp16 (products and sums in
// fp32), as llama.cpp's CPU attention over an F16 cache rounds them too:
// further from the exact result than attention.comp, which the op tests
// state (tests/unit/op_cases.cpp). An F32 cache keeps attention.comp.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "common.glsl"
#include "attention_span.glsl"
#include "attention_push.glsl"

layout(constant_id = 1) const uint HEAD_DIM = 128;  // a multiple of 16, at most 128
layout(constant_id = 2) const uint TILE = 32;       // keys per tile: a multiple of 16, at most 64, >= 8 * subgroups
// K and V in 4-value pieces (8-byte aligned): their firsts and strides
// count pieces, and each piece is one load.
layout(constant_id = 3) const bool KV_PIECES = false;
layout(constant_id = 4) const bool HALF_COPY = false;  // O in fp16 too, dense (O is contiguous)

layout(binding = 0, scalar) readonly buffer Q { float q[]; };
layout(binding = 1, scalar) readonly buffer K16 { float16_t k16[]; };
layout(binding = 1, scalar) readonly buffer K16x4 { uvec2 k16x4[]; };
layout(binding = 2, scalar) readonly buffer V16 { float16_t v16[]; };
layout(binding = 2, scalar) readonly buffer V16x4 { uvec2 v16x4[]; };
layout(binding = 3, scalar) readonly buffer Pos { int positions[]; };
layout(binding = 4, scalar) writeonly buffer O { float o[]; };
layout(binding = 5, scalar) writeonly buffer O16 { float16_t o16[]; };  // O again when not HALF_COPY


const uint NT = gl_WorkGroupSize.x;
const uint SUBGROUPS = NT / 32, ROWS = 16 * SUBGROUPS;
const uint D4 = HEAD_DIM / 4, D16 = HEAD_DIM / 16, T16 = TILE / 16;
const float NO_MAX = -1.0e30;  // below any score; also marks the keys a row does not see
const float LOG2E = 1.4426950408889634;
const float kSlack = 8.0 * LOG2E;  // e^8 in log2 units
const uint PER = (TILE * D4 + NT - 1) / NT;  // 4-value pieces of K (and of V) per invocation per tile

// fp16 rows of 4-value pieces (uvec2), padded by 8 values: 16-byte aligned,
// and successive rows start in different banks. The keys' tile, then the
// values'; before the first tile, the workgroup's queries.
const uint STRIDE = (HEAD_DIM + 8) / 4;
shared uvec2 kv[2 * TILE * STRIDE];
// Per subgroup: its 16 rows of scores (fp32, rows of TILE + 4), which also
// stage its accumulators (16 x 16) when they are rescaled or stored; and its
// 16 rows of P (fp16, rows of TILE + 8). Rows are 16-byte aligned, as the
// matrix loads and stores want.
const uint S_STRIDE = TILE + 4, P_STRIDE = TILE + 8;
shared float scores[SUBGROUPS * 16 * S_STRIDE];
shared float16_t probs[SUBGROUPS * 16 * P_STRIDE];
shared uint row_begin[ROWS], row_end[ROWS];  // the positions the row sees: none for rows past the last
shared float row_alpha[ROWS], row_sum[ROWS];
SeqFirsts at;  // where this workgroup's sequence starts in each tensor (set first thing in main)

#define HALF16 fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

uvec2 pack4(vec4 v) { return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw)); }

// Piece d4 (values 4 d4 ..) of key (or value) j of a kv head.
uvec2 kv_piece(bool values, uint j, uint kv_head, uint d4) {
    if (KV_PIECES) {
        const uint from = values ? at.v + j * p.v_nb1 + kv_head * p.v_nb2 + d4
                                 : at.k + j * p.k_nb1 + kv_head * p.k_nb2 + d4;
        return values ? v16x4[from] : k16x4[from];
    }
    const uint from = values ? at.v + j * p.v_nb1 + kv_head * p.v_nb2 + 4 * d4
                             : at.k + j * p.k_nb1 + kv_head * p.k_nb2 + 4 * d4;
    f16vec4 x;
    for (uint c = 0; c < 4; ++c) x[c] = values ? v16[from + c] : k16[from + c];
    return uvec2(packFloat2x16(x.xy), packFloat2x16(x.zw));
}

// This invocation's pieces of the tile of keys (and values) from
// `first_key`, loaded by fetch_tile and written to shared memory by
// store_tile. Positions from `end` on may be unwritten cache entries: they
// load as 0 (a probability of 0 times a NaN would not be 0).
uvec2 next_k[PER], next_v[PER];

void fetch_tile(uint first_key, uint end, uint kv_head) {
    for (uint i = 0; i < PER; ++i) {
        const uint e = gl_LocalInvocationID.x + i * NT;
        const uint t = e / D4, d4 = e % D4, j = first_key + t, row = j % p.n_kv;
        const bool seen = e < TILE * D4 && j < end;
        next_k[i] = seen ? kv_piece(false, row, kv_head, d4) : uvec2(0);
        next_v[i] = seen ? kv_piece(true, row, kv_head, d4) : uvec2(0);
    }
}

void store_tile() {
    for (uint i = 0; i < PER; ++i) {
        const uint e = gl_LocalInvocationID.x + i * NT;
        if (e < TILE * D4) {
            kv[e / D4 * STRIDE + e % D4] = next_k[i];
            kv[(TILE + e / D4) * STRIDE + e % D4] = next_v[i];
        }
    }
}

void subgroup_sync() {
    subgroupMemoryBarrierShared();
    subgroupBarrier();
}

// The matrices are spelled out as variables: in arrays, cooperative
// matrices made the tensor-core matmul twice as slow (docs/vulkan.md).
// EACH_D(X) expands X(d) for every 16 dims of a head, EACH_T(X) X(t) for
// every 16 keys of a tile; the guards fold away once specialized.
#define EACH_D(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define EACH_T(X) X(0) X(1) X(2) X(3)

void main() {
    const uint tid = gl_LocalInvocationID.x, lane = gl_SubgroupInvocationID, sub = gl_SubgroupID;
    const uint group = p.n_head / p.n_head_kv, n_rows = group * p.n_q;
    const uint blocks = (n_rows + ROWS - 1) / ROWS;  // workgroups per kv head
    // Workgroups of one sequence together: blocks of each kv head in turn.
    const uint seq = flat_group() / (p.n_head_kv * blocks), in_seq = flat_group() % (p.n_head_kv * blocks);
    const uint kv_head = in_seq / blocks, row0 = (in_seq % blocks) * ROWS;
    if (seq >= p.n_seq) return;
    at = seq_firsts(seq);

    // The queries as fp16 into kv, then into each subgroup's matrices.
    for (uint e = tid; e < ROWS * D4; e += NT) {
        const uint r = e / D4, row = row0 + r, d = e % D4 * 4, head = kv_head * group + row % group;
        vec4 x = vec4(0.0);
        if (row < n_rows) {
            const uint from = at.q + head * p.q_nb1 + (row / group) * p.q_nb2 + d;
            x = vec4(q[from], q[from + 1], q[from + 2], q[from + 3]);
        }
        kv[r * STRIDE + e % D4] = pack4(x);
    }
    if (tid < ROWS) {
        const uint row = row0 + tid;
        const uvec2 span = row < n_rows ? attention_span(positions[at.pos + row / group], p.n_kv, p.window) : uvec2(0);
        row_begin[tid] = span.x;
        row_end[tid] = span.y;
    }
    barrier();
#define DECLARE_Q(d) HALF16 q##d; ACC o##d = ACC(0.0); \
    if (d < D16) coopMatLoadNV(q##d, kv, 16 * sub * STRIDE + 4 * d, STRIDE, false);
    EACH_D(DECLARE_Q)
    uint first = 0xFFFFFFFFu, end = 0;  // the positions some row sees
    for (uint r = 0; r < ROWS; ++r)
        if (row_begin[r] < row_end[r]) {
            first = min(first, row_begin[r]);
            end = max(end, row_end[r]);
        }

    // In step 3 invocation `lane` takes the keys 2 i + half_ of row `r` (of
    // the subgroup's 16), i = 0 .. TILE / 2 - 1 in turn, rotated by one for
    // rows 8-15: so at each i the 32 invocations read scores from 32
    // different banks (rows are 4 banks apart) and the 16 rows write P's
    // halves to 16 different words.
    const uint r = lane / 2, half_ = lane % 2, rot = r / 8, my_begin = row_begin[16 * sub + r], my_end = row_end[16 * sub + r];
    const uint s_row = (16 * sub + r) * S_STRIDE, p_row = (16 * sub + r) * P_STRIDE;
    const uint s_sub = 16 * sub * S_STRIDE, p_sub = 16 * sub * P_STRIDE;
    float m = NO_MAX, l = 0.0;  // m in log2 units
    if (first < end) fetch_tile(first, end, kv_head);
    for (uint j0 = first; j0 < end; j0 += TILE) {
        barrier();  // the last tile's (or the queries') readers are done with kv
        store_tile();
        barrier();
        if (j0 + TILE < end) fetch_tile(j0 + TILE, end, kv_head);

        // 2. S = Q K^T: K's tile holds keys as rows, column-major for K^T.
#define Q_TIMES_K(d) if (d < D16) { HALF16 kt; \
        coopMatLoadNV(kt, kv, 16 * kb * STRIDE + 4 * d, STRIDE, true); s = coopMatMulAddNV(q##d, kt, s); }
#define SCORES(t) if (t < T16) { const uint kb = t; ACC s = ACC(0.0); EACH_D(Q_TIMES_K) \
        coopMatStoreNV(s, scores, s_sub + 16 * t, S_STRIDE, false); }
        EACH_T(SCORES)
        subgroup_sync();

        // 3. The row's visible scores of this tile, their max (shared by the row's two invocations), P.
        float score[TILE / 2];
        float top = NO_MAX;
        const bool all_seen = j0 >= my_begin && j0 + TILE <= my_end;
        for (uint i = 0; i < TILE / 2; ++i) {
            const uint kk = 2 * ((i + rot) % (TILE / 2)) + half_, j = j0 + kk;
            const bool seen = all_seen || (j >= my_begin && j < my_end);
            score[i] = seen ? capped_score(p.scale * scores[s_row + kk], p.softcap) * LOG2E : NO_MAX;
            top = max(top, score[i]);
        }
        top = max(top, subgroupShuffleXor(top, 1u));
        float alpha = 1.0;  // O and l are still 0 while m is NO_MAX
        if (top > m + kSlack) {
            if (m != NO_MAX) alpha = exp2(m - top);
            m = top;
        }
        float sum = 0.0;
        for (uint i = 0; i < TILE / 2; ++i) {
            const uint kk = 2 * ((i + rot) % (TILE / 2)) + half_;
            const float16_t pr = float16_t(score[i] > NO_MAX ? exp2(score[i] - m) : 0.0);
            probs[p_row + kk] = pr;
            sum += float(pr);  // of P as rounded
        }
        l = l * alpha + sum + subgroupShuffleXor(sum, 1u);
        if (half_ == 0) row_alpha[16 * sub + r] = alpha;
        subgroup_sync();  // P and the alphas are written

        // O's rows times their alpha where some row's m moved, through the
        // subgroup's scores (read by now).
        if (subgroupAny(alpha != 1.0)) {
#define RESCALE(d) if (d < D16) { coopMatStoreNV(o##d, scores, s_sub, 16, false); subgroup_sync(); \
            for (uint e = lane; e < 256; e += 32) scores[s_sub + e] *= row_alpha[16 * sub + e / 16]; \
            subgroup_sync(); coopMatLoadNV(o##d, scores, s_sub, 16, false); subgroup_sync(); }
            EACH_D(RESCALE)
        }

        // 4. O += P V: V's tile holds keys as rows, row-major as it stands.
#define P_TIMES_V(d) if (d < D16) { HALF16 vt; \
        coopMatLoadNV(vt, kv, (TILE + 16 * kb) * STRIDE + 4 * d, STRIDE, false); o##d = coopMatMulAddNV(pt, vt, o##d); }
#define ACCUMULATE(t) if (t < T16) { const uint kb = t; HALF16 pt; \
        coopMatLoadNV(pt, probs, p_sub + 16 * t, P_STRIDE, false); EACH_D(P_TIMES_V) }
        EACH_T(ACCUMULATE)
        subgroup_sync();  // P is read before the next tile's step 3 writes it
    }

    if (half_ == 0) row_sum[16 * sub + r] = l;
    subgroup_sync();
    // O / l, row by row of the subgroup's 16 (rows that see no key: 0).
#define STORE(d) if (d < D16) { coopMatStoreNV(o##d, scores, s_sub, 16, false); subgroup_sync(); \
    for (uint e = lane; e < 256; e += 32) { \
        const uint rr = e / 16, row = row0 + 16 * sub + rr, head = kv_head * group + row % group; \
        const float total = row_sum[16 * sub + rr]; \
        const uint to = at.o + head * p.o_nb1 + (row / group) * p.o_nb2 + 16 * d + e % 16; \
        const float v = total > 0.0 ? scores[s_sub + e] / total : 0.0; \
        if (row < n_rows) { o[to] = v; if (HALF_COPY) o16[to - p.o_first] = float16_t(v); } } \
    subgroup_sync(); }
    EACH_D(STORE)
}
