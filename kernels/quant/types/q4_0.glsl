// Q4_0: blocks of 32 values, an fp16 scale d and 4-bit q (value j in the low
// nibble of qs[j], value j + 16 in its high nibble); value = (q - 8) * d.
#include "weight_type.glsl"

#define QK 32
struct Block {
    float16_t d;
    uint8_t qs[16];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

#include "nibbles32.glsl"

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK;
    return (vec4(nibbles4(b, i)) - 8.0) * float(weights[b].d);
}
