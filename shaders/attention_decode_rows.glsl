// What attention_decode.glsl and attention_decode_join.comp share: their
// push constants (attention_push.glsl), how a workgroup's row maps to a
// sequence, token and head, and where a split of a row keeps its partial
// result.
#include "attention_push.glsl"

const float NO_MAX = -1.0e30;  // below any score; finite, so NO_MAX - NO_MAX is 0

// Query rows, numbered as in attention.comp with one row per workgroup:
// those of a sequence together, of a kv head within it together, a token's
// heads of it together. One dispatch covers every sequence of a batch.
uint decode_rows() { return p.n_head * p.n_q * p.n_seq; }

struct DecodeRow {
    uint seq, token, head, kv_head;
};

DecodeRow decode_row(uint row) {
    const uint group = p.n_head / p.n_head_kv, per_kv_head = group * p.n_q, per_seq = p.n_head * p.n_q;
    const uint seq = row / per_seq, in_seq = row % per_seq;
    const uint kv_head = in_seq / per_kv_head, r = in_seq % per_kv_head;
    return DecodeRow(seq, r / group, kv_head * group + r % group, kv_head);
}

// A split's partial result: its max, its sum of probabilities, then its
// head_dim values of P V.
uint partial_first(uint row, uint split, uint splits, uint head_dim) { return (row * splits + split) * (head_dim + 2); }
