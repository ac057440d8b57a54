// Q4_K: super-blocks of 256 values in 8 sub-blocks of 32, each with a 6-bit
// scale and min (see kquant_scale_min.glsl) scaled by the fp16 d and dmin;
// value = (d * scale) * q - dmin * min with 4-bit q. Each 64 values use 32
// bytes of qs: the first 32 values their low nibbles, the next 32 the high.
#include "weight_type.glsl"

#define QK 256
#include "kquant_scale_min.glsl"

// The blocks (144 bytes: d and dmin, 12 bytes of scales, 128 of qs) as words.
struct Block32 {
    f16vec2 dm;
    uint scales[3];
    uint qs[32];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights32 { Block32 weights32[]; };

// The same blocks as 16-byte words: 9 of them, the head (d and dmin, then
// the 12 bytes of scales) and 8 of qs: one load of a head or of 32 values'
// nibbles instead of one per word (docs/measured-choices.md#q4_k-in-16-byte-words).
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights128 { uvec4 block_words[]; };
uvec4 block_head(uint b) { return block_words[9 * b]; }

// Value l's sub-block of block b: its scale and min (d * scale, dmin * min).
vec2 sub_block_scale_min(uint b, uint l) { return head_scale_min(block_head(b), l / 32); }
// Values l..l+3 of block b, the word holding them being the j-th from theirs.
vec4 four_values(uint b, uint l, uint j, vec2 sm) {
    const uint word = weights32[b].qs[(32 * (l / 64) + l % 32) / 4 + j] >> (l % 64 / 32 * 4);
    return sm.x * vec4(uvec4(word) >> uvec4(0, 8, 16, 24) & 0xFu) - sm.y;
}

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK;
    return four_values(b, l, 0, sub_block_scale_min(b, l));
}

// Values i..i+15 (i a multiple of 16: one sub-block) with one decode of the
// scale and min and one load of their nibbles (the tensor-core matmul's fetch).
#define HAS_DEQUANT16
// The tensor-core matmul fetches the next step after its multiplies, not
// before (weight_type.glsl; docs/measured-choices.md#q4_k-fetch-after-multiplies).
#define FETCH_AFTER_MULTIPLIES
mat4 dequant16(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK;
    const vec2 sm = sub_block_scale_min(b, l);
    const uvec4 words = block_words[9 * b + 1 + 2 * (l / 64) + l % 32 / 16] >> (l % 64 / 32 * 4);
    mat4 w;
    for (uint j = 0; j < 4; ++j) w[j] = sm.x * vec4(uvec4(words[j]) >> uvec4(0, 8, 16, 24) & 0xFu) - sm.y;
    return w;
}

// matvec (shaders/quant/matvec.glsl): 16 chunks per super-block, chunk c of
// the 64 values 64g.. (g = c / 4) the low and high nibbles of words q and
// q + 4 (q = c % 4) of their 32 bytes: values 64g + 4q + 16j for piece j,
// sub-blocks 2g (j < 2) and 2g + 1. Blocks are 144 bytes: 32-bit loads.
#define MV_QK 256
#define MV_CHUNKS 16
#define MV_PIECES 4

struct MvChunk {
    vec2 scale, m;  // of sub-blocks 2g and 2g + 1
    uint qs[2];
};
MvChunk mv_load(uint row, uint blk, uint c) {
    const uint b = row + blk, g = c / 4, q = 8 * g + c % 4;
    const vec4 sm = head_scale_min_pair(block_head(b), g);
    return MvChunk(sm.xy, sm.zw,
                   uint[2](weights32[b].qs[q], weights32[b].qs[q + 4]));
}
float mv_dot(MvChunk ch, uint j, vec4 x) {
    const vec4 q = byte_floats(ch.qs[j % 2] >> (4 * (j / 2)) & 0x0F0F0F0Fu, 0.0);
    return ch.scale[j / 2] * dot(q, x) - ch.m[j / 2] * dot(vec4(1.0), x);
}
uint mv_pos(uint c, uint j) { return 64 * (c / 4) + 4 * (c % 4) + 16 * j; }

#ifdef MV_IDOT
#include "int_dot.glsl"
float mv_qdot(MvChunk ch, uint xq[MV_PIECES], int xsum[MV_PIECES]) {
    const int lo = sudot4(xq[0], ch.qs[0] & 0x0F0F0F0Fu) + sudot4(xq[1], ch.qs[1] & 0x0F0F0F0Fu);
    const int hi = sudot4(xq[2], ch.qs[0] >> 4 & 0x0F0F0F0Fu) + sudot4(xq[3], ch.qs[1] >> 4 & 0x0F0F0F0Fu);
    return ch.scale.x * small_int_float(lo) + ch.scale.y * small_int_float(hi) -
           ch.m.x * small_int_float(xsum[0] + xsum[1]) - ch.m.y * small_int_float(xsum[2] + xsum[3]);
}
#endif

#ifdef MV_STAGED
// The staged matvec (shaders/matvec_staged.glsl): a unit is 64 values, the
// sub-blocks 2g and 2g + 1 of a block, their 32 bytes of qs two 16-byte loads
// besides the block's head; or, where the host asks for halves (long rows),
// 32 values, one half P of the same two sub-blocks (values 16P .. 16P + 15
// of each), one 16-byte load: fewer registers, and neighbouring invocations
// read neighbouring 16 bytes (docs/measured-choices.md#half-units-of-q4_k).
#define MV_UNIT_BLOCKS 2
#define MV_UNIT_HALVES_CHOICE
#include "staged_x.glsl"
struct MvUnit {
    uvec4 lo, hi;  // 16 bytes each (hi not with halves): sub-block 2g in the low nibbles, 2g + 1 in the high
    vec2 scale, m;
};
MvUnit mv_unit(uint row, uint u) {
    const uint units = UNIT_HALVES ? 8 : 4, b = row + u / units, g = u % units / (units / 4);
    const vec4 sm = head_scale_min_pair(block_head(b), g);
    const uint word = 9 * b + 1 + (UNIT_HALVES ? u % 8 : 2 * g);
    return MvUnit(block_words[word], UNIT_HALVES ? uvec4(0) : block_words[word + 1], sm.xy, sm.zw);
}
// Only with MV_IDOT: with F32 x (MV_STAGED_F32) the chunked matvec is faster
// (docs/measured-choices.md#q4_k-staged-with-f32-x).
#ifdef MV_IDOT
float mv_unit_dot(MvUnit w, MvX x) {
    int s0 = 0, s1 = 0;
    for (uint j = 0; j < 4; ++j) {
        s0 += sudot4(x.lo[0][j], w.lo[j] & 0x0F0F0F0Fu);
        s1 += sudot4(x.lo[1][j], w.lo[j] >> 4 & 0x0F0F0F0Fu);
        if (!UNIT_HALVES) {
            s0 += sudot4(x.hi[0][j], w.hi[j] & 0x0F0F0F0Fu);
            s1 += sudot4(x.hi[1][j], w.hi[j] >> 4 & 0x0F0F0F0Fu);
        }
    }
    return x.d[0] * (w.scale.x * small_int_float(s0) - w.m.x * x.sum[0]) +
           x.d[1] * (w.scale.y * small_int_float(s1) - w.m.y * x.sum[1]);
}
#endif
#endif
