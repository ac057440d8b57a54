// rms_norm(x, eps): each row divided by its root mean square, sqrt(mean(x^2) + eps).
#pragma once

#include "graph/tensor.hpp"

namespace tessera {

struct RmsNormParams {  // rms_norm's node parameters
    float eps;
};

Tensor* rms_norm(Tensor* x, float eps);

}  // namespace tessera
