// Q5_1: blocks of 32 values, an fp16 scale d and minimum m and 5-bit q packed
// as Q5_0's; value = q * d + m.
// Blocks are 24 bytes, 8-byte aligned: 3 pairs of words, the head (d and m,
// then qh) and 2 of qs; read as such (one load of the head, one of 4 values'
// q, two of 16 values' q) instead of halves and bytes.
#include "weight_type.glsl"
#include "byte_floats.glsl"
#include "nibbles32.glsl"

#define QK 32
const uint BLOCK_PAIRS = 3;
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights64 { uvec2 block_pairs[]; };
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights32 { uint block_uints[]; };

// Values i..i+3 from their qs word and the head (d and m, qh).
vec4 four_values(uint qs, uint i, uvec2 head) {
    const vec2 dm = unpackHalf2x16(head.x);
    return byte_floats(nibbles4(qs, i) | fifth_bits4(head.y >> (i % 32)), 0.0) * dm.x + dm.y;
}

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK;
    return four_values(block_uints[2 * BLOCK_PAIRS * b + 2 + i % 16 / 4], i, block_pairs[BLOCK_PAIRS * b]);
}

// Values i..i+15 (i a multiple of 16: one nibble of each of the block's 16
// qs bytes) from 3 loads, the head and the qs (the matmuls' fetch).
#define HAS_DEQUANT16
mat4 dequant16(uint row, uint i) {
    const uint b = row + i / QK;
    const uvec2 head = block_pairs[BLOCK_PAIRS * b];
    const uvec4 qs = uvec4(block_pairs[BLOCK_PAIRS * b + 1], block_pairs[BLOCK_PAIRS * b + 2]);
    mat4 w;
    for (uint j = 0; j < 4; ++j) w[j] = four_values(qs[j], i + 4 * j, head);
    return w;
}
