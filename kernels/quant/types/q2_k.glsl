// Q2_K: super-blocks of 256 values in 16 sub-blocks of 16, each with a 4-bit
// scale (low nibble of scales[j]) and 4-bit min (high nibble), scaled by the
// fp16 d and dmin; value = (d * scale) * q - dmin * min with 2-bit q. Each 128
// values use 32 bytes of qs, each 32 of them a further bit pair of those bytes.
#include "weight_type.glsl"

#define QK 256
struct Block {
    uint8_t scales[16];
    uint8_t qs[64];
    float16_t d, dmin;
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK;
    const uint sc = weights[b].scales[l / 16];
    const float scale = float(weights[b].d) * float(sc & 0xFu), m = float(weights[b].dmin) * float(sc >> 4);
    const uint q = 32 * (l / 128) + l % 32, shift = l % 128 / 32 * 2;
    const uvec4 bytes = uvec4(weights[b].qs[q], weights[b].qs[q + 1], weights[b].qs[q + 2], weights[b].qs[q + 3]);
    return scale * vec4((bytes >> shift) & 3u) - m;
}
