// swiglu(gate, up): y = silu(gate) * up, Llama's feed-forward gate; F32
// tensors of the same shape.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kSwiglu;
}

Tensor* swiglu(Tensor* gate, Tensor* up);

}  // namespace tessera
