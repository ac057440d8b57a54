// Q4_0: blocks of 32 values, an fp16 scale d and 4-bit q (value j in the low
// nibble of qs[j], value j + 16 in its high nibble); value = (q - 8) * d.
#include "weight_type.glsl"

#define QK 32
struct Block {
    float16_t d;
    uint8_t qs[16];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

#include "nibbles32.glsl"

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK;
    return (vec4(nibbles4(b, i)) - 8.0) * float(weights[b].d);
}

// matvec (shaders/quant/matvec.glsl): 4 chunks per block, chunk c the low
// and high nibbles of qs[4c..4c+3] (values 4c.. and 16 + 4c..), loaded as
// 16 bits (blocks are 2-byte aligned).
#define MV_QK 32
#define MV_CHUNKS 4
#define MV_PIECES 2
#include "byte_floats.glsl"

struct Block16 {
    float16_t d;
    uint16_t qs[8];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights16 { Block16 weights16[]; };

struct MvChunk {
    float d;
    uint qs;  // 4 bytes
};
MvChunk mv_load(uint row, uint blk, uint c) {
    const uint b = row + blk;
    return MvChunk(float(weights16[b].d), uint(weights16[b].qs[2 * c]) | uint(weights16[b].qs[2 * c + 1]) << 16);
}
float mv_dot(MvChunk ch, uint j, vec4 x) { return ch.d * dot(byte_floats(ch.qs >> (4 * j) & 0x0F0F0F0Fu, 8.0), x); }
uint mv_pos(uint c, uint j) { return 4 * c + 16 * j; }
