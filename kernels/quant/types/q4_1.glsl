// Q4_1: blocks of 32 values, an fp16 scale d and minimum m and 4-bit q
// (nibbles as Q4_0); value = q * d + m.
#include "weight_type.glsl"

#define QK 32
struct Block {
    float16_t d, m;
    uint8_t qs[16];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, j = i % 16, shift = i % QK / 16 * 4;
    const uvec4 bytes = uvec4(weights[b].qs[j], weights[b].qs[j + 1], weights[b].qs[j + 2], weights[b].qs[j + 3]);
    return vec4((bytes >> shift) & 0xFu) * float(weights[b].d) + float(weights[b].m);
}
