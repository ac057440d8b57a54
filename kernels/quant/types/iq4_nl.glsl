// IQ4_NL: blocks of 32 values, an fp16 scale d and 4-bit indices (nibbles as
// Q4_0) into a fixed non-linear table; value = d * table[index].
#include "weight_type.glsl"
#include "iq4_values.glsl"

#define QK 32
struct Block {
    float16_t d;
    uint8_t qs[16];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, j = i % 16, shift = i % QK / 16 * 4;
    const uvec4 bytes = uvec4(weights[b].qs[j], weights[b].qs[j + 1], weights[b].qs[j + 2], weights[b].qs[j + 3]);
    return float(weights[b].d) * iq4_values((bytes >> shift) & 0xFu);
}
