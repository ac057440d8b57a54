// y = W x for a few tokens (ops/matmul.hpp), W of the weight type included
// before this skeleton: memory bound, so each workgroup streams ROWS rows of
// W once and applies each value to COLS tokens. The threads stride over the
// rows 4 values at a time (x in 16-byte loads); each sum is reduced within subgroups
// (subgroupAdd), then across them in shared memory.
#include "common.glsl"
#include "matmul_args.glsl"

layout(constant_id = 1) const uint ROWS = 2;  // rows of W per workgroup
layout(constant_id = 2) const uint COLS = 1;  // tokens per workgroup
layout(constant_id = 3) const uint UNROLL = 1;  // chunks of 4 values per thread per step, loads issued together
layout(constant_id = 4) const bool ADDEND = false;  // y = W x + a

layout(binding = 1, scalar) readonly buffer X { float x[]; };
layout(binding = 1, scalar) readonly buffer X4 { vec4 x4[]; };  // X again: 16-byte loads when aligned
layout(binding = 2, scalar) readonly buffer A { float a[]; };  // x again without ADDEND
layout(binding = 3, scalar) writeonly buffer Y { float y[]; };

// One slot per subgroup for each sum: sized for the worst case, subgroups of one.
shared float partial[ROWS * COLS * gl_WorkGroupSize.x];

void main() {
    const uint row0 = flat_group() * ROWS, col0 = col_group() * COLS;
    if (row0 >= p.n) return;  // a split grid's spare groups
    // Past the last row or token, compute on the last one and do not store it.
    uint wrow[ROWS], xcol[COLS];
    for (uint r = 0; r < ROWS; ++r) wrow[r] = w_row(min(row0 + r, p.n - 1));
    for (uint c = 0; c < COLS; ++c) xcol[c] = x_col(min(col0 + c, p.m - 1));

    bool x_aligned = true;
    for (uint c = 0; c < COLS; ++c) x_aligned = x_aligned && xcol[c] % 4 == 0;

    float acc[ROWS][COLS];
    for (uint r = 0; r < ROWS; ++r)
        for (uint c = 0; c < COLS; ++c) acc[r][c] = 0.0;
    const uint stride = 4 * gl_WorkGroupSize.x;
    uint i = 4 * gl_LocalInvocationID.x;
    for (; i + (UNROLL - 1) * stride < p.k; i += UNROLL * stride) {
        vec4 w[UNROLL][ROWS];
        vec4 xv[UNROLL][COLS];
        for (uint u = 0; u < UNROLL; ++u) {
            for (uint r = 0; r < ROWS; ++r) w[u][r] = dequant4(wrow[r], i + u * stride);
            for (uint c = 0; c < COLS; ++c) {
                const uint at = xcol[c] + i + u * stride;
                xv[u][c] = x_aligned ? x4[at / 4] : vec4(x[at], x[at + 1], x[at + 2], x[at + 3]);
            }
        }
        for (uint u = 0; u < UNROLL; ++u)
            for (uint r = 0; r < ROWS; ++r)
                for (uint c = 0; c < COLS; ++c) acc[r][c] += dot(w[u][r], xv[u][c]);
    }
    for (; i < p.k; i += stride) {  // the last chunks when the row is not a multiple of UNROLL steps
        vec4 xv[COLS];
        for (uint c = 0; c < COLS; ++c) {
            const uint at = xcol[c] + i;
            xv[c] = x_aligned ? x4[at / 4] : vec4(x[at], x[at + 1], x[at + 2], x[at + 3]);
        }
        for (uint r = 0; r < ROWS; ++r) {
            const vec4 w = dequant4(wrow[r], i);
            for (uint c = 0; c < COLS; ++c) acc[r][c] += dot(w, xv[c]);
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
