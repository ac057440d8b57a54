// Elementwise ops on F32 tensors.
//   add(a, b), mul(a, b)  b's rows are repeated over a (b.ne[0] == a.ne[0],
//                         every other dimension of b divides a's): a norm
//                         weight [n] times activations [n, tokens]
//   scale(x, s)           s * x
//   silu(x)               x * sigmoid(x)
//   swiglu(gate, up)      silu(gate) * up, Llama's feed-forward gate
#pragma once

#include "graph/tensor.hpp"

namespace tessera {

struct ScaleParams {  // scale's node parameters
    float s;
};

Tensor* add(Tensor* a, Tensor* b);
Tensor* mul(Tensor* a, Tensor* b);
Tensor* scale(Tensor* x, float s);
Tensor* silu(Tensor* x);
Tensor* swiglu(Tensor* gate, Tensor* up);

}  // namespace tessera
