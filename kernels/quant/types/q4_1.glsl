// Q4_1: blocks of 32 values, an fp16 scale d and minimum m and 4-bit q
// (nibbles as Q4_0); value = q * d + m.
#include "weight_type.glsl"

#define QK 32
struct Block {
    float16_t d, m;
    uint8_t qs[16];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

#include "nibbles32.glsl"

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK;
    return vec4(nibbles4(b, i)) * float(weights[b].d) + float(weights[b].m);
}
