// Q6_K: super-blocks of 256 values in 16 sub-blocks of 16, each with a signed
// 8-bit scale, scaled by the fp16 d; value = (d * scale) * (q - 32) with 6-bit
// q. Each 128 values use 64 bytes of ql and 32 of qh: value l + 32k of them
// (l < 32, k < 4) has its low 4 bits in nibble k/2 of ql[l + 32*(k%2)] and
// its high 2 bits at bit 2k of qh[l].
// On the GPU the blocks are regrouped (Q6_K::GpuGroups,
// kernels/quant/gpu_layout.hpp): groups of 8 blocks, each block's ql, qh and
// scales (208 bytes, 16-byte aligned), then the 8 d. So ql and qh come in
// 32-bit or 16-byte loads (a 210-byte block is only 2-byte aligned).
#include "weight_type.glsl"
#include "byte_floats.glsl"

#define QK 256
// Words (uint) of a group and of a block's part of it: ql at words 0..31,
// qh at 32..47, the scales at 48..51; the group's d after its 8 parts.
const uint GROUP_WORDS = 420, PART_WORDS = 52, QH_WORD = 32, SCALES_WORD = 48;
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { uint words[]; };
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights128 { uvec4 quads[]; };
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer WeightsF16 { float16_t halves[]; };

// Block b's first word.
uint part_word(uint b) { return b / 8 * GROUP_WORDS + b % 8 * PART_WORDS; }
float block_d(uint b) { return float(halves[(b / 8 * GROUP_WORDS + 8 * PART_WORDS) * 2 + b % 8]); }
// d * scale of sub-block s of block b (first word w).
float sub_block_scale(uint b, uint w, uint s) {
    return block_d(b) * float(bitfieldExtract(int(words[w + SCALES_WORD + s / 4]), int(8 * (s % 4)), 8));
}
// The 4 values' q (6 bits each, as bytes) of a ql word and a qh word (k:
// which 32 of their 128 values).
uint six_bits(uint low, uint high, uint k) {
    return (low >> (4 * (k / 2)) & 0x0F0F0F0Fu) | (high >> (2 * k) & 0x03030303u) << 4;
}

// Bytes `first` and first + 2 of each of two words, as one word (the scales
// of 4 pieces 32 values apart).
uint alternate_bytes(uvec2 w, uint first) {
    const uvec2 t = w >> (8 * first) & 0x00FF00FFu;
    return t.x & 0xFFu | t.x >> 8 & 0xFF00u | (t.y & 0xFFu) << 16 | t.y << 8 & 0xFF000000u;
}

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK, k = l % 128 / 32, w = part_word(b);
    const uint lo = 64 * (l / 128) + l % 32 + 32 * (k % 2), hi = 32 * (l / 128) + l % 32;
    return sub_block_scale(b, w, l / 16) * byte_floats(six_bits(words[w + lo / 4], words[w + QH_WORD + hi / 4], k), 32.0);
}

// Values i..i+15 (i a multiple of 16: one sub-block), as 4 dequant4s, from
// one 16-byte load each of ql and qh (the tensor-core matmul's fetch).
#define HAS_DEQUANT16
mat4 dequant16(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK, k = l % 128 / 32, w = part_word(b);
    const uint lo = 64 * (l / 128) + l % 32 + 32 * (k % 2), hi = 32 * (l / 128) + l % 32;
    const float dl = sub_block_scale(b, w, l / 16);
    const uvec4 low = quads[(w + lo / 4) / 4], high = quads[(w + QH_WORD + hi / 4) / 4];
    mat4 v;
    for (uint j = 0; j < 4; ++j) v[j] = dl * byte_floats(six_bits(low[j], high[j], k), 32.0);
    return v;
}

// matvec (shaders/quant/matvec.glsl): 16 chunks per super-block, chunk c of
// the 128 values 128h.. (h = c / 8) values 128h + 4q + 32k + (0..3) for
// piece k (q = c % 8): a word each of ql (two) and qh, and the 4 pieces'
// scales from two words.
#define MV_QK 256
#define MV_CHUNKS 16
#define MV_PIECES 4

struct MvChunk {
    vec4 dl;  // d * scale of each piece
    uint ql[2], qh;
};
MvChunk mv_load(uint row, uint blk, uint c) {
    const uint b = row + blk, h = c / 8, q = c % 8, w = part_word(b);
    // the pieces' scales 8h + q / 4 + 2k
    const uint scales = alternate_bytes(uvec2(words[w + SCALES_WORD + 2 * h], words[w + SCALES_WORD + 2 * h + 1]), q / 4);
    return MvChunk(block_d(b) * byte_floats(scales ^ 0x80808080u, 128.0),  // signed bytes
                   uint[2](words[w + 16 * h + q], words[w + 16 * h + 8 + q]), words[w + QH_WORD + 8 * h + q]);
}
float mv_dot(MvChunk ch, uint k, vec4 x) {
    return ch.dl[k] * dot(byte_floats(six_bits(ch.ql[k % 2], ch.qh, k), 32.0), x);
}
uint mv_pos(uint c, uint k) { return 128 * (c / 8) + 4 * (c % 8) + 32 * k; }

#ifdef MV_IDOT
#include "int_dot.glsl"
float mv_qdot(MvChunk ch, uint xq[MV_PIECES], int xsum[MV_PIECES]) {
    float s = 0.0;
    for (uint k = 0; k < MV_PIECES; ++k) {
        s += ch.dl[k] * small_int_float(sudot4(xq[k], six_bits(ch.ql[k % 2], ch.qh, k)) - 32 * xsum[k]);
    }
    return s;
}
#endif

#ifdef MV_STAGED
// The staged matvec (shaders/matvec_staged.glsl): a unit is 64 values, one
// half P of each of 4 blocks of x (values 32k + 16P .. + 15 of 128 values
// 128h.. of a block, k < 4): a 16-byte load of qh and two of ql (k even,
// then odd), and the 4 sub-blocks' scales.
#define MV_UNIT_BLOCKS 4
#define MV_UNIT_HALVES
#include "staged_x.glsl"
struct MvUnit {
    uvec4 ql[2], qh;
    uint scales;  // signed bytes: sub-block 8h + 2k + P in byte k
    float d;
};
MvUnit mv_unit(uint row, uint u) {
    const uint b = row + u / 4, h = u / 2 % 2, part = u % 2, q = part_word(b) / 4;
    const uvec4 sc = quads[q + SCALES_WORD / 4];
    return MvUnit(uvec4[2](quads[q + 4 * h + part], quads[q + 4 * h + 2 + part]), quads[q + QH_WORD / 4 + 2 * h + part],
                  alternate_bytes(h == 0 ? sc.xy : sc.zw, part), block_d(b));
}
#ifdef MV_IDOT
float mv_unit_dot(MvUnit w, MvX x) {
    float s = 0.0;
    for (uint k = 0; k < 4; ++k) {
        int dot = 0;
        for (uint j = 0; j < 4; ++j) dot += sudot4(x.lo[k][j], six_bits(w.ql[k % 2][j], w.qh[j], k));
        const float scale = small_int_float(bitfieldExtract(int(w.scales), int(8 * k), 8));
        s += x.d[k] * scale * (small_int_float(dot) - 32.0 * x.sum[k]);
    }
    return w.d * s;
}
#endif
#endif
