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

// Four values from their ql and qh bytes (k: which 32 of their 128 values).
vec4 six_bit_values(uvec4 low, uvec4 high, uint k, float dl) {
    const uvec4 q = ((low >> (4 * (k / 2))) & 0xFu) | (((high >> (2 * k)) & 3u) << 4);
    return dl * (vec4(q) - 32.0);
}

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK, k = l % 128 / 32;
    const float dl = float(weights[b].d) * float(weights[b].scales[l / 16]);
    const uint lo = 64 * (l / 128) + l % 32 + 32 * (k % 2), hi = 32 * (l / 128) + l % 32;
    const uvec4 low = uvec4(weights[b].ql[lo], weights[b].ql[lo + 1], weights[b].ql[lo + 2], weights[b].ql[lo + 3]);
    const uvec4 high = uvec4(weights[b].qh[hi], weights[b].qh[hi + 1], weights[b].qh[hi + 2], weights[b].qh[hi + 3]);
    return six_bit_values(low, high, k, dl);
}

// matvec (shaders/quant/matvec.glsl): 16 chunks per super-block, chunk c of
// the 128 values 128h.. (h = c / 8) values 128h + 4q + 32k + (0..3) for
// piece k (q = c % 8): 4 bytes each of ql and qh, 16-bit loads (blocks are
// 2-byte aligned).
#define MV_QK 256
#define MV_CHUNKS 16
#define MV_PIECES 4
#include "byte_floats.glsl"

struct Block16 {
    uint16_t ql[64];
    uint16_t qh[32];
    uint8_t scales[16];  // int8
    float16_t d;
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights16 { Block16 weights16[]; };

// Values i..i+15 (i a multiple of 16: one sub-block), as 4 dequant4s, from
// 16-bit loads of ql and qh (the tensor-core matmul's fetch).
#define HAS_DEQUANT16
mat4 dequant16(uint row, uint i) {
    const uint b = row + i / QK, l = i % QK, k = l % 128 / 32;
    const float dl = float(weights[b].d) * float(weights[b].scales[l / 16]);
    const uint lo = (64 * (l / 128) + l % 32 + 32 * (k % 2)) / 2, hi = (32 * (l / 128) + l % 32) / 2;
    mat4 w;
    for (uint j = 0; j < 4; ++j) {
        const uvec2 l2 = uvec2(weights16[b].ql[lo + 2 * j], weights16[b].ql[lo + 2 * j + 1]);
        const uvec2 h2 = uvec2(weights16[b].qh[hi + 2 * j], weights16[b].qh[hi + 2 * j + 1]);
        const uvec4 low = uvec4(l2.x, l2.x >> 8, l2.y, l2.y >> 8) & 0xFFu;
        const uvec4 high = uvec4(h2.x, h2.x >> 8, h2.y, h2.y >> 8) & 0xFFu;
        w[j] = six_bit_values(low, high, k, dl);
    }
    return w;
}

struct MvChunk {
    vec4 dl;  // d * scale of each piece
    uint ql[2], qh;
};
MvChunk mv_load(uint row, uint blk, uint c) {
    const uint b = row + blk, h = c / 8, q = c % 8, lo = 32 * h + 2 * q, hi = 16 * h + 2 * q;
    const uint s = 8 * h + q / 4;
    const uint scales = uint(weights16[b].scales[s]) | uint(weights16[b].scales[s + 2]) << 8 |
                        uint(weights16[b].scales[s + 4]) << 16 | uint(weights16[b].scales[s + 6]) << 24;
    return MvChunk(float(weights16[b].d) * byte_floats(scales ^ 0x80808080u, 128.0),  // signed bytes
                   uint[2](uint(weights16[b].ql[lo]) | uint(weights16[b].ql[lo + 1]) << 16,
                           uint(weights16[b].ql[lo + 16]) | uint(weights16[b].ql[lo + 17]) << 16),
                   uint(weights16[b].qh[hi]) | uint(weights16[b].qh[hi + 1]) << 16);
}
float mv_dot(MvChunk ch, uint k, vec4 x) {
    const uint q = (ch.ql[k % 2] >> (4 * (k / 2)) & 0x0F0F0F0Fu) | (ch.qh >> (2 * k) & 0x03030303u) << 4;
    return ch.dl[k] * dot(byte_floats(q, 32.0), x);
}
uint mv_pos(uint c, uint k) { return 128 * (c / 8) + 4 * (c % 8) + 32 * k; }

#ifdef MV_IDOT
#include "int_dot.glsl"
float mv_qdot(MvChunk ch, uint xq[MV_PIECES], int xsum[MV_PIECES]) {
    float s = 0.0;
    for (uint k = 0; k < MV_PIECES; ++k) {
        const uint q = (ch.ql[k % 2] >> (4 * (k / 2)) & 0x0F0F0F0Fu) | (ch.qh >> (2 * k) & 0x03030303u) << 4;
        s += ch.dl[k] * small_int_float(sudot4(xq[k], q) - 32 * xsum[k]);
    }
    return s;
}
#endif
