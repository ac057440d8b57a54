// Stores F32 rows into an F32 or F16 destination with any row strides
// (ops/copy.hpp): copy.comp (SET_ROWS 0) keeps each row's index, set_rows.comp
// (SET_ROWS 1) sends source row (i1, i2, i3) to destination row (rows[i1],
// i2, i3), or with ids per i3 (rows_nb1 > 0) to (rows[i1, i3], i2, i3); a
// negative id (an idle sequence of a batch) stores nothing. One invocation
// per element.
#include "common.glsl"

layout(constant_id = 1) const bool DST_F16 = false;

layout(binding = 0, scalar) readonly buffer Src { float src[]; };
#if SET_ROWS
layout(binding = 1, scalar) readonly buffer Rows { int rows[]; };
#define DST_BINDING 2
#else
#define DST_BINDING 1
#endif
// One binding seen as either element type.
layout(binding = DST_BINDING, scalar) writeonly buffer Dst32 { float dst32[]; };
layout(binding = DST_BINDING, scalar) writeonly buffer Dst16 { float16_t dst16[]; };

layout(push_constant) uniform Push {
    uint ne0, ne1, ne2, total;  // of the source; total = its element count
    uint src_first, src_nb1, src_nb2, src_nb3;
    uint dst_first, dst_nb1, dst_nb2, dst_nb3;
    uint dst_ne1;   // rows of the destination: set_rows skips row ids outside it
    uint rows_first;
    uint rows_nb1;  // ids per i3: their stride; 0: the same ids for every i3
} p;

void main() {
    const uint id = flat_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (id >= p.total) return;
    const uint i0 = id % p.ne0;
    const uvec3 i = row_index(id / p.ne0, p.ne1, p.ne2);
#if SET_ROWS
    const uint dst_row = uint(rows[p.rows_first + i.z * p.rows_nb1 + i.x]);
    if (dst_row >= p.dst_ne1) return;  // a negative id wraps to a huge one
#else
    const uint dst_row = i.x;
#endif
    const float v = src[p.src_first + i.x * p.src_nb1 + i.y * p.src_nb2 + i.z * p.src_nb3 + i0];
    const uint d = p.dst_first + dst_row * p.dst_nb1 + i.y * p.dst_nb2 + i.z * p.dst_nb3 + i0;
    if (DST_F16) dst16[d] = float16_t(v);
    else dst32[d] = v;
}
