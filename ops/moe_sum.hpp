// moe_sum(y, w): each token's chosen experts' outputs, weighted and summed:
// out[:, t] = sum_j w[j, t] * y[:, j, t]. y F32 [d, k, n], w F32 [k, n]
// (moe_weights'), out F32 [d, n].
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kMoeSum;
}

Tensor* moe_sum(Tensor* y, Tensor* w);

}  // namespace tessera
