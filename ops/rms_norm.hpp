// rms_norm(x, eps[, weight]): each row divided by its root mean square,
// sqrt(mean(x^2) + eps), then multiplied elementwise by weight (a row of
// ne0 F32 values) when given. With the weight it is Llama's RMSNorm in one
// node: the same as mul(rms_norm(x, eps), weight), one kernel less per norm.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kRmsNorm;
}

struct RmsNormParams {  // rms_norm's node parameters
    float eps;
};

Tensor* rms_norm(Tensor* x, float eps, Tensor* weight = nullptr);

}  // namespace tessera
