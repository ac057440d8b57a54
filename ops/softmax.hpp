// softmax(x, scale, positions): per row, softmax(scale * x). With I32
// positions (one per row i1, e.g. query positions), entries i0 > positions[i1]
// are masked out (causal attention scores) and come out as 0.
#pragma once

#include "graph/tensor.hpp"

namespace tessera {

struct SoftmaxParams {  // softmax's node parameters
    float scale;
};

Tensor* softmax(Tensor* x, float scale = 1.0f, Tensor* positions = nullptr);

}  // namespace tessera
