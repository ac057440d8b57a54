// Q5_0: blocks of 32 values, an fp16 scale d and 5-bit q: the low 4 bits as
// Q4_0's nibbles, bit 4 of value j in bit j of qh (little-endian 32 bits);
// value = (q - 16) * d.
#include "weight_type.glsl"

#define QK 32
struct Block {
    float16_t d;
    uint8_t qh[4];
    uint8_t qs[16];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

#include "nibbles32.glsl"

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK;
    const uvec4 high = (uvec4(weights[b].qh[i % QK / 8]) >> (i % 8 + uvec4(0, 1, 2, 3))) & 1u;
    return (vec4(nibbles4(b, i) | (high << 4)) - 16.0) * float(weights[b].d);
}
