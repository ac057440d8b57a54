// Q8_0: blocks of 32 signed bytes q and an fp16 scale d; value = q * d.
// On the GPU the blocks are regrouped (Q8_0::GpuGroups,
// kernels/quant/gpu_layout.hpp): groups of 8 blocks, their qs (32 bytes
// each, 16-byte aligned), then their d.
#include "weight_type.glsl"
#include "byte_floats.glsl"

#define QK 32
// The tensor-core matmul with workgroup-scope matrices was faster for this
// type than the subgroup one (docs/vulkan.md#workgroup-scope): build it.
#define MATMUL_WORKGROUP_SCOPE
struct Group {
    uint qs[8][8];
    float16_t d[8];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Group groups[]; };

// Signed bytes b as b ^ 0x80 = b + 128.
vec4 signed_bytes(uint w) { return byte_floats(w ^ 0x80808080u, 128.0); }

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK;
    return signed_bytes(groups[b / 8].qs[b % 8][i % QK / 4]) * float(groups[b / 8].d[b % 8]);
}

// matvec (shaders/quant/matvec.glsl): 4 chunks per block, chunk c words c
// and c + 4 of its qs (values 4c.. and 16 + 4c..): a subgroup reads a
// group's qs as runs of 128 bytes.
#define MV_QK 32
#define MV_CHUNKS 4
#define MV_PIECES 2

struct MvChunk {
    float d;
    uint qs[2];
};
MvChunk mv_load(uint row, uint blk, uint c) {
    const uint b = row + blk;
    return MvChunk(float(groups[b / 8].d[b % 8]), uint[2](groups[b / 8].qs[b % 8][c], groups[b / 8].qs[b % 8][c + 4]));
}
float mv_dot(MvChunk ch, uint j, vec4 x) { return ch.d * dot(signed_bytes(ch.qs[j]), x); }
uint mv_pos(uint c, uint j) { return 4 * c + 16 * j; }

#ifdef MV_IDOT
#include "int_dot.glsl"
float mv_qdot(MvChunk ch, uint xq[MV_PIECES], int xsum[MV_PIECES]) {
    return ch.d * small_int_float(sdot4(xq[0], ch.qs[0]) + sdot4(xq[1], ch.qs[1]));
}
#endif

#ifdef MV_STAGED
// The staged matvec (shaders/matvec_staged.glsl): a unit is a block, its qs
// two 16-byte loads (a group is 17 of them: 8 blocks' qs, then their d).
#define MV_UNIT_BLOCKS 1
#include "staged_x.glsl"
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights16 { uvec4 group_words[]; };
struct MvUnit {
    uvec4 lo, hi;
    float d;
};
MvUnit mv_unit(uint row, uint u) {
    const uint b = row + u, at = b / 8 * 17 + b % 8 * 2;
    return MvUnit(group_words[at], group_words[at + 1], float(groups[b / 8].d[b % 8]));
}
#ifdef MV_IDOT
float mv_unit_dot(MvUnit w, MvX x) {
    int s = 0;
    for (uint j = 0; j < 4; ++j) s += sdot4(x.lo[0][j], w.lo[j]) + sdot4(x.hi[0][j], w.hi[j]);
    return w.d * x.d[0] * small_int_float(s);
}
#endif
#ifdef MV_STAGED_F32
float mv_unit_dot(MvUnit w, MvX x) {
    float s = 0.0;
    for (uint j = 0; j < 4; ++j) s += dot(signed_bytes(w.lo[j]), x.v[j]) + dot(signed_bytes(w.hi[j]), x.v[4 + j]);
    return w.d * s;
}
#endif
#endif
