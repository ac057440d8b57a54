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

#include "nibbles32.glsl"

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK;
    const uvec4 high = (uvec4(weights[b].qh[i % QK / 8]) >> (i % 8 + uvec4(0, 1, 2, 3))) & 1u;
    return vec4(nibbles4(b, i) | (high << 4)) * float(weights[b].d) + float(weights[b].m);
}
