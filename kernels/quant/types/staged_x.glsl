// x as the staged matvec (shaders/matvec_staged.glsl) hands it to a weight
// type's unit of MV_UNIT_BLOCKS blocks of 32 values. With MV_IDOT, as
// signed bytes, 4 to a word (block i's values 0..15 in lo[i], 16..31 in
// hi[i]), each block's scale d[i] (a value is its byte times d[i]) and the
// sum of its bytes; else as F32 (values 4j..4j+3 of the unit in v[j]).
// Included by a type's MV_STAGED section after it defines MV_UNIT_BLOCKS.
// A type whose unit is one half of each of its blocks (values 16P..16P + 15
// of each, P = u % 2: unit u and u + 1 share their blocks) also defines
// MV_UNIT_HALVES; with MV_IDOT, lo[i] and sum[i] then hold that half and the
// sum of its bytes. A type with both kinds of unit defines
// MV_UNIT_HALVES_CHOICE instead, and takes halves where the host sets
// HALF_UNITS (graph/vulkan/kernels/matmul_variants.cpp: long rows); its code
// asks UNIT_HALVES which it has.
#if defined(MV_UNIT_HALVES)
const bool UNIT_HALVES = true;
#elif defined(MV_UNIT_HALVES_CHOICE)
layout(constant_id = 19) const bool HALF_UNITS = false;
const bool UNIT_HALVES = HALF_UNITS;
#else
const bool UNIT_HALVES = false;
#endif
struct MvX {
#ifdef MV_IDOT
    uvec4 lo[MV_UNIT_BLOCKS], hi[MV_UNIT_BLOCKS];
    float d[MV_UNIT_BLOCKS], sum[MV_UNIT_BLOCKS];
#else
    vec4 v[8 * MV_UNIT_BLOCKS];
#endif
};
