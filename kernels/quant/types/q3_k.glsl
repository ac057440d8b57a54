// Q3_K: super-blocks of 256 values in 16 sub-blocks of 16, each with a signed
// 6-bit scale (stored + 32: low 4 bits in nibble j/8 of scales[j%8], high 2
// bits at bit 2*(j/4) of scales[8 + j%4]), scaled by the fp16 d; value =
// (d * scale) * q with 3-bit q in -4..3: its low 2 bits packed as Q2_K's qs,
// and q + 4 = low + 4 * high, with high bit i/32 of hmask[i%32].
// Blocks are 110 bytes, only 2-byte aligned: 4 values' hmask and qs bytes
// read as two 16-bit halves each instead of 4 bytes.
#include "weight_type.glsl"
#include "half_words.glsl"
#include "byte_floats.glsl"

#define QK 256
struct Block {
    uint8_t hmask[32];
    uint8_t qs[64];
    uint8_t scales[12];
    float16_t d;
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };
const uint BLOCK_HALVES = 55, QS_HALF = 16;

// d * scale of value l's sub-block of block b.
float sub_block_scale(uint b, uint l) {
    const uint sub = l / 16;
    const uint low = (uint(weights[b].scales[sub % 8]) >> (4 * (sub / 8))) & 0xFu;
    const uint high = (uint(weights[b].scales[8 + sub % 4]) >> (2 * (sub / 4))) & 3u;
    return float(weights[b].d) * float(int(low | (high << 4)) - 32);
}
// Values l..l+3 of block b (first half h), the words holding them being the
// j-th from theirs.
vec4 four_values(uint h, uint l, uint j, float dl) {
    const uint qs = word_at(h + QS_HALF + (32 * (l / 128) + l % 32) / 2 + 2 * j);
    const uint hmask = word_at(h + l % 32 / 2 + 2 * j);
    return dl * byte_floats((qs >> (l % 128 / 32 * 2) & 0x03030303u) | (hmask >> (l / 32) & 0x01010101u) << 2, 4.0);
}

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK;
    return four_values(BLOCK_HALVES * b, l, 0, sub_block_scale(b, l));
}

// Values i..i+15 (i a multiple of 16: one sub-block) with one decode of the
// scale (the matmuls' fetch).
#define HAS_DEQUANT16
mat4 dequant16(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK;
    const float dl = sub_block_scale(b, l);
    mat4 v;
    for (uint j = 0; j < 4; ++j) v[j] = four_values(BLOCK_HALVES * b, l, j, dl);
    return v;
}
