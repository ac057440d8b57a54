// geglu(gate, up): y = gelu(gate) * up with GELU's tanh approximation
// (x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))), Gemma's feed-forward
// gate; F32 tensors of the same shape.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kGeglu;
}

Tensor* geglu(Tensor* gate, Tensor* up);

}  // namespace tessera
