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

#include "nibbles32.glsl"

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK;
    return float(weights[b].d) * iq4_values(nibbles4(b, i));
}
