// y = W x for many tokens (ops/matmul.hpp), W of the weight type included
// before this skeleton: compute bound, so tiled. A workgroup computes BM rows
// of W by BN tokens. Per step of BK values, its threads dequantize W's BM x BK
// tile and copy x's BN x BK tile into shared memory, then each thread adds
// that step to its TM x TN block of the tile. A thread's rows (and tokens)
// are strided across the tile so that neighbouring threads read neighbouring
// shared words; the tiles' rows are padded to BK + 1 words for the same reason.
//
// With EXPERTS (matmul_id, graph/vulkan/kernels/matmul_id.cpp) the batch is
// an expert: the workgroup's columns are that expert's slots, listed by
// shaders/matmul_id_route.comp in `route`, BN at a time; a slot s is token
// s / ne2's x row s % ne2 (x_nb2 0: the token's one row) and y row.
#include "common.glsl"
#include "matmul_args.glsl"

layout(constant_id = 1) const uint BM = 64;
layout(constant_id = 2) const uint BN = 64;
layout(constant_id = 3) const uint BK = 16;  // a multiple of 4
layout(constant_id = 4) const uint TM = 4;
layout(constant_id = 5) const uint TN = 4;   // workgroup size = (BM / TM) * (BN / TN)
layout(constant_id = 6) const bool EXPERTS = false;

layout(binding = 1, scalar) readonly buffer X { float x[]; };
// EXPERTS: the route, from ids_first (dst_ne1 experts); else x again.
layout(binding = 2, scalar) readonly buffer Route { uint route[]; };
layout(binding = 3, scalar) writeonly buffer Y { float y[]; };

const uint STRIDE = BK + 1;
shared float wtile[BM * STRIDE];
shared float xtile[BN * STRIDE];

// Where column c (a token, or with EXPERTS an entry of the route's list)
// starts in x and in y.
uint slot_of(uint c) { return route[p.ids_first + p.dst_ne1 + 1 + c]; }
uint x_at(uint c) {
    if (!EXPERTS) return x_col(c);
    const uint s = slot_of(c);
    return p.x_first + s % p.ne2 * p.x_nb2 + s / p.ne2 * p.x_nb3;
}
uint y_at(uint c) {
    if (!EXPERTS) return y_col(c);
    const uint s = slot_of(c);
    return p.y_first + s % p.ne2 * p.y_nb2 + s / p.ne2 * p.y_nb3;
}

// Rows row0.. by columns col0.. of the columns before `cols`.
void tile(uint row0, uint col0, uint cols) {
    const uint t = gl_LocalInvocationID.x, tr = t % (BM / TM), tc = t / (BM / TM);

    float acc[TM][TN];
    for (uint i = 0; i < TM; ++i)
        for (uint j = 0; j < TN; ++j) acc[i][j] = 0.0;

    for (uint k0 = 0; k0 < p.k; k0 += BK) {
        // Values past k are zeros; rows and tokens past the edge repeat the
        // last one (their results are not stored).
#ifdef HAS_DEQUANT16  // 16 values of a row at a time (BK a multiple of 16)
        for (uint v = t; v < BM * BK / 16; v += gl_WorkGroupSize.x) {
            const uint r = v / (BK / 16), kk = v % (BK / 16) * 16;
            const mat4 w = k0 + kk < p.k ? dequant16(w_row(min(row0 + r, p.n - 1)), k0 + kk) : mat4(0.0);
            for (uint e = 0; e < 16; ++e) wtile[r * STRIDE + kk + e] = w[e / 4][e % 4];
        }
#else
        for (uint v = t; v < BM * BK / 4; v += gl_WorkGroupSize.x) {
            const uint r = v / (BK / 4), kk = v % (BK / 4) * 4;
            const vec4 w = k0 + kk < p.k ? dequant4(w_row(min(row0 + r, p.n - 1)), k0 + kk) : vec4(0.0);
            for (uint e = 0; e < 4; ++e) wtile[r * STRIDE + kk + e] = w[e];
        }
#endif
        for (uint v = t; v < BN * BK / 4; v += gl_WorkGroupSize.x) {
            const uint c = v / (BK / 4), kk = v % (BK / 4) * 4;
            const uint at = x_at(min(col0 + c, cols - 1)) + k0 + kk;
            const bool inside = k0 + kk < p.k;
            for (uint e = 0; e < 4; ++e) xtile[c * STRIDE + kk + e] = inside ? x[at + e] : 0.0;
        }
        barrier();
        for (uint kk = 0; kk < BK; ++kk) {
            float a[TM], b[TN];
            for (uint i = 0; i < TM; ++i) a[i] = wtile[(tr + i * (BM / TM)) * STRIDE + kk];
            for (uint j = 0; j < TN; ++j) b[j] = xtile[(tc + j * (BN / TN)) * STRIDE + kk];
            for (uint i = 0; i < TM; ++i)
                for (uint j = 0; j < TN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
        barrier();
    }

    for (uint j = 0; j < TN; ++j) {
        const uint col = col0 + tc + j * (BN / TN);
        if (col >= cols) continue;
        const uint yc = y_at(col);
        for (uint i = 0; i < TM; ++i) {
            const uint row = row0 + tr + i * (BM / TM);
            if (row < p.n) y[yc + row] = acc[i][j];
        }
    }
}

void main() {
    const uint row0 = flat_group() * BM;
    if (row0 >= p.n) return;  // a split grid's spare groups
    if (EXPERTS) {  // the same bounds in the whole workgroup: its barriers stay uniform
        w_expert = batch_index();
        const uint end = route[p.ids_first + w_expert + 1];
        for (uint col0 = route[p.ids_first + w_expert]; col0 < end; col0 += BN) tile(row0, col0, end);
    } else {
        tile(row0, col_group() * BN, p.m);
    }
}
