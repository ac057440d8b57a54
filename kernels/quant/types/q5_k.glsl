// Q5_K: super-blocks of 256 values in 8 sub-blocks of 32, scales and mins as
// Q4_K's; value = (d * scale) * q - dmin * min with 5-bit q: the low 4 bits
// packed as Q4_K's qs, bit 4 of value i in bit i/32 of qh[i%32].
// Blocks are 176 bytes, 11 16-byte words: the head (d and dmin, then the 12
// bytes of scales), 2 of qh, 8 of qs; read as such (one load of a head, of
// 16 values' qs or qh) instead of bytes.
#include "weight_type.glsl"

#define QK 256
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights128 { uvec4 block_words[]; };
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights32 { uint block_uints[]; };

#include "kquant_scale_min.glsl"

const uint BLOCK_WORDS = 11, QH_WORD = 1, QS_WORD = 3;

// Value l's sub-block of block b: its scale and min (d * scale, dmin * min).
vec2 sub_block_scale_min(uint b, uint l) { return head_scale_min(block_words[BLOCK_WORDS * b], l / 32); }
// Values l..l+3 from their qs word and qh word.
vec4 four_values(uint l, uint qs, uint qh, vec2 sm) {
    const uint q = (qs >> (l % 64 / 32 * 4) & 0x0F0F0F0Fu) | (qh >> (l / 32) & 0x01010101u) << 4;
    return sm.x * vec4(uvec4(q) >> uvec4(0, 8, 16, 24) & 0xFFu) - sm.y;
}

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK, first = 4 * BLOCK_WORDS * b;
    return four_values(l, block_uints[first + 4 * QS_WORD + (32 * (l / 64) + l % 32) / 4],
                       block_uints[first + 4 * QH_WORD + l % 32 / 4], sub_block_scale_min(b, l));
}

// Values i..i+15 (i a multiple of 16: half a sub-block) with one decode of
// the scale and min and one load each of their qs and qh (the tensor-core
// matmul's fetch).
#define HAS_DEQUANT16
mat4 dequant16(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK;
    const vec2 sm = sub_block_scale_min(b, l);
    const uvec4 qs = block_words[BLOCK_WORDS * b + QS_WORD + 2 * (l / 64) + l % 32 / 16];
    const uvec4 qh = block_words[BLOCK_WORDS * b + QH_WORD + l % 32 / 16];
    mat4 w;
    for (uint j = 0; j < 4; ++j) w[j] = four_values(l, qs[j], qh[j], sm);
    return w;
}

#ifdef MV_STAGED
// The staged matvec (shaders/matvec_staged.glsl): a unit is 64 values, the
// sub-blocks 2g and 2g + 1 of a block, as Q4_K's: two 16-byte loads of their
// qs and two of the block's 32 bytes of qh (bits 2g and 2g + 1 are theirs),
// besides the head.
#define MV_UNIT_BLOCKS 2
#include "staged_x.glsl"
struct MvUnit {
    uvec4 q[4];  // the 5-bit values as bytes: sub-block 2g's 0..15 and 16..31, then 2g + 1's
    vec2 scale, m;
};
MvUnit mv_unit(uint row, uint u) {
    const uint b = row + u / 4, g = u % 4, w = BLOCK_WORDS * b;
    const vec4 sm = head_scale_min_pair(block_words[w], g);
    const uvec4 lo = block_words[w + QS_WORD + 2 * g], hi = block_words[w + QS_WORD + 2 * g + 1];
    const uvec4 hlo = block_words[w + QH_WORD] >> (2 * g), hhi = block_words[w + QH_WORD + 1] >> (2 * g);
    MvUnit unit;
    unit.q[0] = (lo & 0x0F0F0F0Fu) | (hlo & 0x01010101u) << 4;
    unit.q[1] = (hi & 0x0F0F0F0Fu) | (hhi & 0x01010101u) << 4;
    unit.q[2] = (lo >> 4 & 0x0F0F0F0Fu) | (hlo >> 1 & 0x01010101u) << 4;
    unit.q[3] = (hi >> 4 & 0x0F0F0F0Fu) | (hhi >> 1 & 0x01010101u) << 4;
    unit.scale = sm.xy;
    unit.m = sm.zw;
    return unit;
}
#ifdef MV_IDOT
#include "int_dot.glsl"
float mv_unit_dot(MvUnit w, MvX x) {
    int s0 = 0, s1 = 0;
    for (uint j = 0; j < 4; ++j) {
        s0 += sudot4(x.lo[0][j], w.q[0][j]) + sudot4(x.hi[0][j], w.q[1][j]);
        s1 += sudot4(x.lo[1][j], w.q[2][j]) + sudot4(x.hi[1][j], w.q[3][j]);
    }
    return x.d[0] * (w.scale.x * small_int_float(s0) - w.m.x * x.sum[0]) +
           x.d[1] * (w.scale.y * small_int_float(s1) - w.m.y * x.sum[1]);
}
#endif
#endif
