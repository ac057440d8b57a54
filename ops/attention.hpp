// attention(q, k, v, positions, scale): causal scaled-dot-product attention
// with grouped-query heads, fused (scores are never materialized as a tensor).
//   q          F32 [head_dim, n_head, n_q]
//   k, v       F32 or F16 [head_dim, n_kv, n_head_kv] (e.g. views of a KV cache)
//   positions  I32 [n_q]: query i sees kv positions j <= positions[i]
// out[:, h, i] = sum_j softmax_j(scale * q[:, h, i] . k[:, j, g]) v[:, j, g]
// with g = h / (n_head / n_head_kv).
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kAttention;
}

struct AttentionParams {  // attention's node parameters
    float scale;
};

Tensor* attention(Tensor* q, Tensor* k, Tensor* v, Tensor* positions, float scale);

}  // namespace tessera
