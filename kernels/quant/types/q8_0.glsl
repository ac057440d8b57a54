// Q8_0: blocks of 32 signed bytes q and an fp16 scale d; value = q * d.
#include "weight_type.glsl"

#define QK 32
struct Block {
    float16_t d;
    int8_t qs[32];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, j = i % QK;
    const vec4 q = vec4(weights[b].qs[j], weights[b].qs[j + 1], weights[b].qs[j + 2], weights[b].qs[j + 3]);
    return q * float(weights[b].d);
}

// matvec (shaders/quant/matvec.glsl): 4 chunks per block, chunk c
// qs[4c..4c+3] and qs[16 + 4c..], loaded as 16 bits (blocks are 2-byte
// aligned).
#define MV_QK 32
#define MV_CHUNKS 4
#define MV_PIECES 2
#include "byte_floats.glsl"

struct Block16 {
    float16_t d;
    uint16_t qs[16];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights16 { Block16 weights16[]; };

struct MvChunk {
    float d;
    uint qs[2];  // 4 bytes each
};
MvChunk mv_load(uint row, uint blk, uint c) {
    const uint b = row + blk;
    uint qs[2];
    for (uint j = 0; j < 2; ++j)
        qs[j] = uint(weights16[b].qs[2 * c + 8 * j]) | uint(weights16[b].qs[2 * c + 8 * j + 1]) << 16;
    return MvChunk(float(weights16[b].d), qs);
}
// Signed bytes b as b ^ 0x80 = b + 128.
float mv_dot(MvChunk ch, uint j, vec4 x) { return ch.d * dot(byte_floats(ch.qs[j] ^ 0x80808080u, 128.0), x); }
uint mv_pos(uint c, uint j) { return 4 * c + 16 * j; }
