// x as the staged matvec (shaders/matvec_staged.glsl) hands it to a weight
// type's unit: MV_UNIT_BLOCKS blocks of 32 values as signed bytes, 4 to a
// word (block i's values 0..15 in lo[i], 16..31 in hi[i]), each block's
// scale d[i] (a value is its byte times d[i]) and the sum of its bytes.
// Included by a type's MV_STAGED section after it defines MV_UNIT_BLOCKS.
struct MvX {
    uvec4 lo[MV_UNIT_BLOCKS], hi[MV_UNIT_BLOCKS];
    float d[MV_UNIT_BLOCKS];
    int sum[MV_UNIT_BLOCKS];
};
