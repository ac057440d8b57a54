// y = W x for a few tokens (ops/matmul.hpp), W of the weight type included
// before this skeleton: memory bound, so each workgroup streams ROWS rows of
// W once and applies each value to COLS tokens.
//
// A row is cut into chunks, the threads stride over them, and each thread
// sums its chunks of all ROWS rows: each piece of x it loads serves every
// row. Each sum is reduced within subgroups (subgroupAdd), then across them
// in shared memory.
//
// A weight type may define a wide chunk for this skeleton:
//
//   MV_QK, MV_CHUNKS, MV_PIECES
//                   every MV_QK values of a row (a multiple of its QK; a
//                   row's values past its last whole MV_QK go through
//                   dequant4) are MV_CHUNKS chunks of MV_PIECES pieces of 4
//                   values: MV_QK = 4 * MV_CHUNKS * MV_PIECES
//   struct MvChunk  a chunk's quants and scales, in registers
//   MvChunk mv_load(uint row, uint blk, uint c)
//                   chunk c of values blk * MV_QK.. of the row whose first
//                   block is weights[row], in as few wide loads as the
//                   block's alignment allows
//   float mv_dot(MvChunk ch, uint j, vec4 x)
//                   piece j's values (as dequant4 gives them, up to
//                   rounding) dotted with x: scales can apply to the sum
//   uint mv_pos(uint c, uint j)
//                   where piece j of chunk c starts among the MV_QK values:
//                   pieces of neighbouring chunks should be neighbours, so
//                   that neighbouring threads load x together
//
// Without it a chunk is one dequant4 (rows are a multiple of 4 values:
// graph/vulkan/kernels/matmul.cpp).
//
// With a wide chunk, a type may also define, in an `#ifdef MV_IDOT`
// section (codegen/shaders.cmake then builds matvec_idot_<type>):
//
//   float mv_qdot(MvChunk ch, uint xq[MV_PIECES], int xsum[MV_PIECES])
//                   the chunk's values dotted with x's, given as signed
//                   bytes (xq[j]: piece j, 4 bytes; xsum[j]: their sum), in
//                   units of x's scale: packed integer dot products
//                   (int_dot.glsl) instead of a float multiply-add per value
//
// The idot variant rounds each thread's chunk of x to bytes (scale: the
// chunk's largest magnitude / 127) after any prologue: 8-bit activations
// (ActivationPrecision::Q8), chosen only for matmuls that ask for them.
//
// A type may also define, in an `#ifdef MV_STAGED` section, the whole-block
// units of shaders/matvec_staged.glsl, which then replaces this file's
// main() in matvec_staged_idot_<type> and matvec_staged_<type>.
//
// Fused (graph/vulkan/kernels/matvec_fusion.hpp): x may be computed from
// the loads themselves (PROLOGUE: x's RMS norm, the sum of squares reduced
// with the dot products and applied to them; or silu(x) * x2; or
// gelu_tanh(x) * x2), and the rows may be rotated (ROPE: a pair of rows is in one workgroup; with
// per-pair frequency divisors under ROPE_FACTORS) and stored into rows of a
// cache chosen by ids (SCATTER, F32 or F16). Work that needs rows of
// several workgroups may follow in the last workgroup to finish them
// (EPILOGUE: shaders/matvec_last_group.glsl; a MoE block's in
// matvec_moe.glsl, k's head norm, rope and cache store in
// matvec_head_norm.glsl).
#include "common.glsl"
#include "matmul_args.glsl"
#include "rope.glsl"
#include "tanh.glsl"

layout(constant_id = 1) const uint ROWS = 2;  // rows of W per workgroup (even with ROPE)
layout(constant_id = 2) const uint COLS = 1;  // tokens per workgroup
layout(constant_id = 3) const bool ADDEND = false;  // y = W x + a
const uint PLAIN = 0, NORM = 1, NORM_GAIN = 2, SWIGLU = 3, GEGLU = 4;
layout(constant_id = 4) const uint PROLOGUE = PLAIN;
const uint NO_ROPE = 0, ROPE_PLAIN = 1, ROPE_WITH_FACTORS = 2;
layout(constant_id = 5) const uint ROPE_KIND = NO_ROPE;
const bool ROPE = ROPE_KIND != NO_ROPE, ROPE_FACTORS = ROPE_KIND == ROPE_WITH_FACTORS;
layout(constant_id = 6) const bool SCATTER = false;
layout(constant_id = 7) const bool Y_F16 = false;  // SCATTER (or HEAD_NORM_ROPE) into an F16 cache
// matmul_id: each batch is one slot (token, chosen expert), whose expert id
// is ids[ids_first + batch] (dst_ne1 experts; not with SCATTER).
layout(constant_id = 10) const bool EXPERTS = false;

layout(binding = 1, scalar) readonly buffer X { float x[]; };
layout(binding = 1, scalar) readonly buffer X4 { vec4 x4[]; };  // X again: 16-byte loads when aligned
layout(binding = 2, scalar) readonly buffer A { float a[]; };  // x again without ADDEND
layout(binding = 3, scalar) readonly buffer X2 { float x2[]; };  // the gain or swiglu's (geglu's) up; else x again
layout(binding = 3, scalar) readonly buffer X24 { vec4 x24[]; };
layout(binding = 4, scalar) readonly buffer Pos { int positions[]; };  // ROPE; else x again
layout(binding = 5, scalar) readonly buffer Ids { int ids[]; };        // SCATTER or EXPERTS; else x again
layout(binding = 6, scalar) readonly buffer Factors { float factors[]; };  // ROPE_FACTORS; else x again
layout(binding = 7, scalar) writeonly buffer Y { float y[]; };
layout(binding = 7, scalar) writeonly buffer Y16 { float16_t y16[]; };
// Bindings 8 to 10, and what bindings 2, 4 and 6 hold, with an epilogue.
#include "matvec_last_group.glsl"
#include "matvec_moe.glsl"
#include "matvec_head_norm.glsl"

const bool NORMED = PROLOGUE == NORM || PROLOGUE == NORM_GAIN;
// EXPERTS with swiglu: up is laid out as its gate (x) and read at x's
// offset from x_first (the slot's row); a gain is one row for all slots.
const bool X2_AT_X = EXPERTS && !NORMED;

uint xcol[COLS];
uint x2row[COLS];  // not X2_AT_X: where token c's row of x2 starts past x2_first
bool x_aligned, x2_aligned;

vec4 load_x4(uint c, uint i) {  // x[i..i+3] of token c
    const uint at = xcol[c] + i;
    return x_aligned ? x4[at / 4] : vec4(x[at], x[at + 1], x[at + 2], x[at + 3]);
}

// x2[i..i+3] of token c (the gain: of every token).
vec4 load_x24(uint c, uint i) {
    const uint at = (X2_AT_X ? p.x2_first + (xcol[c] - p.x_first) : p.x2_first + x2row[c]) + i;
    return x2_aligned ? x24[at / 4] : vec4(x2[at], x2[at + 1], x2[at + 2], x2[at + 3]);
}

// Where tokens col0.. start in x (past the last token, the last one).
void locate_x(uint col0) {
    x_aligned = true;
    for (uint c = 0; c < COLS; ++c) {
        xcol[c] = x_col(min(col0 + c, p.m - 1));
        x2row[c] = min(col0 + c, p.m - 1) * p.x2_nb1;
        x_aligned = x_aligned && xcol[c] % 4 == 0;
    }
    x2_aligned = p.x2_first % 4 == 0 && (X2_AT_X ? (xcol[0] - p.x_first) % 4 == 0 : p.x2_nb1 % 4 == 0);
}

float squares[COLS];  // NORMED: each token's sum of squares of x so far

// x[i..i+3] of token t as the matvec multiplies it: with the prologue applied.
vec4 x_piece(uint t, uint i) {
    vec4 v = load_x4(t, i);
    if (NORMED) squares[t] += dot(v, v);
    if (PROLOGUE == NORM_GAIN) v *= load_x24(0, i);
    if (PROLOGUE == SWIGLU) v = v / (1.0 + exp(-v)) * load_x24(t, i);
    if (PROLOGUE == GEGLU) {
        const vec4 up = load_x24(t, i);
        for (uint c = 0; c < 4; ++c) v[c] = gelu_tanh(v[c]) * up[c];
    }
    return v;
}

// Row `row` of token c's result.
void store(uint row, uint c, float v) {
    if (SCATTER) {
        const uint dst = uint(ids[p.ids_first + c]), hd = p.rot >> 16;
        if (dst >= p.dst_ne1) return;  // as set_rows: ids outside the cache write nothing
        const uint at = p.y_first + dst * p.y_nb1 + row / hd * p.y_nb_head + row % hd;
        if (Y_F16) y16[at] = float16_t(v);
        else y[at] = v;
    } else if (EPILOGUE != NO_EPILOGUE) {
        stored[y_col(c) + row] = v;
    } else {
        y[y_col(c) + row] = v;
    }
}

// Row `row` of token `col`, y = sum: plus the addend, and rotated with its
// pair's `pair` under ROPE.
void finish(uint row, uint col, float sum, float pair) {
    if (ADDEND) sum += a[a_col(col) + row];
    const uint d = ROPE ? row % (p.rot >> 16) : 0;  // the row's dim in its head
    if (ROPE && d < (p.rot & 0xFFFFu)) {  // dims 2k and 2k + 1 are a pair
        const bool first = d % 2 == 0;
        const uint k = d / 2;
        const int pos = positions[(p.rope_firsts & 0xFFFFu) + col];
        const float divisor = ROPE_FACTORS ? factors[(p.rope_firsts >> 16) + k] : 1.0;
        const vec2 turned = rope_pair(first ? sum : pair, first ? pair : sum, pos, k, p.freq_scale, p.log2_rate,
                                      divisor);
        sum = first ? turned.x : turned.y;
    }
    store(row, col, sum);
}

// EXPERTS: the batch's expert, read here on the GPU, so that a recorded
// command buffer serves whatever experts the router picks. An id outside
// the experts reads the last one rather than past the weight.
void choose_expert() {
    if (EXPERTS) w_expert = min(uint(ids[p.ids_first + batch_index()]), p.dst_ne1 - 1);
}

#ifdef MV_STAGED
#include "matvec_staged.glsl"
#else
#ifndef MV_QK
#define MV_QK 4
#define MV_CHUNKS 1
#define MV_PIECES 1
struct MvChunk {
    vec4 v;
};
MvChunk mv_load(uint row, uint blk, uint c) { return MvChunk(dequant4(row, 4 * blk)); }
float mv_dot(MvChunk ch, uint j, vec4 x) { return dot(ch.v, x); }
uint mv_pos(uint c, uint j) { return 0; }
#endif

// One slot per subgroup for each sum (and each token's sum of squares when
// NORMED): sized for the worst case, subgroups of one.
shared float partial[(ROWS + 1) * COLS * gl_WorkGroupSize.x];
shared float totals[ROWS * COLS];  // ROPE: each row's result, for its pair

void main() {
    const uint row0 = flat_group() * ROWS, col0 = col_group() * COLS;
    if (row0 >= p.n) return;  // a split grid's spare groups
    choose_expert();
    // Past the last row or token, compute on the last one and do not store it.
    uint wrow[ROWS];
    for (uint r = 0; r < ROWS; ++r) wrow[r] = w_row(min(row0 + r, p.n - 1));
    locate_x(col0);

    float acc[ROWS][COLS];
    for (uint c = 0; c < COLS; ++c) {
        squares[c] = 0.0;
        for (uint r = 0; r < ROWS; ++r) acc[r][c] = 0.0;
    }
    const uint threads = gl_WorkGroupSize.x, chunks = p.k / MV_QK * MV_CHUNKS;
    for (uint u = gl_LocalInvocationID.x; u < chunks; u += threads) {
        const uint blk = u / MV_CHUNKS, c = u % MV_CHUNKS;
        MvChunk ch[ROWS];  // every row's loads first
        for (uint r = 0; r < ROWS; ++r) ch[r] = mv_load(wrow[r], blk, c);
#ifdef MV_IDOT
        // x's pieces as signed bytes, scaled by the largest magnitude among
        // them: integer dot products with every row's chunk.
        for (uint t = 0; t < COLS; ++t) {
            vec4 xv[MV_PIECES];
            float top = 0.0;
            for (uint j = 0; j < MV_PIECES; ++j) {
                xv[j] = x_piece(t, blk * MV_QK + mv_pos(c, j));
                const vec4 m = abs(xv[j]);
                top = max(top, max(max(m.x, m.y), max(m.z, m.w)));
            }
            const float to_bytes = top > 0.0 ? 127.0 / top : 0.0;
            uint xq[MV_PIECES];
            int xsum[MV_PIECES];
            for (uint j = 0; j < MV_PIECES; ++j) {
                xq[j] = round_bytes(xv[j] * to_bytes);
                xsum[j] = sdot4(xq[j], 0x01010101u);
            }
            const float dx = top / 127.0;
            for (uint r = 0; r < ROWS; ++r) acc[r][t] += dx * mv_qdot(ch[r], xq, xsum);
        }
#else
        for (uint j = 0; j < MV_PIECES; ++j) {
            vec4 xv[COLS];
            const uint i = blk * MV_QK + mv_pos(c, j);
            for (uint t = 0; t < COLS; ++t) xv[t] = x_piece(t, i);
            for (uint r = 0; r < ROWS; ++r)
                for (uint t = 0; t < COLS; ++t) acc[r][t] += mv_dot(ch[r], j, xv[t]);
        }
#endif
    }
#if MV_QK > QK
    // Values past the last whole MV_QK (a wide chunk longer than the type's
    // block): 4 at a time through dequant4.
    for (uint i = p.k / MV_QK * MV_QK + 4 * gl_LocalInvocationID.x; i < p.k; i += 4 * threads) {
        vec4 xv[COLS];
        for (uint t = 0; t < COLS; ++t) xv[t] = x_piece(t, i);
        for (uint r = 0; r < ROWS; ++r) {
            const vec4 w = dequant4(wrow[r], i);
            for (uint t = 0; t < COLS; ++t) acc[r][t] += dot(w, xv[t]);
        }
    }
#endif

    for (uint r = 0; r < ROWS; ++r)
        for (uint c = 0; c < COLS; ++c) {
            const float s = subgroupAdd(acc[r][c]);
            if (subgroupElect()) partial[(r * COLS + c) * gl_NumSubgroups + gl_SubgroupID] = s;
        }
    if (NORMED)
        for (uint c = 0; c < COLS; ++c) {
            const float s = subgroupAdd(squares[c]);
            if (subgroupElect()) partial[(ROWS * COLS + c) * gl_NumSubgroups + gl_SubgroupID] = s;
        }
    barrier();
    const uint t = gl_LocalInvocationID.x, r = t / COLS, c = t % COLS;
    float sum = 0.0;
    if (t < ROWS * COLS) {
        for (uint s = 0; s < gl_NumSubgroups; ++s) sum += partial[t * gl_NumSubgroups + s];
        if (NORMED) {
            float ss = 0.0;
            for (uint s = 0; s < gl_NumSubgroups; ++s) ss += partial[(ROWS * COLS + c) * gl_NumSubgroups + s];
            sum *= inversesqrt(ss / float(p.k) + p.eps);
        }
    }
    if (ROPE) {
        if (t < ROWS * COLS) totals[t] = sum;
        barrier();
    }
    if (t < ROWS * COLS && row0 + r < p.n && col0 + c < p.m)
        finish(row0 + r, col0 + c, sum, ROPE ? totals[(r ^ 1) * COLS + c] : 0.0);
    moe_epilogue(row0, ROWS, col0);
    head_norm_epilogue(row0, ROWS, col0);
}
#endif
