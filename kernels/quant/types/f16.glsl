// F16: one IEEE binary16 per block.
#include "weight_type.glsl"

#define QK 1
// The tensor-core matmul with workgroup-scope matrices was faster for this
// type than the subgroup one (docs/vulkan.md#workgroup-scope): build it.
#define MATMUL_WORKGROUP_SCOPE
struct Block {
    float16_t v;
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i;
    return vec4(weights[b].v, weights[b + 1].v, weights[b + 2].v, weights[b + 3].v);
}

// The tensor-core matmul (shaders/quant/matmul_coopmat.glsl) copies values
// i..i+3 to its fp16 tile as they are, one 8-byte load (its rows start 8-byte
// aligned: graph/vulkan/kernels/matmul.cpp): no widening and narrowing.
#define HAS_RAW_HALVES
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights4 { uvec2 weights4[]; };
uvec2 raw_halves4(uint row, uint i) { return weights4[(row + i) / 4]; }

// matvec (shaders/quant/matvec.glsl): 8 values per chunk, one 16-byte load
// where the row starts 16-byte aligned, else 8 2-byte loads.
layout(binding = WEIGHTS_BINDING, std430) readonly buffer Weights8 { uvec4 weights8[]; };
#define MV_QK 8
#define MV_CHUNKS 1
#define MV_PIECES 2
struct MvChunk {
    uvec4 h;  // 8 halves
};
MvChunk mv_load(uint row, uint blk, uint c) {
    if (row % 8 == 0) return MvChunk(weights8[(row + 8 * blk) / 8]);
    const vec4 a = dequant4(row, 8 * blk), b = dequant4(row, 8 * blk + 4);  // exact: halves widened
    return MvChunk(uvec4(packHalf2x16(a.xy), packHalf2x16(a.zw), packHalf2x16(b.xy), packHalf2x16(b.zw)));
}
float mv_dot(MvChunk ch, uint j, vec4 x) {
    return dot(vec4(unpackHalf2x16(ch.h[2 * j]), unpackHalf2x16(ch.h[2 * j + 1])), x);
}
uint mv_pos(uint c, uint j) { return 4 * j; }
