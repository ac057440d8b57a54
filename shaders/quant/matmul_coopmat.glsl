// y = W x for many tokens on the tensor cores (GL_NV_cooperative_matrix), W
// of the weight type included before this skeleton; built only where
// glslang compiles the extension (codegen/shaders.cmake), run only on a
// device that reports it (graph/vulkan/kernels/matmul.cpp).
//
// A workgroup computes BM rows of W by BN tokens, each subgroup a WM x WN
// part of them as COOP_ROWS x 2 CM x CN cooperative matrices with fp32
// accumulators. Per step of BK values the threads dequantize W's BM x BK
// tile and copy x's BN x BK tile into shared memory as fp16, then each
// subgroup multiplies its CM x CK and CK x CN pieces while the loads of the
// next step are in flight (held in registers until the multiplies are done;
// a type that defines FETCH_AFTER_MULTIPLIES loads them after). The tiles are
// double-buffered: the next step's go to the other buffer, so one barrier per
// step suffices. Results go out through a per-subgroup staging matrix in
// shared memory, so that rows and tokens past the edge are not stored.
//
// With WORKGROUP_SCOPE (matmul_workgroup_coopmat.glsl) the whole workgroup
// multiplies one BM x BK matrix of W by two BK x BN/2 ones of x into two
// accumulators of workgroup scope, which the driver lays out over its
// subgroups and tensor cores; they go out through the tiles' memory, one
// after the other.
//
// x comes as an fp16 copy with dense rows (graph/vulkan/kernels/half_copy.hpp):
// the tensor cores take no more, and converting it here cost every workgroup
// of rows the same work again (docs/measured-choices.md#tensor-core-matmuls-x).
//
// With EXPERTS (matmul_id, graph/vulkan/kernels/matmul_id.cpp) the batch is
// an expert, as in matmul.glsl: the workgroup's columns are that expert's
// slots, listed by shaders/matmul_id_route.comp in `route`, a tile of BN at a
// time (column group g of col_groups takes tiles g, g + col_groups, ...); a
// slot s is token s / ne2's x row s % ne2 (x_nb2 0: the token's one row) and
// y row. An expert no slot chose has no tiles: its workgroups return at once.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#include "common.glsl"
#include "matmul_args.glsl"

layout(constant_id = 1) const uint BM = 64;  // a multiple of WM
layout(constant_id = 2) const uint BN = 64;  // a multiple of WN
layout(constant_id = 3) const uint BK = 32;  // a multiple of CK and of 4
layout(constant_id = 4) const uint CM = 16;  // a shape the device lists
layout(constant_id = 5) const uint CN = 16;
layout(constant_id = 6) const uint CK = 16;
// Each subgroup computes COOP_ROWS x 2 cooperative matrices, held in
// variables, never in arrays, which made the kernel slow whatever their
// bounds (docs/measured-choices.md#cooperative-matrices-in-variables). matmul_tall_coopmat.glsl
// sets COOP_ROWS 4.
#ifndef COOP_ROWS
#define COOP_ROWS 2
#endif
layout(constant_id = 7) const bool EXPERTS = false;
#ifdef WORKGROUP_SCOPE
// BN / 2, the accumulators' columns: its own constant, so that every
// matrix dimension is a plain specialization constant, the only form run
// on the driver (docs/vulkan.md#workgroup-scope).
layout(constant_id = 8) const uint HALF_BN = 32;
#else
const uint WM = COOP_ROWS * CM, WN = 2 * CN;  // workgroup = (BM / WM) * (BN / WN) subgroups
#endif

layout(binding = 1, scalar) readonly buffer X { uvec2 x4[]; };  // 4 fp16 values each
// EXPERTS: the route, from ids_first (dst_ne1 experts); else x again, unread.
layout(binding = 2, scalar) readonly buffer Route { uint route[]; };
layout(binding = 3, scalar) writeonly buffer Y { float y[]; };

// The tiles hold 4 fp16 values per uvec2 (one store each), in rows padded by
// 8 values: each row stays 16-byte aligned, and 8 successive rows start in
// different banks. Two of each: buffer b starts at b * BM * STRIDE (W) and
// b * BN * STRIDE (x), in one array: W's at 0, x's at XTILE.
const uint STRIDE = (BK + 8) / 4;
const uint XTILE = 2 * BM * STRIDE;
shared uvec2 tiles[2 * (BM + BN) * STRIDE];
#ifndef WORKGROUP_SCOPE
shared float stage[(BM / WM) * (BN / WN) * CM * CN];
#endif

// Each thread loads the same 4-value pieces of every step's tiles, of W in
// runs of RUN pieces of one row: a type with dequant16 (16 values, one
// decode of their scales) takes runs of 4, others single pieces.
const uint WG = gl_WorkGroupSize.x;
#ifdef HAS_DEQUANT16
const uint RUN = 4;
#else
const uint RUN = 1;
#endif
const uint RUNS_PER_ROW = BK / (4 * RUN), W_RUNS = (BM * RUNS_PER_ROW + WG - 1) / WG, W_PIECES = W_RUNS * RUN;
const uint X_PIECES = (BN * BK / 4 + WG - 1) / WG;
#ifdef HAS_RAW_HALVES
uvec2 wnext[W_PIECES];  // fp16 weights go to the tile as loaded, like x
#else
vec4 wnext[W_PIECES];
#endif
uvec2 xnext[X_PIECES];
// EXPERTS: where in x the column of each of the thread's x pieces starts,
// read from the route once per tile.
uint xcol[X_PIECES];

// With EXPERTS, the slot of column c (an entry of the route's list) and
// where it starts in x (in halves) and in y.
uint slot_of(uint c) { return route[p.ids_first + p.dst_ne1 + 1 + c]; }
uint slot_x(uint c) { const uint s = slot_of(c); return p.x_first + s % p.ne2 * p.x_nb2 + s / p.ne2 * p.x_nb3; }
uint slot_y(uint c) { const uint s = slot_of(c); return p.y_first + s % p.ne2 * p.y_nb2 + s / p.ne2 * p.y_nb3; }

// A piece of W as the tile holds it: 4 fp16 values.
uvec2 tile_piece(vec4 v) { return uvec2(packFloat2x16(f16vec2(v.xy)), packFloat2x16(f16vec2(v.zw))); }
uvec2 tile_piece(uvec2 halves) { return halves; }

// Reads the tiles of the step at k0 into wnext and xnext, of columns col0..
// of the columns before `cols`. Values past k are zeros; rows and columns
// past the edge repeat the last one (their results are not stored). No
// branches, so that these loads can be in flight while the subgroups
// multiply the step before.
void fetch(uint k0, uint row0, uint col0, uint cols, uint x0) {
    const uint t = gl_LocalInvocationID.x;
    for (uint i = 0; i < W_RUNS; ++i) {
        const uint v = min(t + i * WG, BM * RUNS_PER_ROW - 1), r = v / RUNS_PER_ROW;
        const uint kk = k0 + v % RUNS_PER_ROW * 4 * RUN, wr = w_row(min(row0 + r, p.n - 1));
#ifdef HAS_DEQUANT16
        const mat4 w = dequant16(wr, min(kk, p.k - 16));
        for (uint j = 0; j < 4; ++j) wnext[4 * i + j] = kk < p.k ? w[j] : vec4(0.0);
#elif defined(HAS_RAW_HALVES)
        const uvec2 w = raw_halves4(wr, min(kk, p.k - 4));
        wnext[i] = kk < p.k ? w : uvec2(0);
#else
        const vec4 w = dequant4(wr, min(kk, p.k - 4));
        wnext[i] = kk < p.k ? w : vec4(0.0);
#endif
    }
    for (uint i = 0; i < X_PIECES; ++i) {
        const uint v = min(t + i * WG, BN * BK / 4 - 1), c = v / (BK / 4), kk = k0 + v % (BK / 4) * 4;
        const uint xc = EXPERTS ? xcol[i] : x0 + min(col0 + c, cols - 1) * p.x_nb1;
        const uvec2 xv = x4[(xc + min(kk, p.k - 4)) / 4];
        xnext[i] = kk < p.k ? xv : uvec2(0);
    }
}

void store_tiles(uint buf) {
    const uint t = gl_LocalInvocationID.x, wb = buf * BM * STRIDE, xb = buf * BN * STRIDE;
    for (uint i = 0; i < W_PIECES; ++i) {
        const uint v = t + i / RUN * WG;  // run v, piece i % RUN of it
        if (v < BM * RUNS_PER_ROW) tiles[wb + v / RUNS_PER_ROW * STRIDE + v % RUNS_PER_ROW * RUN + i % RUN] = tile_piece(wnext[i]);
    }
    for (uint i = 0; i < X_PIECES; ++i) {
        const uint v = t + i * WG;
        if (v < BN * BK / 4) tiles[XTILE + xb + v / (BK / 4) * STRIDE + v % (BK / 4)] = xnext[i];
    }
}

// Column col of the tile's tokens: where its y starts.
uint y_start(uint col, uint y0) { return EXPERTS ? slot_y(col) : y0 + col * p.y_nb1; }

#ifdef WORKGROUP_SCOPE
#define ACC fcoopmatNV<32, gl_ScopeWorkgroup, BM, HALF_BN>

// Stores accumulator C, the tile's columns HALF * HALF_BN.., through the
// tiles' memory (column-major: a token's BM rows are contiguous, as in y).
// A macro, keeping workgroup-scope matrices out of function parameters, a
// form not run on the driver.
#define STORE_HALF(C, HALF)                                                                    \
    barrier();                                                                                 \
    coopMatStoreNV(C, tiles, 0, BM / 2, true);                                                 \
    barrier();                                                                                 \
    for (uint e = gl_LocalInvocationID.x; e < BM * HALF_BN; e += WG) {                         \
        const uint row = row0 + e % BM, col = col0 + (HALF) * HALF_BN + e / BM;                \
        if (row < p.n && col < cols) y[y_start(col, y0) + row] = uintBitsToFloat(tiles[e / 2][e % 2]); \
    }
#else
#define ACC fcoopmatNV<32, gl_ScopeSubgroup, CM, CN>

// The subgroup's part of the tile: its first row and first token.
uvec2 subgroup_part() { return uvec2(gl_SubgroupID % (BM / WM) * WM, gl_SubgroupID / (BM / WM) * WN); }

// Stores accumulator c, the subgroup's matrix (i, j), through the subgroup's
// staging matrix (column-major: a token's CM rows are contiguous, as in y).
void store_acc(ACC c, uint i, uint j, uint row0, uint col0, uint cols, uint y0) {
    const uint at = gl_SubgroupID * CM * CN;
    const uvec2 part = subgroup_part();
    coopMatStoreNV(c, stage, at, CM, true);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    for (uint e = gl_SubgroupInvocationID; e < CM * CN; e += gl_SubgroupSize) {
        const uint row = row0 + part.x + i * CM + e % CM, col = col0 + part.y + j * CN + e / CM;
        if (row < p.n && col < cols) y[y_start(col, y0) + row] = stage[at + e];
    }
    subgroupBarrier();  // read before the next matrix overwrites it
}
#endif

// Rows row0.. by columns col0.. of the columns before `cols`; x0 and y0:
// where column 0 starts in x and y (EXPERTS: the route says per column).
void tile(uint row0, uint col0, uint cols, uint x0, uint y0) {
    if (EXPERTS)
        for (uint i = 0; i < X_PIECES; ++i) {
            const uint v = min(gl_LocalInvocationID.x + i * WG, BN * BK / 4 - 1);
            xcol[i] = slot_x(min(col0 + v / (BK / 4), cols - 1));
        }

#ifdef WORKGROUP_SCOPE
    ACC c0 = ACC(0.0), c1 = c0;
#else
    const uint sr = subgroup_part().x, sc = subgroup_part().y;
    ACC c00 = ACC(0.0), c01 = c00, c10 = c00, c11 = c00;
#endif
#if COOP_ROWS == 4
    ACC c20 = c00, c21 = c00, c30 = c00, c31 = c00;
#endif

    fetch(0, row0, col0, cols, x0);
    store_tiles(0);
    barrier();
    for (uint k0 = 0, buf = 0; k0 < p.k; k0 += BK, buf ^= 1) {
#ifndef FETCH_AFTER_MULTIPLIES
        fetch(k0 + BK, row0, col0, cols, x0);  // past k on the last step: zeros, unused
#endif
        const uint wb = buf * BM * STRIDE, xb = XTILE + buf * BN * STRIDE;
#ifdef WORKGROUP_SCOPE
        fcoopmatNV<16, gl_ScopeWorkgroup, BM, BK> a;
        fcoopmatNV<16, gl_ScopeWorkgroup, BK, HALF_BN> b0, b1;
        coopMatLoadNV(a, tiles, wb, STRIDE, false);
        // x's tile holds tokens as rows: column-major for the K x N operand.
        coopMatLoadNV(b0, tiles, xb, STRIDE, true);
        coopMatLoadNV(b1, tiles, xb + HALF_BN * STRIDE, STRIDE, true);
        c0 = coopMatMulAddNV(a, b0, c0);
        c1 = coopMatMulAddNV(a, b1, c1);
#else
        for (uint kk = 0; kk < BK; kk += CK) {
            fcoopmatNV<16, gl_ScopeSubgroup, CM, CK> a0, a1;
            fcoopmatNV<16, gl_ScopeSubgroup, CK, CN> b0, b1;
            coopMatLoadNV(a0, tiles, wb + sr * STRIDE + kk / 4, STRIDE, false);
            coopMatLoadNV(a1, tiles, wb + (sr + CM) * STRIDE + kk / 4, STRIDE, false);
            // x's tile holds tokens as rows: column-major for the K x N operand.
            coopMatLoadNV(b0, tiles, xb + sc * STRIDE + kk / 4, STRIDE, true);
            coopMatLoadNV(b1, tiles, xb + (sc + CN) * STRIDE + kk / 4, STRIDE, true);
            c00 = coopMatMulAddNV(a0, b0, c00);
            c01 = coopMatMulAddNV(a0, b1, c01);
            c10 = coopMatMulAddNV(a1, b0, c10);
            c11 = coopMatMulAddNV(a1, b1, c11);
#if COOP_ROWS == 4
            fcoopmatNV<16, gl_ScopeSubgroup, CM, CK> a2, a3;
            coopMatLoadNV(a2, tiles, wb + (sr + 2 * CM) * STRIDE + kk / 4, STRIDE, false);
            coopMatLoadNV(a3, tiles, wb + (sr + 3 * CM) * STRIDE + kk / 4, STRIDE, false);
            c20 = coopMatMulAddNV(a2, b0, c20);
            c21 = coopMatMulAddNV(a2, b1, c21);
            c30 = coopMatMulAddNV(a3, b0, c30);
            c31 = coopMatMulAddNV(a3, b1, c31);
#endif
        }
#endif
        // The other buffer's last readers, the previous step's multiplies,
        // finished before the last barrier.
#ifdef FETCH_AFTER_MULTIPLIES
        fetch(k0 + BK, row0, col0, cols, x0);
#endif
        store_tiles(buf ^ 1);
        barrier();
    }
#ifdef WORKGROUP_SCOPE
    // The stores reuse the tiles' memory: their first barrier waits for the
    // last multiplies, and the last one below for the last reads of it.
    STORE_HALF(c0, 0)
    STORE_HALF(c1, 1)
    barrier();
#else
    // After that barrier no subgroup reads the tiles again: a next tile of
    // the workgroup may store its first step into them at once.

    store_acc(c00, 0, 0, row0, col0, cols, y0);
    store_acc(c01, 0, 1, row0, col0, cols, y0);
    store_acc(c10, 1, 0, row0, col0, cols, y0);
    store_acc(c11, 1, 1, row0, col0, cols, y0);
#if COOP_ROWS == 4
    store_acc(c20, 2, 0, row0, col0, cols, y0);
    store_acc(c21, 2, 1, row0, col0, cols, y0);
    store_acc(c30, 3, 0, row0, col0, cols, y0);
    store_acc(c31, 3, 1, row0, col0, cols, y0);
#endif
#endif
}

void main() {
    const uint row0 = flat_group() * BM;
    if (row0 >= p.n) return;  // a split grid's spare groups
    if (EXPERTS) {  // the same bounds in the whole workgroup: its barriers stay uniform
        w_expert = batch_index();
        const uint end = route[p.ids_first + w_expert + 1];
        for (uint col0 = route[p.ids_first + w_expert] + col_group() * BN; col0 < end; col0 += p.col_groups * BN)
            tile(row0, col0, end, 0, 0);
    } else {
        tile(row0, col_group() * BN, p.m, x_col(0), y_col(0));
    }
}
