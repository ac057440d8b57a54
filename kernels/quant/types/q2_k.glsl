// Q2_K: super-blocks of 256 values in 16 sub-blocks of 16, each with a 4-bit
// scale (low nibble of scales[j]) and 4-bit min (high nibble), scaled by the
// fp16 d and dmin; value = (d * scale) * q - dmin * min with 2-bit q. Each 128
// values use 32 bytes of qs, each 32 of them a further bit pair of those bytes.
// Blocks are 84 bytes, 21 words: 4 of scales, 16 of qs, then d and dmin;
// read as words (one load each of a scale, of d and dmin, of 4 values' q)
// instead of bytes and halves.
#include "weight_type.glsl"
#include "byte_floats.glsl"

#define QK 256
const uint BLOCK_WORDS = 21, QS_WORD = 4, DM_WORD = 20;
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights32 { uint block_uints[]; };

// Value l's sub-block of the block whose first word is w: its scale and min
// (d * scale, dmin * min).
vec2 sub_block_scale_min(uint w, uint l) {
    const uint sc = block_uints[w + l / 64] >> (l / 16 % 4 * 8);
    return unpackHalf2x16(block_uints[w + DM_WORD]) * small_floats(uvec2(sc & 0xFu, sc >> 4 & 0xFu));
}
// Values l..l+3 from their qs word.
vec4 four_values(uint qs, uint l, vec2 sm) { return sm.x * byte_floats(qs >> (l % 128 / 32 * 2) & 0x03030303u, 0.0) - sm.y; }
// The word of qs holding values l..l+3.
uint qs_word(uint w, uint l) { return w + QS_WORD + (32 * (l / 128) + l % 32) / 4; }

vec4 dequant4(uint row, uint i) {
    const uint w = BLOCK_WORDS * (row + i / QK), l = i % QK;
    return four_values(block_uints[qs_word(w, l)], l, sub_block_scale_min(w, l));
}

// Values i..i+15 (i a multiple of 16: one sub-block) with one decode of the
// scale and min (the matmuls' fetch).
#define HAS_DEQUANT16
mat4 dequant16(uint row, uint i) {
    const uint w = BLOCK_WORDS * (row + i / QK), l = i % QK, q = qs_word(w, l);
    const vec2 sm = sub_block_scale_min(w, l);
    mat4 v;
    for (uint j = 0; j < 4; ++j) v[j] = four_values(block_uints[q + j], l, sm);
    return v;
}
