// BF16: one bfloat16 per block, the top 16 bits of an IEEE float.
#include "weight_type.glsl"

#define QK 1
struct Block {
    uint16_t bits;
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

float bf16(uint b) { return uintBitsToFloat(uint(weights[b].bits) << 16); }

vec4 dequant4(uint row, uint i) {
    const uint b = row + i;
    return vec4(bf16(b), bf16(b + 1), bf16(b + 2), bf16(b + 3));
}
