// Q3_K: super-blocks of 256 values in 16 sub-blocks of 16, each with a signed
// 6-bit scale (stored + 32: low 4 bits in nibble j/8 of scales[j%8], high 2
// bits at bit 2*(j/4) of scales[8 + j%4]), scaled by the fp16 d; value =
// (d * scale) * q with 3-bit q in -4..3: its low 2 bits packed as Q2_K's qs,
// and q + 4 = low + 4 * high, with high bit i/32 of hmask[i%32].
#include "weight_type.glsl"

#define QK 256
struct Block {
    uint8_t hmask[32];
    uint8_t qs[64];
    uint8_t scales[12];
    float16_t d;
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK, sub = l / 16;
    const uint low = (uint(weights[b].scales[sub % 8]) >> (4 * (sub / 8))) & 0xFu;
    const uint high = (uint(weights[b].scales[8 + sub % 4]) >> (2 * (sub / 4))) & 3u;
    const float dl = float(weights[b].d) * float(int(low | (high << 4)) - 32);
    const uint q = 32 * (l / 128) + l % 32, shift = l % 128 / 32 * 2, h = l % 32;
    const uvec4 bytes = uvec4(weights[b].qs[q], weights[b].qs[q + 1], weights[b].qs[q + 2], weights[b].qs[q + 3]);
    const uvec4 hbytes = uvec4(weights[b].hmask[h], weights[b].hmask[h + 1], weights[b].hmask[h + 2], weights[b].hmask[h + 3]);
    const ivec4 v = ivec4((bytes >> shift) & 3u) + ivec4(((hbytes >> (l / 32)) & 1u) * 4u) - 4;
    return dl * vec4(v);
}
