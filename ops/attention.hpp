// attention(q, k, v, positions, params): causal scaled-dot-product attention
// with grouped-query heads, fused (scores are never materialized as a tensor).
//   q          F32 [head_dim, n_head, n_q, n_seq]
//   k, v       F32 or F16 [head_dim, n_rows, n_head_kv, n_seq] (e.g. views of a KV cache)
//   positions  I32 [n_q, n_seq]
// Each of the n_seq sequences (usually 1) is independent: its queries see
// its own rows.
// The rows hold the last n_rows positions: position j at row j mod n_rows (a
// ring; a cache of every position is the case n_rows > every position). Query
// i, at position p = positions[i], sees the positions j with
// max(0, p - w + 1) <= j <= p, where w = min(window, n_rows) (window 0: n_rows).
// out[:, h, i] = sum_j softmax_j(cap(scale * q[:, h, i] . k[:, j, g])) v[:, j, g]
// with g = h / (n_head / n_head_kv) and cap(s) = softcap * tanh(s / softcap)
// (Gemma 2's attention-logit soft-capping; the identity for softcap 0).
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kAttention;
}

struct AttentionParams {  // attention's node parameters
    float scale;
    float softcap = 0.0f;  // 0: none
    int64_t window = 0;    // positions a query sees, itself included; 0: all the rows hold
};

Tensor* attention(Tensor* q, Tensor* k, Tensor* v, Tensor* positions, const AttentionParams& params);
inline Tensor* attention(Tensor* q, Tensor* k, Tensor* v, Tensor* positions, float scale) {
    return attention(q, k, v, positions, AttentionParams{.scale = scale});
}

// The positions [first, last] query position p sees (empty when first > last),
// as defined above.
struct AttentionSpan {
    int64_t first, last;
};
inline AttentionSpan attention_span(int64_t p, int64_t n_rows, int64_t window) {
    const int64_t w = window > 0 && window < n_rows ? window : n_rows;
    return {p - w + 1 < 0 ? 0 : p - w + 1, p};
}

}  // namespace tessera
