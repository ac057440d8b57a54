// y = W x: W is [k, n] of any quant type the CPU supports (n rows of k, the
// GGUF layout), x is F32 [k, m, b2, b3]; y is F32 [n, m, b2, b3] with
// y[.., i, j] = dot(W row j, x row i). `precision`: how the kernels round x
// (the scalar reference does not round it). With `plus`, y = W x + plus,
// plus F32 repeated over y as add() repeats its second operand (a bias row,
// or the residual stream): one node and, on a GPU, one kernel less.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"
#include "kernels/quant/activation_precision.hpp"

namespace tessera {

namespace ops {
extern const OpDef kMatmul;
}

Tensor* matmul(Tensor* w, Tensor* x, ActivationPrecision precision = ActivationPrecision::Q8, Tensor* plus = nullptr);

}  // namespace tessera
