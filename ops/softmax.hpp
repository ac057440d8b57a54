// softmax(x, scale, positions): per row, softmax(scale * x). With I32
// positions (one per row i1, e.g. query positions), entries i0 > positions[i1]
// are masked out (causal attention scores) and come out as 0.
#pragma once

#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kSoftmax;
}

// The entries of row ri of a softmax node that are not masked: its row
// length, or with positions positions[i1] + 1 (clamped to the row).
int64_t softmax_unmasked(const Tensor& node, RowIndex ri);

struct SoftmaxParams {  // softmax's node parameters
    float scale;
};

Tensor* softmax(Tensor* x, float scale = 1.0f, Tensor* positions = nullptr);

}  // namespace tessera
