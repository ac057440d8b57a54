// The main() of matvec_staged_<type>, matvec_staged_idot_<type> and
// matvec_staged_idot16_<type> (shaders/quant/matvec.glsl with MV_STAGED,
// MV_IDOT for the second, MV_IDOT and MV_X16 for the third).
// The workgroup first stages x (after any prologue) in shared memory, in
// blocks of 32 values: as F32, or rounded to signed bytes, each block scaled
// by its largest magnitude / 127 (MV_IDOT: 8-bit activations, packed integer
// dot products), or rounded to 16 bits, each block scaled by its largest
// magnitude / 32639 and each value v kept as two signed bytes, v = 256 hi +
// lo (MV_X16: the CPU's 16-bit activations, kernels/cpu/matmul/activations.hpp;
// the type's byte dot runs once on each). Then each subgroup takes ROWS rows
// at a time, each invocation whole units of them: one load of a unit's
// quants per row, its x from shared memory, no barrier after the staging. A
// large workgroup (few workgroups) stages x and computes a fused prologue,
// swiglu's exp included, few times over.
//
// The weight type's part defines, in an `#ifdef MV_STAGED` section:
//
//   MV_UNIT_BLOCKS  blocks of 32 values in a unit (rows are whole units);
//                   with MV_UNIT_HALVES (or MV_UNIT_HALVES_CHOICE and the
//                   host's HALF_UNITS), one half of each (staged_x.glsl)
//   struct MvUnit   a unit's quants and scales, in registers
//   MvUnit mv_unit(uint row, uint u)
//                   unit u of the row whose first block is weights[row]
//   float mv_unit_dot(MvUnit w, MvX x)
//                   the unit's values dotted with x's (staged_x.glsl), in
//                   an `#ifdef MV_IDOT` section (x's bytes) and, where F32
//                   x pays, an `#ifdef MV_STAGED_F32` one
//
// Needs subgroups of at least 8 with shuffles, a workgroup of whole
// subgroups and ROWS * COLS <= 8 (one invocation stores each result);
// graph/vulkan/kernels/matmul.cpp checks.
#extension GL_KHR_shader_subgroup_shuffle : require

// Rows per workgroup: the host's ROWS times its count of subgroups (times
// its passes for wide matrices), which the subgroups take in turn whatever
// their size turns out to be.
layout(constant_id = 9) const uint GROUP_ROWS = 1;
// Blocks of x staged: COLS * k / 32.
layout(constant_id = 8) const uint STAGED_BLOCKS = 1;
#ifdef MV_X16
const uint XQ_PLANES = 2;  // x's high bytes, then its low ones
#else
const uint XQ_PLANES = 1;
#endif
#ifdef MV_IDOT
// Block b's first 16 bytes are at xq[b], its last 16 at xq[XQ_HALF + b], so
// that neighbouring invocations, each reading its own block, read
// neighbouring 16 bytes: 16 banks apart, the two halves of 4 neighbouring
// blocks staged by 32 invocations do not conflict.
const uint XQ_HALF = (STAGED_BLOCKS + 7) / 8 * 8 + 4;
#ifdef MV_X16
const float XQ_MAX = 32639.0;  // 127 * 256 + 127: hi = (v + 128) >> 8 stays within [-127, 127]
#else
const float XQ_MAX = 127.0;
#endif
shared uvec4 xq[XQ_PLANES * 2 * XQ_HALF];
// Each block's scale and sums of bytes per plane in one vec4, read with one
// load: (scale, sum of plane 0, of plane 1, 0), or with UNIT_HALVES (sums
// of values 0..15 and of all, plane 0, then plane 1) and the scale apart.
shared vec4 xq_meta[STAGED_BLOCKS];
shared float xq_scale[UNIT_HALVES ? STAGED_BLOCKS : 1];
#else
// Values 4j..4j+3 of block b at xf[j * XF_STRIDE + b]: neighbouring
// invocations read neighbouring vec4s, and the 8 vec4s of a block, staged by
// 8 neighbouring invocations, lie in distinct banks.
const uint XF_STRIDE = (STAGED_BLOCKS + 7) / 8 * 8 + 1;
shared vec4 xf[8 * XF_STRIDE];
#endif

// NORMED: each subgroup's sum of squares of each token's x (subgroups of 8 or more).
shared float partial[COLS * gl_WorkGroupSize.x / 8];
float inv_rms[COLS];  // NORMED: each token's 1 / rms(x), else 1

// Stages values 4 * at.. of x (vec4 at % 8 of block at / 8).
void stage_piece(uint at, vec4 v) {
    const uint blk = at / 8;
#ifdef MV_IDOT
    const vec4 m = abs(v);
    float top = max(max(m.x, m.y), max(m.z, m.w));
    for (uint d = 1; d < 8; d *= 2) top = max(top, subgroupShuffleXor(top, d));
    const vec4 scaled = v * (top > 0.0 ? XQ_MAX / top : 0.0);
#ifdef MV_X16
    const ivec4 whole = round_ints(scaled), high = (whole + 128) >> 8;
    const uint planes[XQ_PLANES] = uint[](pack_bytes(high), pack_bytes(whole - 256 * high));
#else
    const uint planes[XQ_PLANES] = uint[](round_bytes(scaled));
#endif
    const float scale = top / XQ_MAX;
    vec4 meta = UNIT_HALVES ? vec4(0.0) : vec4(scale, 0.0, 0.0, 0.0);
    for (uint plane = 0; plane < XQ_PLANES; ++plane) {
        const uint q = planes[plane];
        float sum = small_int_float(sdot4(q, 0x01010101u));
        for (uint d = 1; d < 4; d *= 2) sum += subgroupShuffleXor(sum, d);
        const float all = sum + subgroupShuffleXor(sum, 4);
        if (UNIT_HALVES) {
            meta[2 * plane] = sum;
            meta[2 * plane + 1] = all;
        } else {
            meta[1 + plane] = all;
        }
        xq[(2 * plane + at % 8 / 4) * XQ_HALF + blk][at % 4] = q;
    }
    if (at % 8 == 0) {
        xq_meta[blk] = meta;
        if (UNIT_HALVES) xq_scale[blk] = scale;
    }
#else
    xf[at % 8 * XF_STRIDE + blk] = v;
#endif
}

// Stages x and sets inv_rms. Each 8 neighbouring invocations of a subgroup
// stage one block (k is a multiple of 32 and the workgroup of 8, so a
// block's 8 pieces are in the same trip of the loop).
void stage_x() {
    const uint words = p.k / 4, lane = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    for (uint c = 0; c < COLS; ++c) {
        squares[c] = 0.0;
        for (uint i = lane; i < words; i += gl_WorkGroupSize.x) stage_piece(c * words + i, x_piece(c, 4 * i));
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

#if (defined(MV_UNIT_HALVES) || defined(MV_UNIT_HALVES_CHOICE)) && !defined(MV_IDOT)
#error "units of half blocks take 8-bit x"
#endif
const uint UNIT_SHARE = UNIT_HALVES ? 2 : 1;  // units per MV_UNIT_BLOCKS blocks

// Token t's x for unit u; with MV_X16, its high bytes (plane 0, their
// scale times 256) or low bytes (plane 1).
MvX unit_x(uint t, uint u, uint plane) {
    MvX x;
    for (uint i = 0; i < MV_UNIT_BLOCKS; ++i) {
        const uint blk = t * p.k / 32 + u / UNIT_SHARE * MV_UNIT_BLOCKS + i;
#ifdef MV_IDOT
        const uint first = 2 * plane * XQ_HALF;
        const vec4 meta = xq_meta[blk];
        float scale;
        if (UNIT_HALVES) {
            scale = xq_scale[blk];
            const vec2 sums = plane == 0 ? meta.xy : meta.zw;
            x.lo[i] = xq[first + u % 2 * XQ_HALF + blk];
            x.hi[i] = uvec4(0);
            x.sum[i] = u % 2 == 0 ? sums.x : sums.y - sums.x;
        } else {
            scale = meta.x;
            x.lo[i] = xq[first + blk];
            x.hi[i] = xq[first + XQ_HALF + blk];
            x.sum[i] = plane == 0 ? meta.y : meta.z;
        }
        x.d[i] = XQ_PLANES > 1 && plane == 0 ? 256.0 * scale : scale;
#else
        for (uint j = 0; j < 8; ++j) x.v[8 * i + j] = xf[j * XF_STRIDE + blk];
#endif
    }
    return x;
}

// ROWS rows from row0 on, by one subgroup.
void rows_of_subgroup(uint row0, uint col0) {
    // Past the last row, compute on the last one and do not store it.
    uint wrow[ROWS];
    for (uint r = 0; r < ROWS; ++r) wrow[r] = w_row(min(row0 + r, p.n - 1));
    float acc[ROWS][COLS];
    for (uint c = 0; c < COLS; ++c)
        for (uint r = 0; r < ROWS; ++r) acc[r][c] = 0.0;
    const uint units = p.k / (32 * MV_UNIT_BLOCKS) * UNIT_SHARE, lane = gl_SubgroupInvocationID;
    for (uint u = lane; u < units; u += gl_SubgroupSize) {
        MvUnit w[ROWS];  // every row's loads first
        for (uint r = 0; r < ROWS; ++r) w[r] = mv_unit(wrow[r], u);
        for (uint t = 0; t < COLS; ++t)
            for (uint plane = 0; plane < XQ_PLANES; ++plane) {
                const MvX x = unit_x(t, u, plane);
                for (uint r = 0; r < ROWS; ++r) acc[r][t] += mv_unit_dot(w[r], x);
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
    choose_expert();
    locate_x(col0);
    load_early_weights();
    stage_x();
    store_early_weights();
    for (uint r = gl_SubgroupID * ROWS; r < GROUP_ROWS && first + r < p.n; r += gl_NumSubgroups * ROWS)
        rows_of_subgroup(first + r, col0);
    moe_epilogue(first, GROUP_ROWS, col0);
    head_norm_epilogue(first, GROUP_ROWS, col0);
}
