// IQ4_XS: super-blocks of 256 values in 8 sub-blocks of 32, each with a signed
// 6-bit scale (stored + 32: low 4 bits in nibble j%2 of scales_l[j/2], high 2
// bits at bit 2j of scales_h), and 4-bit indices into IQ4_NL's table (each
// sub-block's 16 bytes: values 0..15 in the low nibbles, 16..31 in the high);
// value = (d * scale) * table[index].
// Blocks are 136 bytes, 8-byte aligned: 17 pairs of words, the head (d and
// scales_h, then scales_l) and 16 of qs; read as such (one load of the head,
// one of 4 values' indices, two of 16 values') instead of halves and bytes.
#include "weight_type.glsl"
#include "iq4_values.glsl"
#include "nibbles32.glsl"

#define QK 256
const uint BLOCK_PAIRS = 17;
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights64 { uvec2 block_pairs[]; };
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights32 { uint block_uints[]; };

// d * scale of sub-block s from the head.
float sub_block_scale(uvec2 head, uint s) {
    const uint low = head.y >> (4 * s) & 0xFu, high = head.x >> (16 + 2 * s) & 3u;
    return unpackHalf2x16(head.x).x * float(int(low | high << 4) - 32);
}
// Values l..l+3 (of sub-block l / 32, packed as Q4_0's block) from their qs word.
vec4 four_values(uint qs, uint l, float dl) { return dl * iq4_values(nibbles4(qs, l)); }

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK;
    const float dl = sub_block_scale(block_pairs[BLOCK_PAIRS * b], l / 32);
    return four_values(block_uints[2 * BLOCK_PAIRS * b + 2 + (16 * (l / 32) + l % 16) / 4], l, dl);
}

// Values i..i+15 (i a multiple of 16: one nibble of each of a sub-block's 16
// qs bytes) with one decode of the scale and two loads of their indices
// (the matmuls' fetch).
#define HAS_DEQUANT16
mat4 dequant16(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK, q = BLOCK_PAIRS * b + 1 + 2 * (l / 32);
    const float dl = sub_block_scale(block_pairs[BLOCK_PAIRS * b], l / 32);
    const uvec4 qs = uvec4(block_pairs[q], block_pairs[q + 1]);
    mat4 w;
    for (uint j = 0; j < 4; ++j) w[j] = four_values(qs[j], l, dl);
    return w;
}
