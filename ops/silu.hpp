// silu(x): y = x * sigmoid(x) = x / (1 + exp(-x)) for an F32 tensor.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kSilu;
}

Tensor* silu(Tensor* x);

}  // namespace tessera
