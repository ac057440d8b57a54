// Q4_0: blocks of 32 values, an fp16 scale d and 4-bit q (value j in the low
// nibble of qs[j], value j + 16 in its high nibble); value = (q - 8) * d.
// On the GPU the blocks are regrouped (Q4_0::GpuGroups,
// kernels/quant/gpu_layout.hpp): groups of 8 blocks, their qs (16 bytes each,
// 16-byte aligned), then their d.
#include "weight_type.glsl"
#include "byte_floats.glsl"

#define QK 32
// The tensor-core matmul with workgroup-scope matrices was faster for this
// type than the subgroup one (docs/vulkan.md#workgroup-scope): build it.
#define MATMUL_WORKGROUP_SCOPE
struct Group {
    uvec4 qs[8];
    float16_t d[8];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Group groups[]; };

float block_d(uint b) { return float(groups[b / 8].d[b % 8]); }
// q - 8 of the 4 nibbles at bit `shift` of each byte of a qs word.
vec4 nibble_values(uint word, uint shift) { return byte_floats(word >> shift & 0x0F0F0F0Fu, 8.0); }

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, j = i % 16, shift = i % 32 / 16 * 4;
    return nibble_values(groups[b / 8].qs[b % 8][j / 4], shift) * block_d(b);
}

// Values i..i+15 (i a multiple of 16: one nibble of each of a block's 16
// qs bytes) from one 16-byte load (the tensor-core matmul's fetch).
#define HAS_DEQUANT16
mat4 dequant16(uint row, uint i) {
    const uint b = row + i / QK, shift = i % 32 / 16 * 4;
    const uvec4 qs = groups[b / 8].qs[b % 8];
    const float d = block_d(b);
    mat4 w;
    for (uint j = 0; j < 4; ++j) w[j] = nibble_values(qs[j], shift) * d;
    return w;
}

// matvec (shaders/quant/matvec.glsl): 4 chunks per block, chunk c word c of
// its qs (values 4c.. in the low nibbles, 16 + 4c.. in the high ones), so
// that a subgroup reads a group's qs as one run of 128 bytes and
// neighbouring threads load neighbouring pieces of x (a whole block per
// thread puts their loads of x 128 bytes apart: docs/measured-choices.md#q4_0-matvec-chunks).
#define MV_QK 32
#define MV_CHUNKS 4
#define MV_PIECES 2

struct MvChunk {
    float d;
    uint qs;
};
MvChunk mv_load(uint row, uint blk, uint c) {
    const uint b = row + blk;
    return MvChunk(block_d(b), groups[b / 8].qs[b % 8][c]);
}
float mv_dot(MvChunk ch, uint j, vec4 x) { return ch.d * dot(nibble_values(ch.qs, 4 * j), x); }
uint mv_pos(uint c, uint j) { return 4 * c + 16 * j; }

#ifdef MV_IDOT
#include "int_dot.glsl"
float mv_qdot(MvChunk ch, uint xq[MV_PIECES], int xsum[MV_PIECES]) {
    const int s = sudot4(xq[0], ch.qs & 0x0F0F0F0Fu) + sudot4(xq[1], ch.qs >> 4 & 0x0F0F0F0Fu);
    return ch.d * small_int_float(s - 8 * (xsum[0] + xsum[1]));
}
#endif

#ifdef MV_STAGED
// The staged matvec (shaders/matvec_staged.glsl): a unit is a block, its qs
// one 16-byte load.
#define MV_UNIT_BLOCKS 1
#include "staged_x.glsl"
struct MvUnit {
    uvec4 qs;
    float d;
};
MvUnit mv_unit(uint row, uint u) {
    const uint b = row + u;
    return MvUnit(groups[b / 8].qs[b % 8], block_d(b));
}
#ifdef MV_IDOT
float mv_unit_dot(MvUnit w, MvX x) {
    int s = 0;
    for (uint j = 0; j < 4; ++j)
        s += sudot4(x.lo[0][j], w.qs[j] & 0x0F0F0F0Fu) + sudot4(x.hi[0][j], w.qs[j] >> 4 & 0x0F0F0F0Fu);
    return w.d * x.d[0] * (small_int_float(s) - 8.0 * x.sum[0]);
}
#endif
#ifdef MV_STAGED_F32
float mv_unit_dot(MvUnit w, MvX x) {
    float s = 0.0;
    for (uint j = 0; j < 4; ++j) s += dot(nibble_values(w.qs[j], 0), x.v[j]) + dot(nibble_values(w.qs[j], 4), x.v[4 + j]);
    return w.d * s;
}
#endif
#endif
