// The push constants of the matmul skeletons (shaders/quant/matvec.glsl,
// matmul.glsl; graph/vulkan/kernels/matmul.cpp): y = W x with W [k, n] of
// blocks, x F32 [k, m, ne2, ne3] and y F32 [n, m, ne2, ne3], rows dense.
// Grid: flat_group() picks the rows of W, z = column group + col_groups * batch
// with batch = i2 + ne2 * i3.
layout(push_constant) uniform Push {
    uint k, n, m, ne2, col_groups;
    uint w_first, w_nb1;  // in blocks
    uint x_first, x_nb1, x_nb2, x_nb3;
    uint y_first, y_nb1, y_nb2, y_nb3;
    // The addend of y = W x + a (matvec only): its layout and the sizes it
    // is repeated from, as add() repeats its second operand.
    uint a_first, a_nb1, a_nb2, a_nb3, a_ne1, a_ne2, a_ne3;
    // What a matvec fuses (matvec.glsl), one batch of rows then: x's norm
    // (the gain row at x2_first) or x = silu(x) * x2 (x2's rows x2_nb1 apart);
    // rope of the rows (n_rot | head_dim << 16; where the positions and the
    // frequency factors start: pos_first | factors_first << 16, both under
    // 64 as a binding's shift is under 256 bytes); rows stored into a cache's
    // rows ids[token] (y_first, y_nb1 per cache row, y_nb_head per head, at
    // most dst_ne1 cache rows).
    uint x2_first, x2_nb1;
    float eps;
    uint rope_firsts;
    float freq_scale, log2_rate;
    uint rot;
    uint ids_first, dst_ne1, y_nb_head;
} p;

uint batch_index() { return gl_WorkGroupID.z / p.col_groups; }
uint col_group() { return gl_WorkGroupID.z % p.col_groups; }
// Where column (token) c of the batch starts in x and in y.
uint x_col(uint c) { const uint b = batch_index(); return p.x_first + c * p.x_nb1 + b % p.ne2 * p.x_nb2 + b / p.ne2 * p.x_nb3; }
uint y_col(uint c) { const uint b = batch_index(); return p.y_first + c * p.y_nb1 + b % p.ne2 * p.y_nb2 + b / p.ne2 * p.y_nb3; }
// Where the addend's row for column c starts.
uint a_col(uint c) {
    const uint b = batch_index(), i2 = b % p.ne2, i3 = b / p.ne2;
    return p.a_first + c % p.a_ne1 * p.a_nb1 + i2 % p.a_ne2 * p.a_nb2 + i3 % p.a_ne3 * p.a_nb3;
}
// matmul_id (graph/vulkan/kernels/matmul_id.cpp): W is expert w_expert's
// [k, n] matrix of a [k, n, n_expert] weight whose experts follow each
// other, w_expert set by the skeleton from the ids on the GPU; 0 for matmul.
uint w_expert = 0;
// The first block of row r of W.
uint w_row(uint r) { return p.w_first + (w_expert * p.n + r) * p.w_nb1; }
