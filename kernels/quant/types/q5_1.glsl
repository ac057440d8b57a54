// Q5_1: blocks of 32 values, an fp16 scale d and minimum m and 5-bit q packed
// as Q5_0's; value = q * d + m.
#include "weight_type.glsl"

#define QK 32
struct Block {
    float16_t d, m;
    uint8_t qh[4];
    uint8_t qs[16];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, j = i % 16, shift = i % QK / 16 * 4;
    const uvec4 bytes = uvec4(weights[b].qs[j], weights[b].qs[j + 1], weights[b].qs[j + 2], weights[b].qs[j + 3]);
    const uvec4 high = (uvec4(weights[b].qh[i % QK / 8]) >> (i % 8 + uvec4(0, 1, 2, 3))) & 1u;
    return vec4(((bytes >> shift) & 0xFu) | (high << 4)) * float(weights[b].d) + float(weights[b].m);
}
