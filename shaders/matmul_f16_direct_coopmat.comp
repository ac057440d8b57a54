// y = W x for many tokens on the tensor cores, W F16: each subgroup loads its
// cooperative matrices straight from W and from x's fp16 copy (no shared
// tiles, no barriers in the loop). For tiles that divide the matrix
// (graph/vulkan/kernels/matmul.cpp checks): BM rows by BN tokens, each
// subgroup 2 x 2 matrices of CM x CN.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#include "common.glsl"
#include "matmul_args.glsl"

layout(constant_id = 1) const uint BM = 64;
layout(constant_id = 2) const uint BN = 64;
const uint BK = 64;  // values per step (4 of CK), all loaded before any multiply
layout(constant_id = 4) const uint CM = 16;
layout(constant_id = 5) const uint CN = 16;
layout(constant_id = 6) const uint CK = 16;
const uint WM = 2 * CM, WN = 2 * CN;

layout(binding = 0, scalar) readonly buffer W { uvec4 w8[]; };   // 8 fp16 values each
layout(binding = 1, scalar) readonly buffer X { uvec4 x8[]; };
layout(binding = 2, scalar) writeonly buffer Y { float y[]; };

shared float stage[(BM / WM) * (BN / WN) * CM * CN];

#define ACC fcoopmatNV<32, gl_ScopeSubgroup, CM, CN>
#define AMAT fcoopmatNV<16, gl_ScopeSubgroup, CM, CK>
#define BMAT fcoopmatNV<16, gl_ScopeSubgroup, CK, CN>

uvec2 subgroup_part() { return uvec2(gl_SubgroupID % (BM / WM) * WM, gl_SubgroupID / (BM / WM) * WN); }

void store_acc(ACC c, uint i, uint j, uint row0, uint col0, uint y0) {
    const uint at = gl_SubgroupID * CM * CN;
    const uvec2 part = subgroup_part();
    coopMatStoreNV(c, stage, at, CM, true);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    for (uint e = gl_SubgroupInvocationID; e < CM * CN; e += gl_SubgroupSize) {
        const uint row = row0 + part.x + i * CM + e % CM, col = col0 + part.y + j * CN + e / CM;
        if (row < p.n && col < p.m) y[y0 + col * p.y_nb1 + row] = stage[at + e];
    }
    subgroupBarrier();
}

void main() {
    const uint row0 = flat_group() * BM, col0 = col_group() * BN;
    if (row0 >= p.n) return;
    const uvec2 part = subgroup_part();
    // In 8-value units: W's rows p.w_nb1 values apart, x's rows p.x_nb1.
    const uint wa = (w_row(row0 + part.x)) / 8, ws = p.w_nb1 / 8;
    const uint xa = x_col(col0 + part.y) / 8, xs = p.x_nb1 / 8;
    ACC c00 = ACC(0.0), c01 = c00, c10 = c00, c11 = c00;
    for (uint k0 = 0; k0 < p.k; k0 += BK) {
#define STEP_LOADS(s)                                          \
        AMAT a0_##s, a1_##s;                                   \
        BMAT b0_##s, b1_##s;                                   \
        coopMatLoadNV(a0_##s, w8, wa + (k0 + s * CK) / 8, ws, false);           \
        coopMatLoadNV(a1_##s, w8, wa + CM * ws + (k0 + s * CK) / 8, ws, false); \
        coopMatLoadNV(b0_##s, x8, xa + (k0 + s * CK) / 8, xs, true);            \
        coopMatLoadNV(b1_##s, x8, xa + CN * xs + (k0 + s * CK) / 8, xs, true);
#define STEP_MULS(s)                                \
        c00 = coopMatMulAddNV(a0_##s, b0_##s, c00); \
        c01 = coopMatMulAddNV(a0_##s, b1_##s, c01); \
        c10 = coopMatMulAddNV(a1_##s, b0_##s, c10); \
        c11 = coopMatMulAddNV(a1_##s, b1_##s, c11);
        STEP_LOADS(0) STEP_LOADS(1) STEP_LOADS(2) STEP_LOADS(3)
        STEP_MULS(0) STEP_MULS(1) STEP_MULS(2) STEP_MULS(3)
    }
    const uint y0 = y_col(0);
    store_acc(c00, 0, 0, row0, col0, y0);
    store_acc(c01, 0, 1, row0, col0, y0);
    store_acc(c10, 1, 0, row0, col0, y0);
    store_acc(c11, 1, 1, row0, col0, y0);
}
