// TQ2_0: ternary blocks of 256 values, a 2-bit q in 0..2 per value and an
// fp16 scale d; value = (q - 1) * d. Each 128 values use 32 bytes of qs:
// value 32k + l of them is at bits 2k of byte l.
#include "weight_type.glsl"

#define QK 256
struct Block {
    uint8_t qs[64];
    float16_t d;
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, v = i % QK, at = 32 * (v / 128) + v % 32, shift = 2 * (v % 128 / 32);
    const uvec4 bytes = uvec4(weights[b].qs[at], weights[b].qs[at + 1], weights[b].qs[at + 2], weights[b].qs[at + 3]);
    return (vec4((bytes >> shift) & 3u) - 1.0) * float(weights[b].d);
}
