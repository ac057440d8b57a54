// IQ4_XS: super-blocks of 256 values in 8 sub-blocks of 32, each with a signed
// 6-bit scale (stored + 32: low 4 bits in nibble j%2 of scales_l[j/2], high 2
// bits at bit 2j of scales_h), and 4-bit indices into IQ4_NL's table (each
// sub-block's 16 bytes: values 0..15 in the low nibbles, 16..31 in the high);
// value = (d * scale) * table[index].
#include "weight_type.glsl"
#include "iq4_values.glsl"

#define QK 256
struct Block {
    float16_t d;
    uint16_t scales_h;
    uint8_t scales_l[4];
    uint8_t qs[128];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK, sub = l / 32;
    const uint low = (uint(weights[b].scales_l[sub / 2]) >> (4 * (sub % 2))) & 0xFu;
    const uint high = (uint(weights[b].scales_h) >> (2 * sub)) & 3u;
    const float dl = float(weights[b].d) * float(int(low | (high << 4)) - 32);
    const uint q = 16 * sub + l % 16, shift = l % 32 / 16 * 4;
    const uvec4 bytes = uvec4(weights[b].qs[q], weights[b].qs[q + 1], weights[b].qs[q + 2], weights[b].qs[q + 3]);
    return dl * iq4_values((bytes >> shift) & 0xFu);
}
