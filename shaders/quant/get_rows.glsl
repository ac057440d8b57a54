// get_rows (ops/get_rows.hpp) for the weight type included before this
// skeleton: y row r = the table's row ids[r], dequantized. One workgroup per
// row of y, its threads striding over the row 4 values at a time.
#include "common.glsl"

layout(binding = 1, scalar) readonly buffer Ids { int ids[]; };
layout(binding = 2, scalar) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Push {
    uint k, nrows, table_rows;  // row length, rows of y, rows of the table
    uint w_first, w_nb1;        // in blocks
    uint ids_first, y_first, y_nb1;
} p;

void main() {
    const uint r = flat_group();
    if (r >= p.nrows) return;
    const int id = ids[p.ids_first + r];
    // An id outside the table gives zeros (the CPU kernels throw; a shader cannot).
    const bool valid = id >= 0 && uint(id) < p.table_rows;
    const uint row = p.w_first + uint(valid ? id : 0) * p.w_nb1, out_row = p.y_first + r * p.y_nb1;
    for (uint i = 4 * gl_LocalInvocationID.x; i < p.k; i += 4 * gl_WorkGroupSize.x) {
        const vec4 v = valid ? dequant4(row, i) : vec4(0.0);
        for (uint e = 0; e < 4; ++e) y[out_row + i + e] = v[e];
    }
}
