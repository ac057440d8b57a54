// Q4_K: super-blocks of 256 values in 8 sub-blocks of 32, each with a 6-bit
// scale and min (see kquant_scale_min.glsl) scaled by the fp16 d and dmin;
// value = (d * scale) * q - dmin * min with 4-bit q. Each 64 values use 32
// bytes of qs: the first 32 values their low nibbles, the next 32 the high.
#include "weight_type.glsl"

#define QK 256
struct Block {
    float16_t d, dmin;
    uint8_t scales[12];
    uint8_t qs[128];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

#include "kquant_scale_min.glsl"

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK;
    const uvec2 sm = scale_min(b, l / 32);
    const float scale = float(weights[b].d) * float(sm.x), m = float(weights[b].dmin) * float(sm.y);
    const uint q = 32 * (l / 64) + l % 32, shift = l % 64 / 32 * 4;
    const uvec4 bytes = uvec4(weights[b].qs[q], weights[b].qs[q + 1], weights[b].qs[q + 2], weights[b].qs[q + 3]);
    return scale * vec4((bytes >> shift) & 0xFu) - m;
}
