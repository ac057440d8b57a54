// Q5_K: super-blocks of 256 values in 8 sub-blocks of 32, scales and mins as
// Q4_K's; value = (d * scale) * q - dmin * min with 5-bit q: the low 4 bits
// packed as Q4_K's qs, bit 4 of value i in bit i/32 of qh[i%32].
#include "weight_type.glsl"

#define QK 256
struct Block {
    float16_t d, dmin;
    uint8_t scales[12];
    uint8_t qh[32];
    uint8_t qs[128];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

#include "kquant_scale_min.glsl"

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK;
    const uvec2 sm = scale_min(b, l / 32);
    const float scale = float(weights[b].d) * float(sm.x), m = float(weights[b].dmin) * float(sm.y);
    const uint q = 32 * (l / 64) + l % 32, shift = l % 64 / 32 * 4, h = l % 32;
    const uvec4 bytes = uvec4(weights[b].qs[q], weights[b].qs[q + 1], weights[b].qs[q + 2], weights[b].qs[q + 3]);
    const uvec4 hbytes = uvec4(weights[b].qh[h], weights[b].qh[h + 1], weights[b].qh[h + 2], weights[b].qh[h + 3]);
    const uvec4 v = ((bytes >> shift) & 0xFu) | (((hbytes >> (l / 32)) & 1u) << 4);
    return scale * vec4(v) - m;
}
