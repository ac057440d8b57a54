// The main() of matvec_staged_<type> (shaders/quant/matvec.glsl with
// MV_STAGED): for weight types with packed integer dot products, with 8-bit
// activations. The workgroup first rounds x (after any prologue) to signed
// bytes in blocks of 32 values, each scaled by its largest magnitude / 127,
// into shared memory; then each subgroup takes ROWS rows, each invocation
// whole units of them: one load of a unit's quants per row, its x from
// shared memory, no barrier after the staging. A large workgroup (few
// workgroups) rounds x and computes a fused prologue, swiglu's exp included,
// few times over.
//
// The weight type's part defines, in an `#ifdef MV_STAGED` section:
//
//   MV_UNIT_BLOCKS  blocks of 32 values in a unit (rows are whole units)
//   struct MvUnit   a unit's quants and scales, in registers
//   MvUnit mv_unit(uint row, uint u)
//                   unit u of the row whose first block is weights[row]
//   float mv_unit_dot(MvUnit w, MvX x)
//                   the unit's values dotted with x's (staged_x.glsl)
//
// Needs subgroups of at least 8 with shuffles, a workgroup of whole
// subgroups and ROWS * COLS <= 8 (one invocation stores each result);
// graph/vulkan/kernels/matmul.cpp checks.
#extension GL_KHR_shader_subgroup_shuffle : require

// Rows per workgroup: the host's ROWS times its count of subgroups, which
// the subgroups take in turn whatever their size turns out to be.
layout(constant_id = 9) const uint GROUP_ROWS = 1;
// Blocks of x staged: COLS * k / 32. Block b's first 16 bytes are at xq[b],
// its last 16 at xq[XQ_HALF + b], so that neighbouring invocations, each
// reading its own block, read neighbouring 16 bytes: 16 banks apart, the two
// halves of 4 neighbouring blocks staged by 32 invocations do not conflict.
layout(constant_id = 8) const uint STAGED_BLOCKS = 1;
const uint XQ_HALF = (STAGED_BLOCKS + 7) / 8 * 8 + 4;
shared uvec4 xq[2 * XQ_HALF];
shared float xq_scale[STAGED_BLOCKS];
shared int xq_sum[STAGED_BLOCKS];

// NORMED: each subgroup's sum of squares of each token's x (subgroups of 8 or more).
shared float partial[COLS * gl_WorkGroupSize.x / 8];
float inv_rms[COLS];  // NORMED: each token's 1 / rms(x), else 1

// Fills xq, xq_scale, xq_sum and inv_rms. Each 8 neighbouring invocations of
// a subgroup round one block (k is a multiple of 32 and the workgroup of 8,
// so a block's 8 pieces are in the same trip of the loop).
void stage_x() {
    const uint words = p.k / 4, lane = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    for (uint c = 0; c < COLS; ++c) {
        squares[c] = 0.0;
        for (uint i = lane; i < words; i += gl_WorkGroupSize.x) {
            const vec4 v = x_piece(c, 4 * i), m = abs(v);
            float top = max(max(m.x, m.y), max(m.z, m.w));
            for (uint d = 1; d < 8; d *= 2) top = max(top, subgroupShuffleXor(top, d));
            const uint q = round_bytes(v * (top > 0.0 ? 127.0 / top : 0.0));
            int sum = sdot4(q, 0x01010101u);
            for (uint d = 1; d < 8; d *= 2) sum += subgroupShuffleXor(sum, d);
            const uint at = c * words + i, blk = at / 8;
            xq[at % 8 / 4 * XQ_HALF + blk][at % 4] = q;
            if (i % 8 == 0) {
                xq_scale[blk] = top / 127.0;
                xq_sum[blk] = sum;
            }
        }
        if (NORMED) {
            const float s = subgroupAdd(squares[c]);
            if (subgroupElect()) partial[c * gl_NumSubgroups + gl_SubgroupID] = s;
        }
    }
    barrier();
    for (uint c = 0; c < COLS; ++c) {
        float ss = 0.0;
        if (NORMED)
            for (uint s = 0; s < gl_NumSubgroups; ++s) ss += partial[c * gl_NumSubgroups + s];
        inv_rms[c] = NORMED ? inversesqrt(ss / float(p.k) + p.eps) : 1.0;
    }
}

// ROWS rows from row0 on, by one subgroup.
void rows_of_subgroup(uint row0, uint col0) {
    // Past the last row, compute on the last one and do not store it.
    uint wrow[ROWS];
    for (uint r = 0; r < ROWS; ++r) wrow[r] = w_row(min(row0 + r, p.n - 1));
    float acc[ROWS][COLS];
    for (uint c = 0; c < COLS; ++c)
        for (uint r = 0; r < ROWS; ++r) acc[r][c] = 0.0;
    const uint units = p.k / (32 * MV_UNIT_BLOCKS), lane = gl_SubgroupInvocationID;
    for (uint u = lane; u < units; u += gl_SubgroupSize) {
        MvUnit w[ROWS];  // every row's loads first
        for (uint r = 0; r < ROWS; ++r) w[r] = mv_unit(wrow[r], u);
        for (uint t = 0; t < COLS; ++t) {
            MvX xu;
            for (uint i = 0; i < MV_UNIT_BLOCKS; ++i) {
                const uint blk = t * p.k / 32 + u * MV_UNIT_BLOCKS + i;
                xu.lo[i] = xq[blk];
                xu.hi[i] = xq[XQ_HALF + blk];
                xu.d[i] = xq_scale[blk];
                xu.sum[i] = xq_sum[blk];
            }
            for (uint r = 0; r < ROWS; ++r) acc[r][t] += mv_unit_dot(w[r], xu);
        }
    }
    float sums[ROWS][COLS];  // in every invocation
    for (uint r = 0; r < ROWS; ++r)
        for (uint c = 0; c < COLS; ++c) sums[r][c] = subgroupAdd(acc[r][c]) * inv_rms[c];
    const uint r = lane / COLS, c = lane % COLS;
    if (lane < ROWS * COLS && row0 + r < p.n && col0 + c < p.m)
        finish(row0 + r, col0 + c, sums[r][c], ROPE ? sums[r ^ 1][c] : 0.0);
}

void main() {
    const uint first = flat_group() * GROUP_ROWS, col0 = col_group() * COLS;
    if (first >= p.n) return;  // a split grid's spare groups
    locate_x(col0);
    stage_x();
    for (uint r = gl_SubgroupID * ROWS; r < GROUP_ROWS && first + r < p.n; r += gl_NumSubgroups * ROWS)
        rows_of_subgroup(first + r, col0);
}
