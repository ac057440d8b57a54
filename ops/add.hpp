// add(a, b): y = a + b for F32 tensors, b's rows repeated over a (b.ne0 ==
// a.ne0, every other dimension of b divides a's): a bias [n] added to
// activations [n, tokens], or a residual stream of the same shape.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kAdd;
}

Tensor* add(Tensor* a, Tensor* b);

}  // namespace tessera
