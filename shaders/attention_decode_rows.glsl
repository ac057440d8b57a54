// What attention_decode.glsl and attention_decode_join.comp share: their
// push constants, how a workgroup's row maps to a token and head, and where
// a split of a row keeps its partial result.

// As attention.comp's; here K, V and O are counted in 4-value pieces
// (graph/vulkan/kernels/attention.cpp divides their offsets and strides).
layout(push_constant) uniform Push {
    uint n_q, n_head, n_head_kv, n_kv;
    uint q_first, q_nb1, q_nb2;
    uint k_first, k_nb1, k_nb2;
    uint v_first, v_nb1, v_nb2;
    uint o_first, o_nb1, o_nb2;
    uint pos_first;
    float scale;
    float softcap;  // 0: none
    uint window;    // 0: all n_kv rows
} p;

const float NO_MAX = -1.0e30;  // below any score; finite, so NO_MAX - NO_MAX is 0

// Query rows, numbered as in attention.comp with one row per workgroup:
// those of a kv head together, a token's heads of it together.
uint decode_rows() { return p.n_head * p.n_q; }

struct DecodeRow {
    uint token, head, kv_head;
};

DecodeRow decode_row(uint row) {
    const uint group = p.n_head / p.n_head_kv, per_kv_head = group * p.n_q;
    const uint kv_head = row / per_kv_head, r = row % per_kv_head;
    return DecodeRow(r / group, kv_head * group + r % group, kv_head);
}

// A split's partial result: its max, its sum of probabilities, then its
// head_dim values of P V.
uint partial_first(uint row, uint split, uint splits, uint head_dim) { return (row * splits + split) * (head_dim + 2); }
