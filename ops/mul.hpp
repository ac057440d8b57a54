// mul(a, b): y = a * b for F32 tensors, b's rows repeated over a as in
// add(): a norm weight [n] times activations [n, tokens].
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kMul;
}

Tensor* mul(Tensor* a, Tensor* b);

}  // namespace tessera
