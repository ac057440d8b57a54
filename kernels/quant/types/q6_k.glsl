// Q6_K: super-blocks of 256 values in 16 sub-blocks of 16, each with a signed
// 8-bit scale, scaled by the fp16 d; value = (d * scale) * (q - 32) with 6-bit
// q. Each 128 values use 64 bytes of ql and 32 of qh: value l + 32k of them
// (l < 32, k < 4) has its low 4 bits in nibble k/2 of ql[l + 32*(k%2)] and
// its high 2 bits at bit 2k of qh[l].
#include "weight_type.glsl"

#define QK 256
struct Block {
    uint8_t ql[128];
    uint8_t qh[64];
    int8_t scales[16];
    float16_t d;
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK, k = l % 128 / 32;
    const float dl = float(weights[b].d) * float(weights[b].scales[l / 16]);
    const uint lo = 64 * (l / 128) + l % 32 + 32 * (k % 2), hi = 32 * (l / 128) + l % 32;
    const uvec4 low = uvec4(weights[b].ql[lo], weights[b].ql[lo + 1], weights[b].ql[lo + 2], weights[b].ql[lo + 3]);
    const uvec4 high = uvec4(weights[b].qh[hi], weights[b].qh[hi + 1], weights[b].qh[hi + 2], weights[b].qh[hi + 3]);
    const uvec4 q = ((low >> (4 * (k / 2))) & 0xFu) | (((high >> (2 * k)) & 3u) << 4);
    return dl * (vec4(q) - 32.0);
}
