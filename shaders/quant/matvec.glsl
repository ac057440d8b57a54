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
//                   every MV_QK values of a row (its QK: rows are whole
//                   blocks) are MV_CHUNKS chunks of MV_PIECES pieces of 4
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
#include "common.glsl"
#include "matmul_args.glsl"

layout(constant_id = 1) const uint ROWS = 2;  // rows of W per workgroup
layout(constant_id = 2) const uint COLS = 1;  // tokens per workgroup
layout(constant_id = 3) const bool ADDEND = false;  // y = W x + a

layout(binding = 1, scalar) readonly buffer X { float x[]; };
layout(binding = 1, scalar) readonly buffer X4 { vec4 x4[]; };  // X again: 16-byte loads when aligned
layout(binding = 2, scalar) readonly buffer A { float a[]; };  // x again without ADDEND
layout(binding = 3, scalar) writeonly buffer Y { float y[]; };

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

// One slot per subgroup for each sum: sized for the worst case, subgroups of one.
shared float partial[ROWS * COLS * gl_WorkGroupSize.x];

uint xcol[COLS];
bool x_aligned;

vec4 load_x4(uint c, uint i) {  // x[i..i+3] of token c
    const uint at = xcol[c] + i;
    return x_aligned ? x4[at / 4] : vec4(x[at], x[at + 1], x[at + 2], x[at + 3]);
}

void main() {
    const uint row0 = flat_group() * ROWS, col0 = col_group() * COLS;
    if (row0 >= p.n) return;  // a split grid's spare groups
    // Past the last row or token, compute on the last one and do not store it.
    uint wrow[ROWS];
    for (uint r = 0; r < ROWS; ++r) wrow[r] = w_row(min(row0 + r, p.n - 1));
    x_aligned = true;
    for (uint c = 0; c < COLS; ++c) {
        xcol[c] = x_col(min(col0 + c, p.m - 1));
        x_aligned = x_aligned && xcol[c] % 4 == 0;
    }

    float acc[ROWS][COLS];
    for (uint r = 0; r < ROWS; ++r)
        for (uint c = 0; c < COLS; ++c) acc[r][c] = 0.0;
    const uint threads = gl_WorkGroupSize.x, chunks = p.k / MV_QK * MV_CHUNKS;
    for (uint u = gl_LocalInvocationID.x; u < chunks; u += threads) {
        const uint blk = u / MV_CHUNKS, c = u % MV_CHUNKS;
        MvChunk ch[ROWS];  // every row's loads first
        for (uint r = 0; r < ROWS; ++r) ch[r] = mv_load(wrow[r], blk, c);
        for (uint j = 0; j < MV_PIECES; ++j) {
            vec4 xv[COLS];
            for (uint t = 0; t < COLS; ++t) xv[t] = load_x4(t, blk * MV_QK + mv_pos(c, j));
            for (uint r = 0; r < ROWS; ++r)
                for (uint t = 0; t < COLS; ++t) acc[r][t] += mv_dot(ch[r], j, xv[t]);
        }
    }

    for (uint r = 0; r < ROWS; ++r)
        for (uint c = 0; c < COLS; ++c) {
            const float s = subgroupAdd(acc[r][c]);
            if (subgroupElect()) partial[(r * COLS + c) * gl_NumSubgroups + gl_SubgroupID] = s;
        }
    barrier();
    const uint t = gl_LocalInvocationID.x, r = t / COLS, c = t % COLS;
    if (t < ROWS * COLS && row0 + r < p.n && col0 + c < p.m) {
        float sum = 0.0;
        for (uint s = 0; s < gl_NumSubgroups; ++s) sum += partial[t * gl_NumSubgroups + s];
        y[y_col(col0 + c) + row0 + r] = ADDEND ? sum + a[a_col(col0 + c) + row0 + r] : sum;
    }
}
