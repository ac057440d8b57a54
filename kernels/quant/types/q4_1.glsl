// Q4_1: blocks of 32 values, an fp16 scale d and minimum m and 4-bit q
// (nibbles as Q4_0); value = q * d + m.
// Blocks are 20 bytes, 5 words: d and m, then 4 of qs; read as words (one
// load of d and m, one of 4 values' q) instead of halves and bytes.
#include "weight_type.glsl"
#include "byte_floats.glsl"
#include "nibbles32.glsl"

#define QK 32
const uint BLOCK_WORDS = 5;
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights32 { uint block_uints[]; };

vec2 block_dm(uint b) { return unpackHalf2x16(block_uints[BLOCK_WORDS * b]); }
vec4 four_values(uint qs, uint i, vec2 dm) { return byte_floats(nibbles4(qs, i), 0.0) * dm.x + dm.y; }

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK;
    return four_values(block_uints[BLOCK_WORDS * b + 1 + i % 16 / 4], i, block_dm(b));
}

// Values i..i+15 (i a multiple of 16: one nibble of each of the block's 16
// qs bytes) from one load of d and m and one per qs word (the matmuls' fetch).
#define HAS_DEQUANT16
mat4 dequant16(uint row, uint i) {
    const uint b = row + i / QK;
    const vec2 dm = block_dm(b);
    mat4 w;
    for (uint j = 0; j < 4; ++j) w[j] = four_values(block_uints[BLOCK_WORDS * b + 1 + j], i, dm);
    return w;
}
